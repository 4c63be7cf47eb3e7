"""The published JSON Schemas: generated from the models, and they accept what gpulint accepts."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from conftest import REPO

from linter.formats import InputFile, native
from linter.load import read
from linter.model import API_GROUP
from linter.schemas import generate, render

SCHEMAS = REPO / "schemas"


def test_published_schemas_match_the_models() -> None:
    for name, schema in generate().items():
        assert (SCHEMAS / name).read_text(encoding="utf-8") == render(schema), (
            f"schemas/{name} is stale: run python -m linter.schemas"
        )


ORGANISATION_RULES = REPO / "examples" / "policies"


#: Examples in gpulint's own format (the others are SkyPilot or dstack files, read by adapters).
GPULINT_EXAMPLES = sorted(
    p
    for p in (REPO / "examples").rglob("*.yaml")
    if p.parent != ORGANISATION_RULES and API_GROUP in p.read_text(encoding="utf-8")
)


@pytest.mark.parametrize("example", GPULINT_EXAMPLES, ids=lambda p: p.name)
def test_examples_validate_against_the_published_schema(example: Path) -> None:
    """Every gpulint.dev document of the examples (the others, in Kubernetes, SkyPilot, dstack
    and production-stack formats, are read by their adapters)."""
    schema = json.loads((SCHEMAS / "gpulint.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    for document in read(example).documents:
        if native.recognises(document.data, InputFile(example.name, example, "")):
            assert list(validator.iter_errors(document.data)) == []


def test_schema_rejects_what_the_model_rejects() -> None:
    schema = json.loads((SCHEMAS / "workload.schema.json").read_text())
    bad = {
        "apiVersion": "gpulint.dev/v1alpha1",
        "kind": "Workload",
        "metadata": {"name": "x"},
        "spec": {"profile": "inference", "resources": {"nodes": "2"}},
    }
    assert not jsonschema.Draft202012Validator(schema).is_valid(bad)
    good = {**bad, "spec": {"profile": "inference", "model": {"parameters": "70B"}}}
    assert jsonschema.Draft202012Validator(schema).is_valid(good)


def test_rule_files_validate_against_the_rule_schema() -> None:
    schema = json.loads((SCHEMAS / "rule.schema.json").read_text())
    for path in sorted([*(REPO / "rules").glob("*.yaml"), *ORGANISATION_RULES.glob("*.yaml")]):
        (document,) = read(path).documents
        assert list(jsonschema.Draft202012Validator(schema).iter_errors(document.data)) == [], (
            path.name
        )
