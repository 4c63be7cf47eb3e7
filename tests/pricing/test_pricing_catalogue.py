"""prices.yaml validates against its JSON Schema and is internally consistent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from linter import catalog

SCHEMA = Path(__file__).resolve().parents[2] / "schemas" / "catalog" / "prices.schema.json"


def _data() -> Any:
    return catalog.load("prices")


def test_prices_match_schema() -> None:
    schema = json.loads(SCHEMA.read_text("utf-8"))
    Draft202012Validator.check_schema(schema)
    errors = [e.message for e in Draft202012Validator(schema).iter_errors(_data())]
    assert errors == []


def test_schema_rejects_a_price_without_source() -> None:
    schema = json.loads(SCHEMA.read_text("utf-8"))
    bad = {
        **_data(),
        "instances": [
            {
                "provider": "aws",
                "instance_type": "g5.xlarge",
                "region": "us-east-1",
                "on_demand_per_hour": 1.0,
            }
        ],
    }
    assert not Draft202012Validator(schema).is_valid(bad)


def test_every_source_id_is_declared() -> None:
    data = _data()
    declared = {source["id"] for source in data["sources"]}
    assert len(declared) == len(data["sources"])
    for section in ("instances", "managed_apis", "managed_offerings"):
        for entry in data[section]:
            assert entry["source"] in declared, (section, entry)


def test_instance_entries_are_unique() -> None:
    keys = [(e["provider"], e["instance_type"].lower(), e["region"]) for e in _data()["instances"]]
    assert len(keys) == len(set(keys))


def test_priced_instances_are_catalogued_instance_types() -> None:
    types = catalog.load("instance_types")["instance_types"]
    known = {(e["provider"], e["name"].lower()) for e in types}
    for entry in _data()["instances"]:
        assert (entry["provider"], entry["instance_type"].lower()) in known, entry


def test_spot_is_never_above_on_demand() -> None:
    for entry in _data()["instances"]:
        if "spot_per_hour" in entry and "on_demand_per_hour" in entry:
            assert entry["spot_per_hour"] <= entry["on_demand_per_hour"], entry
