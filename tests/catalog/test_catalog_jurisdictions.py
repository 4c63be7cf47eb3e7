"""The jurisdiction catalogue: tags expanded to countries, and the adequacy decisions."""

from __future__ import annotations

import copy

import pytest
from pydantic import ValidationError

from linter import catalog
from linter.catalog.jurisdictions import (
    AdequacyDecision,
    JurisdictionCatalogue,
    adequacy_decisions,
    countries_of_tag,
    tag_countries,
)

EU = frozenset(
    [
        "AT",
        "BE",
        "BG",
        "HR",
        "CY",
        "CZ",
        "DK",
        "EE",
        "FI",
        "FR",
        "DE",
        "GR",
        "HU",
        "IE",
        "IT",
        "LV",
        "LT",
        "LU",
        "MT",
        "NL",
        "PL",
        "PT",
        "RO",
        "SK",
        "SI",
        "ES",
        "SE",
    ]
)
EEA = EU | {"IS", "LI", "NO"}
FULL = frozenset(
    ["AD", "AR", "BR", "CH", "FO", "GB", "GG", "IL", "IM", "JE", "JP", "KR", "NZ", "UY"]
)


def test_every_tag_expands_to_its_countries() -> None:
    assert tag_countries() == {
        "EU": EU,
        "EEA": EEA,
        "UK": frozenset({"GB"}),
        "adequacy": EEA | FULL,
        "adequacy-partial": EEA | FULL | {"CA", "US"},
    }


@pytest.mark.parametrize(
    ("name", "expected"),
    [("eu", EU), ("Adequacy_Partial", EEA | FULL | {"CA", "US"}), ("uk", frozenset({"GB"}))],
)
def test_tags_are_found_by_any_spelling(name: str, expected: frozenset[str]) -> None:
    assert countries_of_tag(name) == expected


@pytest.mark.parametrize("name", ["DE", "europe", "", "eu-central-1"])
def test_a_name_that_is_not_a_tag_is_none(name: str) -> None:
    assert countries_of_tag(name) is None


def test_adequacy_decisions_are_the_catalogued_records() -> None:
    decisions = adequacy_decisions()
    assert len(decisions) == 16
    assert decisions[12] == AdequacyDecision(
        country="GB",
        name="United Kingdom",
        scope="full",
        valid_until="2031-12-27",
        source="uk-adequacy-2025",
    )
    assert [d.country for d in decisions if d.scope == "partial"] == ["CA", "US"]


def test_a_tag_including_an_undefined_tag_is_refused() -> None:
    document = copy.deepcopy(catalog.load("jurisdictions"))
    document["tags"]["EEA"]["includes"] = ["EU", "Europe"]
    with pytest.raises(ValidationError, match="tags include undefined tags: Europe"):
        JurisdictionCatalogue.model_validate(document)
