"""The ``residency`` fact: every place a workload's personal data may be processed (its own
region, each endpoint's region, and where an endpoint may route it), judged against the allowed
jurisdictions (``data.residency``, else the organisation default from config)."""

from typing import get_args

from linter.facts.base import Fact, described
from linter.facts.subject import Subject
from linter.model.workload import LawfulBasis
from linter.residency import (
    ANYWHERE,
    Destination,
    endpoint_destinations,
    region_place,
    unknown_allowed,
    within,
)
from linter.wording import listing


class EndpointPlace(Fact):
    provider: str
    region: str | None = described(
        "A region, * for any region of the provider, or null when not determined."
    )
    country: str | None
    name: str | None = described("City or area, when catalogued.")
    description: str = described("'in eu-west-1 (Ireland, IE)' or 'in any aws region'.")
    reason: str = described("Why data may be processed there.")
    path: str = described("The manifest path that sends it there.")
    endpoint: int | None = described("Index into spec.endpoints; null for the workload.")
    anywhere: bool
    within: bool | None = described("Inside the allowed jurisdictions; null if unknown.")


class ResidencyFact(Fact):
    personal_data: bool
    allowed: list[str] = described("Allowed jurisdictions (declared, else config).")
    allowed_text: str
    declared: bool = described("The workload declares data.residency itself.")
    unknown_jurisdictions: list[str]
    unknown_jurisdictions_text: str
    places: list[EndpointPlace]
    outside: list[EndpointPlace] = described("Places outside the allowed jurisdictions.")
    undetermined: list[EndpointPlace] = described("Places whose jurisdiction is not known.")
    endpoint_count: int = described("Managed-API endpoints the workload calls.")
    endpoints_text: str = described("Their providers: 'bedrock and vertex-ai' ('none').")
    uses_text: str | None = described(
        "The model it runs and the APIs it calls, for acceptable-use messages."
    )
    lawful_bases_text: str = described("The lawful bases data.lawfulBasis accepts.")


def _place(
    destination: Destination, path: str, endpoint: int | None, allowed: list[str]
) -> EndpointPlace:
    place = destination.place
    if destination.region == ANYWHERE:
        description = f"in any {destination.provider} region"
    elif place is not None:
        description = f"in {place.label()}"
    elif destination.region is None:
        description = f"in a {destination.provider} region that cannot be determined"
    else:
        description = f"in {destination.region}"
    return EndpointPlace(
        provider=destination.provider,
        region=destination.region,
        country=place.country if place else None,
        name=place.name if place else None,
        description=description,
        reason=destination.reason,
        path=path,
        endpoint=endpoint,
        anywhere=destination.region == ANYWHERE,
        within=within(destination, allowed) if allowed else None,
    )


def compute(subject: Subject) -> ResidencyFact:
    spec = subject.workload.spec
    declared = list(spec.data.residency)
    allowed = declared or list(subject.default_residency)
    places: list[EndpointPlace] = []
    resources = spec.resources
    if resources.provider and resources.region:
        here = region_place(resources.provider, resources.region)
        why = f"the workload runs in {resources.region}"
        destination = Destination(resources.provider, resources.region, here, why)
        places.append(_place(destination, "spec.resources.region", None, allowed))
    for number, endpoint in enumerate(spec.endpoints):
        field = "inferenceProfile" if endpoint.inference_profile else "region"
        path = f"spec.endpoints[{number}].{field}"
        for destination in endpoint_destinations(
            endpoint.provider, endpoint.region, endpoint.inference_profile, endpoint.deployment_type
        ):
            places.append(_place(destination, path, number, allowed))
    unknown = list(unknown_allowed(allowed))
    providers = [endpoint.provider for endpoint in spec.endpoints]
    uses = ([spec.model.id] if spec.model.id else []) + providers
    return ResidencyFact(
        personal_data=spec.data.personal_data is True,
        allowed=allowed,
        allowed_text=listing(allowed),
        declared=bool(declared),
        unknown_jurisdictions=unknown,
        unknown_jurisdictions_text=listing(unknown),
        places=places,
        outside=[p for p in places if p.within is False],
        undetermined=[p for p in places if p.within is None and allowed],
        endpoint_count=len(providers),
        endpoints_text=listing(providers),
        uses_text=listing(uses) if uses else None,
        lawful_bases_text=listing(get_args(LawfulBasis)),
    )
