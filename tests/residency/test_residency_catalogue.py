"""The data files agree with their schemas and with each other."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from linter import catalog
from linter.residency import allowed_countries

FILES = ["regions", "jurisdictions", "quotas", "managed_endpoints", "availability"]
SCHEMAS = Path(__file__).resolve().parents[2] / "schemas" / "catalog"


@pytest.mark.parametrize("name", FILES)
def test_data_file_matches_its_schema(name: str) -> None:
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    data = catalog.load(name)
    assert [e.message for e in validator.iter_errors(data)] == []
    assert data["as_of"] == "2026-12-02"


def _source_refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [v for k, v in node.items() if k.endswith("source") and isinstance(v, str)]
        return own + [ref for k, v in node.items() if k != "sources" for ref in _source_refs(v)]
    if isinstance(node, list):
        return [ref for item in node for ref in _source_refs(item)]
    return []


@pytest.mark.parametrize("name", FILES)
def test_every_source_reference_is_defined(name: str) -> None:
    data = catalog.load(name)
    defined = {s["id"] for s in data["sources"]}
    assert set(_source_refs(data)) - defined == set()


def test_region_tags_agree_with_jurisdictions_and_adequacy() -> None:
    eu, eea, uk = (allowed_countries([t]) for t in ("EU", "EEA", "UK"))
    adequate, partial = allowed_countries(["adequacy"]), allowed_countries(["adequacy-partial"])
    for row in catalog.load("regions")["regions"]:
        country = row["country"]
        tags = {country} | {
            t for t, members in (("EU", eu), ("EEA", eea), ("UK", uk)) if country in members
        }
        assert set(row["jurisdictions"]) == tags, row["region"]
        expected = (
            "EEA"
            if country in eea
            else "adequate"
            if country in adequate
            else f"partial-{'US-DPF' if country == 'US' else country}"
            if country in partial
            else "none"
        )
        assert row["adequacy"] == expected, row["region"]


def test_routing_tables_name_catalogued_regions() -> None:
    known = {(r["provider"], r["region"]) for r in catalog.load("regions")["regions"]}
    for profile in catalog.load("managed_endpoints")["bedrock"]["profiles"]:
        if profile["regions"] != "any":
            assert {("aws", r) for r in profile["regions"]} <= known, profile["prefix"]
    for entry in catalog.load("availability")["offerings"]:
        assert {(entry["provider"], r) for r in entry["regions"]} <= known, entry["instance_types"]


def test_eu_membership() -> None:
    assert len(allowed_countries(["EU"])) == 27
    assert allowed_countries(["EEA"]) - allowed_countries(["EU"]) == {"IS", "LI", "NO"}
    assert {"GB", "CH", "JP", "KR", "IL", "NZ", "BR"} <= allowed_countries(["adequacy"])
    assert {"US", "CA"} & allowed_countries(["adequacy"]) == set()
