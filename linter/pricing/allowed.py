"""Which managed offerings a residency allow-list admits.

An offering counts only when every place its requests may be processed lies within the allowed
jurisdictions (``linter.residency``): a Bedrock region processes in that region, a Bedrock
inference profile in every region of its geography, an Azure OpenAI data-zone price in every
region of the zone, a global one anywhere. A price that is not regional (the same wherever the
provider serves the model) is taken as called in the workload's own region when the workload
runs on the same cloud; otherwise there is no region to judge and the offering does not count.
"""

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from linter.catalog import regions
from linter.catalog.endpoints import (
    azure_data_zone,
    azure_deployment_type,
    bedrock_profile,
    cloud_of,
)
from linter.catalog.spelling import name_key
from linter.pricing.apis import ManagedOffering
from linter.residency import Destination, endpoint_destinations, region_place, within


class OfferingVerdict(NamedTuple):
    offering: ManagedOffering
    #: The region the offering is judged in: its own, or the workload's for a price that is
    #: not regional (None when there is none).
    region: str | None
    #: True when the offering is called in the workload's own region.
    same_region: bool
    destinations: tuple[Destination, ...]
    #: True: every destination is within the allow-list (or there is no allow-list); False: one
    #: is outside; None: where it processes cannot be determined.
    allowed: bool | None
    reason: str


def _not_regional(cloud: str, workload_cloud: str | None, region: str | None) -> Destination:
    if region is None or workload_cloud != cloud:
        return Destination(
            cloud, None, None, f"the price is not regional and the workload has no {cloud} region"
        )
    place = region_place(cloud, region)
    if place is None:
        return Destination(cloud, region, None, f"{region} is not in the region catalogue")
    return Destination(cloud, place.region, place, f"called in {place.label()}")


def _bedrock_profile(offering: ManagedOffering, source_region: str | None) -> list[Destination]:
    profile, _ = bedrock_profile(offering.model)
    if profile is not None and source_region is None and profile.regions != "any":
        source_region = profile.regions[0]
    return endpoint_destinations("bedrock", source_region or "", offering.model)


def _azure_segment(segment: str, source_region: str | None) -> list[Destination]:
    """An Azure OpenAI price segment: a deployment type (``global``) or a data zone (``eu``)."""
    if azure_deployment_type(segment) is not None:
        return endpoint_destinations("azure-openai", source_region or segment, None, segment)
    zone = azure_data_zone(segment)
    if zone is not None:
        home = regions.regions_in("azure", zone.jurisdiction)[0]
        return endpoint_destinations("azure-openai", home.region, None, "data-zone")
    return [Destination("azure", None, None, f"Azure price segment {segment!r} is not catalogued")]


def destinations(
    offering: ManagedOffering, workload_provider: str | None, workload_region: str | None
) -> tuple[str | None, list[Destination]]:
    """The region an offering is judged in and every place its requests may be processed."""
    cloud = cloud_of(offering.provider) or offering.provider
    workload_cloud = cloud_of(workload_provider) if workload_provider else None
    same_cloud_region = workload_region if workload_cloud == cloud else None
    if offering.region is None:
        return same_cloud_region, [_not_regional(cloud, workload_cloud, workload_region)]
    if cloud == "aws" and regions.region("aws", offering.region) is not None:
        return offering.region, endpoint_destinations("bedrock", offering.region, None)
    if cloud == "aws":
        return offering.region, _bedrock_profile(offering, same_cloud_region)
    if cloud == "azure":
        return offering.region, _azure_segment(offering.region, same_cloud_region)
    return offering.region, endpoint_destinations(offering.provider, offering.region, None)


def _verdict(found: Sequence[Destination], allowed: Sequence[str]) -> tuple[bool | None, str]:
    if not allowed:
        return True, "no residency constraint"
    answers = [within(destination, allowed) for destination in found]
    if False in answers:
        outside = found[answers.index(False)]
        return False, f"outside {', '.join(allowed)}: {outside.reason}"
    if None in answers:
        return None, f"cannot tell: {found[answers.index(None)].reason}"
    return True, f"within {', '.join(allowed)}"


def allowed_offerings(
    offerings: Iterable[ManagedOffering],
    allowed: Sequence[str],
    *,
    provider: str | None,
    region: str | None,
) -> list[OfferingVerdict]:
    """A verdict for each offering against the allow-list ``allowed`` (jurisdiction tags or
    country codes; empty: no constraint), for a workload running on ``provider`` in
    ``region``. A price that is not regional is left out where the same model has a price of
    its own in the region it would be judged in (the regional price is the one that applies)."""
    offerings = list(offerings)
    regional = {(o.provider, o.model, name_key(o.region)) for o in offerings if o.region}
    verdicts = []
    for offering in offerings:
        judged_in, found = destinations(offering, provider, region)
        overridden = (offering.provider, offering.model, name_key(judged_in or ""))
        if offering.region is None and overridden in regional:
            continue
        ok, reason = _verdict(found, allowed)
        same = (
            judged_in is not None
            and region is not None
            and cloud_of(offering.provider) == (cloud_of(provider) if provider else None)
            and name_key(judged_in) == name_key(region)
        )
        verdicts.append(OfferingVerdict(offering, judged_in, same, tuple(found), ok, reason))
    return verdicts
