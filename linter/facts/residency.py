"""The ``residency`` fact: every place a workload's personal data may be processed (its own
region, each endpoint's region, and where an endpoint may route it), judged against the allowed
jurisdictions (``data.residency``, else the organisation default from config)."""

from __future__ import annotations

from typing import Any

from linter.facts.run import RunIndex
from linter.formats.manifest import Manifest
from linter.model import Workload
from linter.residency import (
    ANYWHERE,
    Destination,
    endpoint_destinations,
    region_place,
    unknown_allowed,
    within,
)


def _describe(destination: Destination) -> dict[str, Any]:
    place = destination.place
    return {
        "provider": destination.provider,
        "region": destination.region,
        "country": place.country if place else None,
        "name": place.name if place else None,
        "reason": destination.reason,
    }


def compute(manifest: Manifest, run: RunIndex) -> dict[str, Any]:
    workload = manifest.model
    assert isinstance(workload, Workload)
    spec = workload.spec
    declared = list(spec.data.residency)
    allowed = declared or list(run.default_residency)
    places: list[dict[str, Any]] = []
    resources = spec.resources
    if resources.provider and resources.region:
        place = region_place(resources.provider, resources.region)
        destination = Destination(
            resources.provider, resources.region, place, f"the workload runs in {resources.region}"
        )
        places.append(
            {
                **_describe(destination),
                "path": "spec.resources.region",
                "within": within(destination, allowed) if allowed else None,
            }
        )
    for number, endpoint in enumerate(spec.endpoints):
        path = (
            f"spec.endpoints[{number}].inferenceProfile"
            if endpoint.inference_profile
            else f"spec.endpoints[{number}].region"
        )
        for destination in endpoint_destinations(
            endpoint.provider, endpoint.region, endpoint.inference_profile, endpoint.deployment_type
        ):
            places.append(
                {
                    **_describe(destination),
                    "path": path,
                    "endpoint": number,
                    "anywhere": destination.region == ANYWHERE,
                    "within": within(destination, allowed) if allowed else None,
                }
            )
    return {
        "personalData": spec.data.personal_data is True,
        "allowed": allowed,
        "declared": bool(declared),
        "unknownJurisdictions": list(unknown_allowed(allowed)),
        "places": places,
        "outside": [p for p in places if p["within"] is False],
        "undetermined": [p for p in places if p["within"] is None and allowed],
    }
