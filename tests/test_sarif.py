"""SARIF output: valid against the OASIS 2.1.0 schema and shaped the way code scanning reads it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from conftest import REPO, run_cli

SCHEMA = json.loads((REPO / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())


def validate(document: dict[str, Any]) -> None:
    jsonschema.Draft4Validator(SCHEMA).validate(document)


@pytest.fixture(scope="module")
def examples_sarif() -> dict[str, Any]:
    result = run_cli("check", "--format", "sarif", str(REPO / "examples"))
    return json.loads(result.out)  # type: ignore[no-any-return]


def test_examples_sarif_validates(examples_sarif: dict[str, Any]) -> None:
    validate(examples_sarif)
    assert examples_sarif["version"] == "2.1.0"


def test_every_rule_is_described(examples_sarif: dict[str, Any]) -> None:
    (run,) = examples_sarif["runs"]
    rules = run["tool"]["driver"]["rules"]
    listed = json.loads(run_cli("rules", "--format", "json").out)
    assert [r["id"] for r in rules] == [r["id"] for r in listed]
    for rule in rules:
        assert set(rule) >= {"id", "name", "shortDescription", "fullDescription", "help", "helpUri",
                             "defaultConfiguration", "properties"}
        assert rule["helpUri"].endswith(f"/docs/rules/{rule['id']}.md")
        assert rule["help"]["markdown"].startswith(f"# {rule['id']} ")
        assert len(rule["properties"]["tags"]) <= 10


def test_results_point_at_keys_with_repo_relative_uris(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "jobs").mkdir()
    job = tmp_path / "jobs" / "job.yaml"
    job.write_text(
        "apiVersion: gpulint.dev/v1alpha1\nkind: Workload\nmetadata: {name: a}\nspec:\n"
        "  profile: training\n  resources:\n    accelerator: {type: H100, count: 8}\n"
        "    capacity: spot\n  lifecycle: {maxRuntimeHours: 4}\n"
    )
    monkeypatch.chdir(tmp_path)
    document = json.loads(run_cli("check", "--format", "sarif", "jobs").out)
    validate(document)
    (result,) = document["runs"][0]["results"]
    assert result["ruleId"] == "GL202"
    assert result["level"] == "error"
    assert result["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "jobs/job.yaml", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 8, "startColumn": 5, "endLine": 8, "endColumn": 13},
    }
    rules = document["runs"][0]["tool"]["driver"]["rules"]
    assert rules[result["ruleIndex"]]["id"] == "GL202"
    assert document["runs"][0]["automationDetails"] == {"id": "gpulint/"}


def test_warning_level_is_written_explicitly(tmp_path: Path) -> None:
    job = tmp_path / "job.yaml"
    job.write_text(
        "apiVersion: gpulint.dev/v1alpha1\nkind: Workload\nmetadata: {name: a}\nspec:\n"
        "  profile: training\n  resources:\n    accelerator: {type: H100, count: 8}\n"
        "  lifecycle: {idleShutdownMinutes: 600}\n"
    )
    document = json.loads(run_cli("check", "--format", "sarif", str(job)).out)
    validate(document)
    assert [r["level"] for r in document["runs"][0]["results"]] == ["warning"]


def test_suppressed_findings_are_left_out(tmp_path: Path) -> None:
    job = tmp_path / "job.yaml"
    job.write_text(
        "apiVersion: gpulint.dev/v1alpha1\nkind: Workload\nmetadata: {name: a}\nspec:\n"
        "  profile: training\n  resources:\n    accelerator: {type: H100, count: 8}\n"
        "    capacity: spot  # gpulint: ignore[GL202] eval only\n  lifecycle: {maxRuntimeHours: 4}\n"
    )
    document = json.loads(run_cli("check", "--format", "sarif", str(job)).out)
    assert document["runs"][0]["results"] == []
