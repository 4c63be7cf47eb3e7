"""SARIF output: valid against the OASIS 2.1.0 schema and shaped the way code scanning reads it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import REPO, run_cli

from linter.findings import Finding, Location, Severity
from linter.load.positions import Span
from linter.policy.loader import Rulebook
from linter.report import sarif
from linter.report.fingerprint import line_hashes

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
        assert set(rule) >= {
            "id",
            "name",
            "shortDescription",
            "fullDescription",
            "help",
            "helpUri",
            "defaultConfiguration",
            "properties",
        }
        assert rule["helpUri"].endswith(f"/docs/rules/{rule['id']}.md")
        assert rule["help"]["markdown"].startswith(f"# {rule['id']} ")
        assert len(rule["properties"]["tags"]) <= 10


def test_results_point_at_keys_with_repo_relative_uris(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
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
    line_hash = line_hashes(job.read_text())[7]
    assert result["partialFingerprints"] == {"primaryLocationLineHash": line_hash}


def test_warning_level_is_written_explicitly(tmp_path: Path) -> None:
    job = tmp_path / "job.yaml"
    job.write_text(
        "apiVersion: gpulint.dev/v1alpha1\nkind: Workload\nmetadata: {name: a}\nspec:\n"
        "  profile: training\n  resources:\n    accelerator: {type: H100, count: 8}\n"
        "  lifecycle: {idleShutdownMinutes: 600}\n"
    )
    document = json.loads(run_cli("check", "--format", "sarif", "--select", "GL201", str(job)).out)
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


TRAINING_ON_SPOT = (
    "apiVersion: gpulint.dev/v1alpha1\nkind: Workload\nmetadata: {name: a}\nspec:\n"
    "  profile: training\n  resources:\n    accelerator: {type: H100, count: 8}\n"
    "    capacity: spot\n  lifecycle: {maxRuntimeHours: 4}\n"
)


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A repository with one finding in ml/jobs/job.yaml."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "ml" / "jobs").mkdir(parents=True)
    (tmp_path / "ml" / "jobs" / "job.yaml").write_text(TRAINING_ON_SPOT)
    return tmp_path


def _uris(*args: str) -> list[str]:
    document = json.loads(run_cli("check", "--format", "sarif", "--select", "GL202", *args).out)
    validate(document)
    return [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in document["runs"][0]["results"]
    ]


def test_uris_are_the_same_from_any_working_directory(
    repository: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repository)
    assert _uris("ml") == ["ml/jobs/job.yaml"]
    monkeypatch.chdir(repository / "ml" / "jobs")
    assert _uris(".") == ["ml/jobs/job.yaml"]
    assert _uris(str(repository / "ml" / "jobs" / "job.yaml")) == ["ml/jobs/job.yaml"]


def test_sarif_root_option(repository: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repository / "ml" / "jobs")
    assert _uris("--sarif-root", "..", ".") == ["jobs/job.yaml"]
    assert _uris("--sarif-root", str(repository / "ml" / "jobs"), "job.yaml") == ["job.yaml"]


def test_file_outside_the_root_gets_a_file_uri(
    repository: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "my job.yaml"
    elsewhere.write_text(TRAINING_ON_SPOT)
    monkeypatch.chdir(repository)
    document = json.loads(
        run_cli("check", "--format", "sarif", "--select", "GL202", str(elsewhere)).out
    )
    validate(document)
    location = document["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": elsewhere.as_uri()}
    assert elsewhere.as_uri().endswith("/my%20job.yaml")


def test_sarif_root_must_be_a_directory(repository: Path) -> None:
    result = run_cli(
        "check", "--format", "sarif", "--sarif-root", str(repository / "nope"), str(repository)
    )
    assert (result.code, result.out) == (2, "")
    assert result.err == f"gpulint: error: --sarif-root {repository / 'nope'}: not a directory\n"


def test_category(repository: Path) -> None:
    document = json.loads(
        run_cli("check", "--format", "sarif", "--sarif-category", "gpulint/ml", str(repository)).out
    )
    assert document["runs"][0]["automationDetails"] == {"id": "gpulint/ml/"}


def test_security_severity_only_on_security_rules(
    examples_sarif: dict[str, Any], rulebook: Rulebook
) -> None:
    rules = examples_sarif["runs"][0]["tool"]["driver"]["rules"]
    assert any(rule.meta.security for rule in rulebook)
    for rule in rules:
        properties = rule["properties"]
        assert properties["precision"] == "high"
        if rulebook.by_id[rule["id"]].meta.security:
            assert properties["tags"][0] == "security"
            assert (
                properties["security-severity"]
                == sarif.SECURITY_SEVERITY[rule["defaultConfiguration"]["level"]]
            )
        else:
            assert "security-severity" not in properties
            assert "security" not in properties["tags"]


def test_results_beyond_githubs_limit_are_cut_most_severe_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a-warning.yaml").write_text(
        "apiVersion: gpulint.dev/v1alpha1\nkind: Workload\nmetadata: {name: a}\nspec:\n"
        "  profile: training\n  resources:\n    accelerator: {type: H100, count: 8}\n"
        "  lifecycle: {idleShutdownMinutes: 600}\n"
    )
    (tmp_path / "b-error.yaml").write_text(TRAINING_ON_SPOT)
    monkeypatch.setattr(sarif, "MAX_RESULTS", 1)
    result = run_cli("check", "--format", "sarif", "--select", "GL201,GL202", str(tmp_path))
    document = json.loads(result.out)
    assert [r["ruleId"] for r in document["runs"][0]["results"]] == ["GL202"]
    assert result.err == (
        "gpulint: warning: 2 results are more than GitHub code scanning accepts "
        "in one run; the SARIF holds the 1 most severe\n"
    )


def test_engine_findings_carry_their_rule_files_severity(tmp_path: Path) -> None:
    """Regression: engine rules (schema, parse, suppression problems) once took severities
    from literals in code, so SARIF's result level disagreed with the rule's
    defaultConfiguration. Each comes from rules/GL00N.yaml now, like every other rule's."""
    workload = "apiVersion: gpulint.dev/v1alpha1\nkind: Workload\nmetadata: {name: a}\nspec:\n"
    (tmp_path / "schema.yaml").write_text(workload + "  profile: nonsense\n")
    (tmp_path / "broken.yaml").write_text(workload + "  profile: [training\n")
    (tmp_path / "notes.yaml").write_text(
        workload + "  profile: training  # gpulint: ignore[GL201]\n"
        "  resources:  # gpulint: ignore[GL202] nothing here\n"
        "    accelerator: {type: H100, count: 1}\n"
    )
    document = json.loads(run_cli("check", "--format", "sarif", str(tmp_path)).out)
    validate(document)
    run = document["runs"][0]
    levels = {
        rule["id"]: rule["defaultConfiguration"]["level"] for rule in run["tool"]["driver"]["rules"]
    }
    found = sorted((r["ruleId"], r["level"]) for r in run["results"] if r["ruleId"] < "GL1")
    assert found == [
        ("GL001", "error"),
        ("GL002", "error"),
        ("GL004", "warning"),
        ("GL005", "warning"),
    ]
    assert all(levels[rule_id] == level for rule_id, level in found)


def test_message_text_is_the_verdict_and_markdown_adds_the_fix(tmp_path: Path) -> None:
    """Code scanning lists message.text: the one-line verdict; the fix and the reasoning behind
    it follow in message.markdown (Markdown's special characters escaped) and properties.fix."""
    job = tmp_path / "job.yaml"
    job.write_text(
        "apiVersion: gpulint.dev/v1alpha1\nkind: Workload\nmetadata: {name: a}\nspec:\n"
        "  profile: training\n  resources:\n    accelerator: {type: H100, count: 8}\n"
        "  lifecycle: {idleShutdownMinutes: 600}\n"
    )
    document = json.loads(run_cli("check", "--format", "sarif", "--select", "GL201", str(job)).out)
    validate(document)
    (result,) = document["runs"][0]["results"]
    text = (
        "idle shutdown after 600 minutes is longer than the policy maximum of 60: each idle "
        "period bills 8 GPUs for that long"
    )
    fix = "lower spec.lifecycle.idleShutdownMinutes to 60 minutes or less"
    assert result["message"] == {
        "text": text,
        "markdown": f"{text}\n\n**Fix:** {fix}",
    }
    assert result["properties"]["fix"] == fix


def test_markdown_escapes_what_markdown_would_read() -> None:
    finding = Finding(
        "GL209",
        Severity.NOTE,
        "self-hosts org/model_v2 *twice*",
        Location("a.yaml", Span(1, 1, 1, 2)),
        fix="say why in `gpulint.dev/self-hosting-justification` <here> [a|b] #1",
    )
    assert sarif._message(finding).markdown == (
        "self-hosts org/model\\_v2 \\*twice\\*\n\n**Fix:** say why in "
        "\\`gpulint.dev/self-hosting-justification\\` \\<here\\> \\[a\\|b\\] \\#1"
    )
    assert sarif._message(Finding("GL209", Severity.NOTE, "a_b", finding.location)).markdown is None
