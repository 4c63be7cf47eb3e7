"""The memory catalogue files validate against their JSON Schemas and are consistent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from linter import catalog
from linter.catalog.spelling import name_key
from linter.memory import resolve_gpu

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas" / "catalog"


@pytest.mark.parametrize("name", ["gpus", "models", "model_names", "instance_types", "precisions"])
def test_file_matches_schema(name: str) -> None:
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text("utf-8"))
    Draft202012Validator.check_schema(schema)
    errors = list(Draft202012Validator(schema).iter_errors(catalog.load(name)))
    assert errors == []
    assert catalog.load(name)["as_of"] == "2026-12-02"


def test_instances_name_catalogued_gpus() -> None:
    for entry in catalog.load("instance_types")["instance_types"]:
        gpu = resolve_gpu(entry["gpu"])
        assert gpu is not None and gpu.name == entry["gpu"], entry["name"]


def test_gpu_names_and_aliases_are_unambiguous() -> None:
    seen: dict[str, str] = {}
    for entry in catalog.load("gpus")["gpus"]:
        for name in (entry["name"], *entry["aliases"]):
            key = name_key(name)
            assert seen.setdefault(key, entry["name"]) == entry["name"], name
