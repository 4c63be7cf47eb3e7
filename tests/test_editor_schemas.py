"""Editors find the schemas: the modelines ``gpulint init`` writes name a published schema that
accepts the file, the SchemaStore-style catalog lists them, and every ``$id`` is stable."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
from conftest import REPO, run_cli
from ruamel.yaml import YAML

from linter.commands.init import PROFILES
from linter.schemas import BASE_ID, CATALOG, FETCH_BASE, catalog, generate, render

SCHEMAS = REPO / "schemas"
MODELINE = re.compile(r"^# yaml-language-server: \$schema=(\S+)$")


def schema_of(path: Path) -> tuple[str, dict]:  # type: ignore[type-arg]
    """The schema file a written file's first-line modeline names, and that schema."""
    first = path.read_text(encoding="utf-8").splitlines()[0]
    match = MODELINE.match(first)
    assert match is not None, first
    url = match.group(1)
    assert url.startswith(FETCH_BASE)
    name = url.removeprefix(FETCH_BASE)
    return name, json.loads((SCHEMAS / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("profile", PROFILES)
def test_init_writes_modelines_whose_schemas_accept_the_files(profile: str, tmp_path: Path) -> None:
    assert run_cli("init", "--profile", profile, "--dir", str(tmp_path)).code == 0
    expected = {"workload.yaml": "gpulint.schema.json", ".gpulint.yaml": "config.schema.json"}
    for written, schema_file in expected.items():
        name, schema = schema_of(tmp_path / written)
        assert name == schema_file
        text = (tmp_path / written).read_text(encoding="utf-8")
        validator = jsonschema.Draft202012Validator(schema)
        for data in YAML(typ="safe").load_all(text):
            assert list(validator.iter_errors(data)) == []


def test_a_modeline_schema_rejects_a_wrong_key(tmp_path: Path) -> None:
    assert run_cli("init", "--dir", str(tmp_path)).code == 0
    _, schema = schema_of(tmp_path / ".gpulint.yaml")
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors({"failon": "error"}))
    assert [error.message for error in errors] == [
        "Additional properties are not allowed ('failon' was unexpected)"
    ]


def test_the_catalog_is_generated_and_in_schemastore_format() -> None:
    text = (SCHEMAS / CATALOG).read_text(encoding="utf-8")
    assert text == render(catalog(generate())), "stale: run python -m linter.schemas"
    data = json.loads(text)
    shape = json.loads((REPO / "tests" / "data" / "schema-catalog.schema.json").read_text())
    assert list(jsonschema.Draft202012Validator(shape).iter_errors(data)) == []
    assert [(e["url"].removeprefix(FETCH_BASE), e.get("fileMatch")) for e in data["schemas"]] == [
        ("gpulint.schema.json", None),
        ("config.schema.json", [".gpulint.yaml", ".gpulint.yml"]),
        ("rule.schema.json", None),
    ]
    for entry in data["schemas"]:
        assert (SCHEMAS / entry["url"].removeprefix(FETCH_BASE)).is_file()


def test_every_published_schema_has_a_stable_id() -> None:
    """``$id`` is the format version's base and the file name: it changes with the format's
    version (v1alpha1), never with a release or the repository's location."""
    for name in generate():
        schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
        assert schema["$id"] == BASE_ID + name
