from __future__ import annotations

import pytest

from linter.residency import Place, region_place, unknown_allowed, within


@pytest.mark.parametrize(
    ("provider", "region", "country", "jurisdictions", "adequacy"),
    [
        ("aws", "eu-central-1", "DE", {"DE", "EU", "EEA"}, "EEA"),
        ("aws", "eu-west-2", "GB", {"GB", "UK"}, "adequate"),
        ("aws", "eu-central-2", "CH", {"CH"}, "adequate"),
        ("aws", "us-east-1", "US", {"US"}, "partial-US-DPF"),
        ("aws", "me-central-1", "AE", {"AE"}, "none"),
        ("aws", "ca-central-1", "CA", {"CA"}, "partial-CA"),
        ("aws", "eusc-de-east-1", "DE", {"DE", "EU", "EEA"}, "EEA"),
        ("gcp", "europe-west4", "NL", {"NL", "EU", "EEA"}, "EEA"),
        ("gcp", "europe-west2", "GB", {"GB", "UK"}, "adequate"),
        ("gcp", "europe-west6", "CH", {"CH"}, "adequate"),
        ("gcp", "us-central1", "US", {"US"}, "partial-US-DPF"),
        ("gcp", "asia-northeast1", "JP", {"JP"}, "adequate"),
        ("gcp", "me-west1", "IL", {"IL"}, "adequate"),
        ("azure", "westeurope", "NL", {"NL", "EU", "EEA"}, "EEA"),
        ("azure", "norwayeast", "NO", {"NO", "EEA"}, "EEA"),
        ("azure", "uksouth", "GB", {"GB", "UK"}, "adequate"),
        ("azure", "switzerlandnorth", "CH", {"CH"}, "adequate"),
        ("azure", "southeastasia", "SG", {"SG"}, "none"),
    ],
)
def test_region_catalogue(
    provider: str, region: str, country: str, jurisdictions: set[str], adequacy: str
) -> None:
    place = region_place(provider, region)
    assert place is not None
    assert (place.country, place.jurisdictions, place.adequacy) == (
        country,
        frozenset(jurisdictions),
        adequacy,
    )


def test_unknown_region_or_provider_is_none() -> None:
    assert region_place("aws", "eu-nowhere-9") is None
    assert region_place("on-prem", "dc1") is None
    assert region_place("gcp", "eu-central-1") is None  # an AWS code, not a GCP one


def test_zones_and_service_names_resolve() -> None:
    zone = region_place("aws", "eu-west-1b")
    assert zone is not None and zone.region == "eu-west-1"
    gcp_zone = region_place("gcp", "europe-west4-a")
    assert gcp_zone is not None and gcp_zone.region == "europe-west4"
    bedrock = region_place("bedrock", "eu-central-1")
    assert bedrock is not None and bedrock.provider == "aws"


def place(provider: str, region: str) -> Place:
    found = region_place(provider, region)
    assert found is not None
    return found


@pytest.mark.parametrize(
    ("region", "allowed", "expected"),
    [
        ("eu-central-1", ["EU"], True),
        ("eu-central-1", ["eu"], True),
        ("eu-west-2", ["EU"], False),  # UK is not EU
        ("eu-west-2", ["EEA"], False),
        ("eu-west-2", ["EU", "UK"], True),
        ("eu-west-2", ["GB"], True),
        ("eu-west-2", ["adequacy"], True),
        ("eu-central-2", ["EEA"], False),  # Switzerland is neither EU nor EEA
        ("eu-central-2", ["adequacy"], True),
        ("eu-central-2", ["CH"], True),
        ("eu-central-1", ["DE"], True),
        ("eu-west-3", ["DE"], False),
        ("us-east-1", ["adequacy"], False),  # DPF covers certified organisations only
        ("us-east-1", ["adequacy-partial"], True),
        ("us-east-1", ["US"], True),
        ("ap-south-1", ["adequacy-partial"], False),
        ("ap-northeast-1", ["adequacy"], True),
        ("eu-central-1", [], False),
    ],
)
def test_within_aws(region: str, allowed: list[str], expected: bool) -> None:
    assert within(place("aws", region), allowed) is expected


def test_eea_adds_norway_to_the_eu() -> None:
    oslo = place("azure", "norwayeast")
    assert within(oslo, ["EU"]) is False
    assert within(oslo, ["EEA"]) is True
    assert within(oslo, ["adequacy"]) is True


def test_within_unknown_place_is_none_and_unknown_entries_are_listed() -> None:
    assert within(None, ["EU"]) is None
    assert unknown_allowed(["EU", "de", "europe", "adequacy", "eu-central-1"]) == [
        "europe",
        "eu-central-1",
    ]
