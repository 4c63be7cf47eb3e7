"""The command line: exit codes, formats, messages, configuration and selection."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, run_cli

SPOT = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata:
  name: finetune
spec:
  profile: fine-tuning
  resources:
    accelerator: {type: A100-80GB, count: 8}
    capacity: spot
  lifecycle:
    maxRuntimeHours: 10
"""


@pytest.fixture
def spot(tmp_path: Path) -> Path:
    path = tmp_path / "job.yaml"
    path.write_text(SPOT)
    return path


def test_text_report_and_exit_code(spot: Path) -> None:
    result = run_cli("check", str(spot))
    assert result.code == 1
    lines = result.out.splitlines()
    assert lines[0].startswith(f"{spot.as_posix()}:9:5: GL202 [error] fine-tuning on spot capacity")
    assert lines[-1] == "Found 1 error, 0 warnings and 0 notes in 1 file."


def test_clean_file_exits_zero(tmp_path: Path) -> None:
    clean = tmp_path / "clean.yaml"
    clean.write_text(SPOT.replace("capacity: spot", "capacity: reserved"))
    result = run_cli("check", str(clean))
    assert (result.code, result.out) == (0, "No problems found in 1 file.\n")


@pytest.mark.parametrize(("fail_on", "code"), [("error", 1), ("warning", 1), ("never", 0)])
def test_fail_on(spot: Path, fail_on: str, code: int) -> None:
    assert run_cli("check", "--fail-on", fail_on, str(spot)).code == code


def test_warning_only_run_passes_by_default(tmp_path: Path) -> None:
    path = tmp_path / "long-idle.yaml"
    path.write_text(
        SPOT.replace("capacity: spot", "capacity: on-demand").replace(
            "maxRuntimeHours: 10", "idleShutdownMinutes: 600"
        )
    )
    assert run_cli("check", str(path)).code == 0
    assert run_cli("check", "--fail-on", "warning", str(path)).code == 1


def test_select_and_ignore(spot: Path) -> None:
    assert run_cli("check", "--ignore", "GL202", str(spot)).code == 0
    assert run_cli("check", "--select", "GL2", str(spot)).code == 1
    assert run_cli("check", "--select", "GL201,GL001", str(spot)).code == 0


def test_json_report(spot: Path) -> None:
    result = run_cli("check", "--format", "json", str(spot))
    report = json.loads(result.out)
    assert report["schemaVersion"] == 1
    assert report["summary"] == {
        "errors": 1,
        "warnings": 0,
        "notes": 0,
        "suppressed": 0,
        "baselined": 0,
        "filesChecked": 1,
    }
    (finding,) = report["findings"]
    assert {
        k: finding[k] for k in ("ruleId", "ruleName", "severity", "line", "column", "path")
    } == {
        "ruleId": "GL202",
        "ruleName": "spot-without-checkpointing",
        "severity": "error",
        "line": 9,
        "column": 5,
        "path": "spec.resources.capacity",
    }


def test_github_annotations(spot: Path) -> None:
    out = run_cli("check", "--format", "github", str(spot)).out
    assert out.startswith(
        f"::error file={spot.as_posix()},line=9,col=5,endLine=9,endColumn=13,"
        "title=GL202 spot-without-checkpointing::fine-tuning on spot capacity"
    )


def test_output_file(spot: Path, tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    result = run_cli("check", "--format", "json", "--output", str(target), str(spot))
    assert result.out == ""
    assert json.loads(target.read_text())["findings"][0]["ruleId"] == "GL202"


def test_explicit_foreign_file_is_reported_as_skipped(tmp_path: Path) -> None:
    deployment = tmp_path / "deployment.yaml"
    deployment.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n")
    result = run_cli("check", str(deployment))
    assert result.code == 0
    assert (
        result.err
        == f"gpulint: skipped {deployment.as_posix()}: no document of a format gpulint reads\n"
    )


def test_directory_discovery_skips_foreign_files_silently(tmp_path: Path, spot: Path) -> None:
    (tmp_path / "workflow.yml").write_text("on: push\njobs: {}\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "bad.yaml").write_text("apiVersion: gpulint.dev/v1alpha1\nkind: [\n")
    result = run_cli("check", "--format", "json", str(tmp_path))
    report = json.loads(result.out)
    assert result.err == ""
    assert [f["ruleId"] for f in report["findings"]] == ["GL202"]
    assert report["summary"]["filesChecked"] == 1


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    result = run_cli("check", str(tmp_path / "nope.yaml"))
    assert result.code == 2
    assert result.err == f"gpulint: error: {tmp_path / 'nope.yaml'}: no such file or directory\n"


def test_schema_and_parse_findings_have_positions(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "apiVersion: gpulint.dev/v1alpha1\nkind: Workload\nmetadata: {name: x}\nspec:\n"
        "  profile: serving\n  resources:\n    nodes: '2'\n    gpu: 1\n"
        "---\napiVersion: gpulint.dev/v1alpha1\nkind: Workload\nkind: Workload\n"
    )
    result = run_cli("check", "--format", "json", str(bad))
    found = [(f["ruleId"], f["line"], f["message"]) for f in json.loads(result.out)["findings"]]
    assert found == [
        (
            "GL001",
            5,
            "spec.profile: Input should be 'inference', 'batch-inference', 'fine-tuning', 'training' or 'dev' (got 'serving')",
        ),
        ("GL001", 7, "spec.resources.nodes: Input should be a valid integer (got '2')"),
        ("GL001", 8, "spec.resources.gpu: unknown field"),
        ("GL001", 10, "<document>: required field 'metadata' is missing"),
        ("GL001", 10, "<document>: required field 'spec' is missing"),
        ("GL002", 12, "duplicate key 'kind' (first defined on line 11)"),
    ]
    assert result.code == 1


def test_unsupported_version_and_unknown_kind(tmp_path: Path) -> None:
    path = tmp_path / "kinds.yaml"
    path.write_text(
        "apiVersion: gpulint.dev/v2\nkind: Workload\n---\n"
        "apiVersion: gpulint.dev/v1alpha1\nkind: Budget\n"
    )
    found = [
        (f["line"], f["message"])
        for f in json.loads(run_cli("check", "--format", "json", str(path)).out)["findings"]
    ]
    assert found == [
        (
            1,
            "apiVersion 'gpulint.dev/v2' is not supported; this gpulint reads gpulint.dev/v1alpha1",
        ),
        (
            5,
            "kind 'Budget' is not a gpulint kind "
            "(known: Autoscaler, CapacityLimit, QuotaLedger, Workload)",
        ),
    ]


def test_rules_explain_and_schema() -> None:
    rules = run_cli("rules")
    assert rules.code == 0
    assert any(
        line.startswith("GL202  spot-without-checkpointing") for line in rules.out.splitlines()
    )
    explain = run_cli("explain", "spot-without-checkpointing")
    assert explain.out.startswith("# GL202 spot-without-checkpointing\n")
    assert "## Why is this bad?" in explain.out
    assert run_cli("explain", "GL999").code == 2
    schema = json.loads(run_cli("schema", "Workload").out)
    assert schema["title"] == "gpulint Workload"
    assert run_cli("schema", "Nope").code == 2


def test_console_script_runs_without_traceback(tmp_path: Path) -> None:
    binary = tmp_path / "garbage.yaml"
    binary.write_bytes(b"apiVersion: gpulint.dev/v1alpha1\n\xff\xfe\x00\x00")
    proc = subprocess.run(
        [sys.executable, "-m", "linter", "check", str(binary)],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "GL002 [error] binary content" in proc.stdout
