"""Baselines: record today's findings, then report only new ones and list the stale entries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CliResult, run_cli

from linter.run import baseline

SPOT = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata: {name: finetune}
spec:
  profile: fine-tuning
  resources:
    accelerator: {type: A100-80GB, count: 8}
    capacity: spot
  lifecycle: {maxRuntimeHours: 10}
"""
IDLE = SPOT.replace("capacity: spot", "capacity: on-demand").replace(
    "{maxRuntimeHours: 10}", "{idleShutdownMinutes: 600}"
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs" / "spot.yaml").write_text(SPOT)
    (tmp_path / "jobs" / "idle.yaml").write_text(IDLE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(*args: str) -> CliResult:
    """``gpulint check`` with GL201 and GL202 only, so the fixtures stay about the baseline."""
    return run_cli("check", "--select", "GL201,GL202", *args)


def _found(*args: str) -> list[tuple[str, str, int]]:
    report = json.loads(check("--format", "json", *args).out)
    return [(f["file"], f["ruleId"], f["line"]) for f in report["findings"]]


def test_round_trip(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _found("jobs") == [("jobs/idle.yaml", "GL201", 9), ("jobs/spot.yaml", "GL202", 8)]
    written = check("--write-baseline", "gpulint-baseline.json", "jobs")
    assert (written.code, written.out) == (0, "")
    assert written.err == "gpulint: wrote 2 baseline entries to gpulint-baseline.json\n"
    document = json.loads((project / "gpulint-baseline.json").read_text())
    assert document["version"] == 1
    assert [(e["ruleId"], e["file"], e["path"]) for e in document["entries"]] == [
        ("GL201", "jobs/idle.yaml", "spec.lifecycle.idleShutdownMinutes"),
        ("GL202", "jobs/spot.yaml", "spec.resources.capacity"),
    ]

    # unchanged: nothing to report, exit 0, nothing stale
    unchanged = check("--baseline", "gpulint-baseline.json", "jobs")
    assert (unchanged.code, unchanged.err) == (0, "")
    assert unchanged.out == "No problems found in 2 files (2 matched the baseline).\n"

    # moved down by a comment and re-indented: still the same findings
    spot = project / "jobs" / "spot.yaml"
    spot.write_text("# spot fine-tune\n" + SPOT.replace("capacity: spot", "capacity:   spot"))
    assert _found("--baseline", "gpulint-baseline.json", "jobs") == []

    # from another working directory the baseline still matches
    monkeypatch.chdir(project / "jobs")
    assert _found("--baseline", "../gpulint-baseline.json", ".") == []
    monkeypatch.chdir(project)

    # a new violation is reported, and only it
    (project / "jobs" / "new.yaml").write_text(SPOT.replace("finetune", "another"))
    assert _found("--baseline", "gpulint-baseline.json", "jobs") == [("jobs/new.yaml", "GL202", 8)]

    # fixing an old one makes its entry stale
    (project / "jobs" / "idle.yaml").write_text(IDLE.replace("600", "30"))
    fixed = check("--format", "json", "--baseline", "gpulint-baseline.json", "jobs")
    assert [f["ruleId"] for f in json.loads(fixed.out)["findings"]] == ["GL202"]
    assert fixed.code == 1
    assert fixed.err.splitlines() == [
        "gpulint: 1 baseline entries in gpulint-baseline.json are stale (no longer found; "
        "rewrite it with --write-baseline):",
        "  jobs/idle.yaml: GL201 spec.lifecycle.idleShutdownMinutes: "
        + document["entries"][0]["message"],
    ]


def test_editing_the_offending_line_makes_a_new_finding(project: Path) -> None:
    check("--write-baseline", "b.json", "jobs")
    (project / "jobs" / "idle.yaml").write_text(IDLE.replace("600", "601"))
    result = check("--format", "json", "--baseline", "b.json", "jobs")
    assert [(f["file"], f["ruleId"]) for f in json.loads(result.out)["findings"]] == [
        ("jobs/idle.yaml", "GL201")
    ]
    assert result.err.startswith("gpulint: 1 baseline entries in b.json are stale")


def test_identical_findings_are_counted(project: Path) -> None:
    (project / "jobs" / "spot.yaml").write_text(SPOT + "---\n" + SPOT)
    check("--write-baseline", "b.json", "jobs/spot.yaml")
    assert _found("--baseline", "b.json", "jobs/spot.yaml") == []
    (project / "jobs" / "spot.yaml").write_text(SPOT + "---\n" + SPOT + "---\n" + SPOT)
    assert _found("--baseline", "b.json", "jobs/spot.yaml") == [("jobs/spot.yaml", "GL202", 28)]


def test_suppressed_findings_are_not_recorded(project: Path) -> None:
    (project / "jobs" / "spot.yaml").write_text(
        SPOT.replace("capacity: spot", "capacity: spot  # gpulint: ignore[GL202] eval job")
    )
    check("--write-baseline", "b.json", "jobs")
    entries = json.loads((project / "b.json").read_text())["entries"]
    assert [e["ruleId"] for e in entries] == ["GL201"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "not JSON (Expecting property name enclosed in double quotes at line 1)"),
        ("[]", "not a gpulint baseline (no version field)"),
        (
            '{"version": 2, "entries": []}',
            "baseline version 2 is not supported (this gpulint reads version 1)",
        ),
        (
            '{"version": 1, "entries": [{"ruleId": "GL201"}]}',
            "entries[0] needs string fields ruleId, file, hash, path, message",
        ),
    ],
)
def test_unusable_baseline_is_a_usage_error(project: Path, content: str, message: str) -> None:
    (project / "b.json").write_text(content)
    result = check("--baseline", "b.json", "jobs")
    assert (result.code, result.out, result.err) == (2, "", f"gpulint: error: b.json: {message}\n")


def test_missing_baseline(project: Path) -> None:
    result = check("--baseline", "nope.json", "jobs")
    assert (result.code, result.err) == (
        2,
        "gpulint: error: nope.json: cannot read baseline: No such file or directory\n",
    )


def test_content_hash_ignores_whitespace_but_not_the_manifest_path() -> None:
    assert baseline.content_hash(
        "  capacity:   spot ", "spec.resources.capacity"
    ) == baseline.content_hash("capacity: spot", "spec.resources.capacity")
    assert baseline.content_hash(
        "capacity: spot", "spec.resources.capacity"
    ) != baseline.content_hash("capacity: spot", "spec.capacity")
