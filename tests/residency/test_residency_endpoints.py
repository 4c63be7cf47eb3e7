from __future__ import annotations

from linter.catalog.endpoints import bedrock_profile
from linter.residency import ANYWHERE, Destination, endpoint_destinations, within


def outside(destinations: list[Destination], allowed: list[str]) -> list[str | None]:
    return [d.region for d in destinations if within(d, allowed) is not True]


def test_bedrock_eu_profile_includes_london_and_zurich() -> None:
    dests = endpoint_destinations(
        "bedrock", "eu-central-1", "eu.anthropic.claude-sonnet-4-20250514-v1:0"
    )
    assert [d.region for d in dests] == [
        "eu-central-1",
        "eu-west-1",
        "eu-west-3",
        "eu-north-1",
        "eu-south-1",
        "eu-south-2",
        "eu-west-2",
        "eu-central-2",
    ]
    assert outside(dests, ["EU"]) == ["eu-west-2", "eu-central-2"]
    london = next(d for d in dests if d.region == "eu-west-2")
    assert london.reason == "the eu. inference profile routes to eu-west-2 (London, GB)"
    assert london.place is not None and london.place.jurisdictions == {"GB", "UK"}
    assert outside(dests, ["EU", "UK", "CH"]) == []
    assert outside(dests, ["adequacy"]) == []


def test_bedrock_global_profile_is_outside_the_eu() -> None:
    (dest,) = endpoint_destinations(
        "bedrock", "eu-central-1", "global.anthropic.claude-sonnet-4-20250514-v1:0"
    )
    assert (dest.region, dest.place) == (ANYWHERE, None)
    assert "any commercial AWS region" in dest.reason
    assert within(dest, ["EU"]) is False
    assert within(dest, ["EU", "US", "adequacy-partial"]) is False


def test_bedrock_in_region_call_stays_in_region() -> None:
    (dest,) = endpoint_destinations("bedrock", "eu-central-1", None)
    assert dest.region == "eu-central-1"
    assert within(dest, ["EU"]) is True
    assert "no inference profile" in dest.reason


def test_bedrock_profile_from_another_geography_keeps_the_source_region() -> None:
    dests = endpoint_destinations("bedrock", "eu-central-1", "us")
    assert dests[-1].region == "eu-central-1"
    assert "data at rest" in dests[-1].reason
    assert outside(dests, ["US"]) == ["eu-central-1"]


def test_bedrock_apac_includes_the_uae() -> None:
    dests = endpoint_destinations("bedrock", "ap-northeast-1", "apac")
    assert "me-central-1" in outside(dests, ["adequacy"])


def test_unknown_profile_or_region_is_unknown_not_an_error() -> None:
    (dest,) = endpoint_destinations("bedrock", "eu-central-1", "xx.some-model")
    assert dest.place is None and within(dest, ["EU"]) is None
    (dest,) = endpoint_destinations("bedrock", "eu-nowhere-9", None)
    assert (dest.region, dest.place) == ("eu-nowhere-9", None)
    assert within(dest, ["EU"]) is None
    (dest,) = endpoint_destinations("bedrock", None, None)
    assert within(dest, ["EU"]) is None
    (dest,) = endpoint_destinations("on-prem", "dc1", None)
    assert within(dest, ["EU"]) is None


def test_bedrock_profile_parsing() -> None:
    profile, model = bedrock_profile(
        "arn:aws:bedrock:eu-central-1:111122223333:inference-profile/eu.amazon.nova-micro-v1:0"
    )
    assert profile is not None and profile.prefix == "eu" and model == "amazon.nova-micro-v1:0"
    profile, model = bedrock_profile("us-gov.anthropic.claude-3-5-sonnet-20240620-v1:0")
    assert profile is not None and profile.prefix == "us-gov"
    assert bedrock_profile("anthropic.claude-3-5-sonnet-20240620-v1:0") == (
        None,
        "anthropic.claude-3-5-sonnet-20240620-v1:0",
    )


def test_vertex_locations() -> None:
    (glob,) = endpoint_destinations("vertex-ai", "global", None)
    assert glob.region == ANYWHERE and within(glob, ["EU"]) is False
    eu = endpoint_destinations("vertex-ai", "eu", None)
    assert eu and outside(eu, ["EU"]) == []
    assert "europe-west2" not in [d.region for d in eu]  # London is not in the EU multi-region
    (regional,) = endpoint_destinations("vertex-ai", "europe-west3", None)
    assert regional.region == "europe-west3" and within(regional, ["DE"]) is True


def test_azure_openai_deployment_types() -> None:
    (glob,) = endpoint_destinations("azure-openai", "swedencentral", None, "GlobalStandard")
    assert glob.region == ANYWHERE and within(glob, ["EU"]) is False
    zone = endpoint_destinations("azure-openai", "swedencentral", None, "data-zone")
    assert outside(zone, ["EU"]) == []
    assert {"westeurope", "francecentral"} <= {d.region for d in zone}
    assert "uksouth" not in {d.region for d in zone}
    regional = endpoint_destinations("azure-openai", "westeurope", None, "Standard")
    assert {d.region for d in regional} == {"westeurope", "northeurope"}
    (unzoned,) = endpoint_destinations("azure-openai", "uksouth", None, "DataZoneStandard")
    assert within(unzoned, ["UK"]) is None
    (undeclared,) = endpoint_destinations("azure-openai", "westeurope", None, None)
    assert within(undeclared, ["EU"]) is None
