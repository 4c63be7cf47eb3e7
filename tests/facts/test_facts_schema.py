"""``gpulint schema facts`` describes exactly what ``gpulint facts`` prints."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from conftest import REPO, run_cli

FILES = sorted(
    [*(REPO / "examples").rglob("*.yaml"), *(REPO / "tests" / "rules").glob("*/*/*.yaml")],
    key=str,
)


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    result = run_cli("schema", "facts")
    assert result.code == 0
    schema = json.loads(result.out)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_facts_output_matches_the_published_schema(
    path: Path, validator: jsonschema.Draft202012Validator
) -> None:
    result = run_cli("facts", str(path))
    assert result.code == 0, result.err
    output = json.loads(result.out)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(output)]
    assert errors == []


def test_every_fact_key_is_present_whatever_the_status(
    validator: jsonschema.Draft202012Validator,
) -> None:
    """The shape of a fact does not depend on status or mode: a dev workload (memory not
    sized) has every memory key, null where it does not apply."""
    schema = validator.schema
    memory = schema["$defs"]["MemoryFact"]
    result = run_cli(
        "facts", str(REPO / "tests" / "rules" / "GL201" / "bad" / "dev-and-long-idle.yaml")
    )
    (dev, *_) = json.loads(result.out)
    assert dev["facts"]["memory"]["status"] == "not-applicable"
    assert set(dev["facts"]["memory"]) == set(memory["properties"]) == set(memory["required"])
