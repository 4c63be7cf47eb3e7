"""The region catalogue: regions by code, zone or spelling, per cloud and per jurisdiction."""

from __future__ import annotations

import copy

import pytest

from linter import catalog
from linter.catalog import CatalogueError, base
from linter.catalog.regions import Region, RegionCatalogue, clouds, region, regions_in, regions_of


def test_region_is_the_catalogued_record() -> None:
    assert region("aws", "eu-west-2") == Region(
        provider="aws",
        region="eu-west-2",
        name="London",
        country="GB",
        jurisdictions=frozenset({"GB", "UK"}),
        adequacy="adequate",
        description="Europe (London)",
        partition="aws",
        source="botocore-endpoints",
    )


@pytest.mark.parametrize(
    ("provider", "code", "expected"),
    [
        ("aws", "us-east-1a", "us-east-1"),  # an AWS zone
        ("gcp", "europe-west4-a", "europe-west4"),  # a GCP zone
        ("azure", "West Europe", "westeurope"),  # spelling does not matter
        ("AWS", " EU-Central-1 ", "eu-central-1"),
        ("bedrock", "eu-central-1", "eu-central-1"),  # a managed-service name means its cloud
    ],
)
def test_zones_spellings_and_service_names_resolve(provider: str, code: str, expected: str) -> None:
    found = region(provider, code)
    assert found is not None and found.region == expected


@pytest.mark.parametrize(
    ("provider", "code"),
    [("aws", "eu-nowhere-9"), ("on-prem", "dc1"), ("gcp", "eu-central-1"), ("aws", "")],
)
def test_unknown_region_or_provider_is_none(provider: str, code: str) -> None:
    assert region(provider, code) is None


def test_clouds_and_their_regions() -> None:
    assert clouds() == ("aws", "gcp", "azure")
    assert {cloud: len(regions_of(cloud)) for cloud in clouds()} == {
        "aws": 41,
        "gcp": 43,
        "azure": 65,
    }
    assert regions_of("on-prem") == ()
    assert [r.region for r in regions_of("aws")[:2]] == ["af-south-1", "ap-east-1"]


def test_regions_in_a_jurisdiction() -> None:
    assert [r.region for r in regions_in("azure", "EU")] == [
        "northeurope",
        "westeurope",
        "francecentral",
        "francesouth",
        "germanywestcentral",
        "germanynorth",
        "italynorth",
        "polandcentral",
        "swedencentral",
        "spaincentral",
        "belgiumcentral",
        "austriaeast",
    ]
    assert [r.region for r in regions_in("gcp", "UK")] == ["europe-west2"]
    assert regions_in("aws", "adequacy") == ()  # a tag regions do not carry


def test_a_zone_form_that_is_not_a_regular_expression_is_a_catalogue_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    document = copy.deepcopy(catalog.load("regions"))
    document["zones"][0]["pattern"] = "^(.*\\d[a-z]$"
    monkeypatch.setattr(base, "load", lambda name: document)
    with pytest.raises(CatalogueError) as caught:
        base.checked("broken-regions", RegionCatalogue)
    message = str(caught.value)
    assert message.startswith("catalogue broken-regions.yaml does not match its schema:")
    assert "zones.0.pattern" in message
    assert "not a regular expression: missing ), unterminated subpattern" in message
