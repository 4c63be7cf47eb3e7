"""Where data sent to a managed inference endpoint may be processed.

Cross-region routing (Bedrock inference profiles, Vertex AI global and multi-region locations,
Azure OpenAI Global and DataZone deployments) means the processing region differs from the
region the endpoint is addressed in, so a residency check must expand an endpoint to every
destination it may route to before applying an allow-list.
"""

from __future__ import annotations

from linter.catalog.endpoints import (
    azure_data_zones,
    azure_deployment_type,
    bedrock_profile,
    cloud_of,
    vertex_location,
)
from linter.catalog.memo import memoize_list
from linter.residency.places import (
    ANYWHERE,
    Destination,
    Place,
    places_in,
    provider_places,
    region_place,
)


@memoize_list
def endpoint_destinations(
    provider: str,
    region: str | None,
    inference_profile: str | None,
    deployment_type: str | None = None,
) -> list[Destination]:
    """Every place data sent to the endpoint may be processed, each with a reason.

    ``provider`` is a cloud or managed-service name (``bedrock``, ``vertex-ai``,
    ``azure-openai``). Bedrock uses ``inference_profile``, Vertex AI reads ``region`` as its
    location (``global``, ``eu``, ``us`` or a region), Azure OpenAI uses ``deployment_type``
    (global, data-zone or regional, any of their product spellings). For a provider without
    routing rules the endpoint is taken to process in its own region. The list is never empty: an
    undeterminable destination is returned with ``region`` or ``place`` None, never dropped.
    """
    cloud = cloud_of(provider)
    if region is None:
        return [Destination(provider, None, None, "the endpoint declares no region")]
    if cloud == "aws":
        return _bedrock(region, inference_profile)
    if cloud == "gcp":
        return _vertex(region)
    if cloud == "azure":
        return _azure_openai(region, deployment_type)
    return [_in_region(provider, region, "the endpoint processes in")]


def _in_region(provider: str, region: str, why: str) -> Destination:
    place = region_place(provider, region)
    if place is None:
        return Destination(provider, region, None, f"{why} {region} (not in the region catalogue)")
    return Destination(place.provider, place.region, place, f"{why} {place.label()}")


def _anywhere(cloud: str, why: str) -> Destination:
    return Destination(cloud, ANYWHERE, None, why)


def _each(places: list[Place], why: str) -> list[Destination]:
    return [Destination(p.provider, p.region, p, f"{why} {p.label()}") for p in places]


def _bedrock(region: str, inference_profile: str | None) -> list[Destination]:
    if not inference_profile:
        return [
            _in_region("aws", region, "an in-region call (no inference profile) is processed in")
        ]
    profile, _ = bedrock_profile(inference_profile)
    if profile is None:
        return [
            Destination(
                "aws",
                None,
                None,
                f"inference profile {inference_profile!r} has no catalogued prefix",
            )
        ]
    name = f"the {profile.prefix}. inference profile"
    if profile.regions == "any":
        return [_anywhere("aws", f"{name} may route to any commercial AWS region")]
    found = [_in_region("aws", r, f"{name} routes to") for r in profile.regions]
    source = region_place("aws", region)
    if source is None or source.region not in profile.regions:
        found.append(
            _in_region("aws", region, f"data at rest for {name} stays in the source region")
        )
    return found


def _vertex(location: str) -> list[Destination]:
    spec = vertex_location(location)
    if spec is None:
        return [_in_region("gcp", location, "the regional Vertex AI endpoint processes in")]
    why = f"the Vertex AI {spec.location} location"
    if spec.jurisdiction is None:  # regions: any
        return [_anywhere("gcp", f"{why} may process in any region ({spec.note})")]
    return _each(places_in("gcp", spec.jurisdiction), f"{why} may process in")


def _azure_openai(region: str, deployment_type: str | None) -> list[Destination]:
    kind = azure_deployment_type(deployment_type or "")
    if kind is None:
        why = (
            f"Azure OpenAI deployment type {deployment_type!r} is not catalogued"
            if deployment_type
            else "no Azure OpenAI deployment type is declared (a Global one routes anywhere)"
        )
        return [Destination("azure", None, None, why)]
    if kind.scope == "global":
        return [
            _anywhere("azure", f"a {deployment_type} deployment may be routed to any Azure region")
        ]
    home = region_place("azure", region)
    if home is None:
        return [_in_region("azure", region, f"the {deployment_type} deployment's resource is in")]
    if kind.scope == "regional":
        return _each(
            [p for p in provider_places("azure") if p.geography == home.geography],
            f"a {deployment_type} deployment in {home.region} stays in Azure geography"
            f" {home.geography}, which includes",
        )
    for zone in azure_data_zones():
        if zone.jurisdiction in home.jurisdictions:
            return _each(
                places_in("azure", zone.jurisdiction),
                f"a {deployment_type} deployment in {home.region} stays in the {zone.zone} data"
                " zone, which includes",
            )
    why = f"no Azure OpenAI data zone is catalogued for {home.label()}"
    return [Destination("azure", None, None, why)]
