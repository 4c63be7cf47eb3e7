"""Attack 10, the smaller ones.

- The parse cache was keyed by size and modification time: a same-size edit that kept the
  mtime ran the stale rule. It is keyed by the hash of the parsed bytes now.
- ``--output`` on a full or read-only disk was an internal error that left an empty file. The
  report is written to a temporary beside it and renamed.
- Infinite and NaN parameter counts passed the schema.
- Suppression comments were recognised inside string values, JSON included.
(The cache's .gitignore is gone with the cache: see test_attack02, nothing is written into the
repository.)
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import run_cli
from hostile_repository import SPOT_JOB, cache_on, run_child

RULE = """\
id: ACME001
name: missing-team-label
severity: warning
summary: Workloads must say which team owns them
checks:
  - violation: '!("team" in workload.metadata.labels)'
    path: metadata
    message: 'workload {workload.metadata.name} has no team label'
docs: {whatItDoes: x, whyIsThisBad: x, example: x, useInstead: x}
"""


def test_a_same_size_edit_with_the_old_mtime_is_not_served_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache_on(monkeypatch, tmp_path)
    rules = tmp_path / "policies"
    rules.mkdir()
    rule = rules / "ACME001.yaml"
    rule.write_text(RULE)
    (tmp_path / "job.yaml").write_text(SPOT_JOB)
    args = ("check", "--select", "ACME", "--rules-dir", str(rules), str(tmp_path / "job.yaml"))
    assert "workload job has no team label" in run_cli(*args).out
    stamp = rule.stat()
    rule.write_text(RULE.replace("has no team label", "lacks a team tag!"))
    os.utime(rule, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert rule.stat().st_size == stamp.st_size
    assert rule.stat().st_mtime_ns == stamp.st_mtime_ns
    assert "workload job lacks a team tag!" in run_cli(*args).out


def test_output_to_a_full_disk_is_a_clean_error(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(SPOT_JOB)
    result = run_cli("check", "--output", "/dev/full", str(tmp_path / "job.yaml"))
    assert (result.code, result.out, result.err) == (
        2,
        "",
        "gpulint: error: /dev/full: cannot write the report: No space left on device\n",
    )


def test_a_failed_output_write_keeps_the_previous_report(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(SPOT_JOB)
    (tmp_path / "report.txt").write_text("the previous report\n")
    # files may grow to 100 bytes in this process: the report is longer
    proc = run_child(["check", "-o", "report.txt", "job.yaml"], tmp_path, file_size=100)
    assert proc is not None
    assert (proc.returncode, proc.stderr) == (
        2,
        "gpulint: error: report.txt: cannot write the report: File too large\n",
    )
    assert (tmp_path / "report.txt").read_text() == "the previous report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job.yaml", "report.txt"]


@pytest.mark.parametrize("value", ["1e999", ".inf", ".nan", "1e400B"])
def test_parameter_counts_must_be_finite(tmp_path: Path, value: str) -> None:
    manifest = tmp_path / "job.yaml"
    manifest.write_text(
        SPOT_JOB.replace(
            "  resources:", f"  model: {{id: acme/x, parameters: {value}}}\n  resources:"
        )
    )
    result = run_cli("check", "--format", "json", "--select", "GL001", str(manifest))
    found = [(f["ruleId"], f["line"], f["path"]) for f in json.loads(result.out)["findings"]]
    assert (result.code, found) == (1, [("GL001", 6, "spec.model.parameters")])


YAML_STRING = SPOT_JOB.replace(
    "    capacity: spot",
    '    pool: "x # gpulint: ignore[GL202] only text in a string"\n    capacity: spot',
)
YAML_BLOCK = SPOT_JOB.replace(
    "    capacity: spot",
    "    pool: |\n      # gpulint: ignore[GL202] a line of text\n    capacity: spot",
)
JSON_STRING = json.dumps(
    {
        "apiVersion": "gpulint.dev/v1alpha1",
        "kind": "Workload",
        "metadata": {"name": "job"},
        "spec": {
            "profile": "training",
            "resources": {
                "accelerator": {"type": "H100", "count": 8},
                "pool": "# gpulint: ignore[GL202] JSON has no comments",
                "capacity": "spot",
            },
            "lifecycle": {"maxRuntimeHours": 4},
        },
    },
    indent=2,
)


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        ("string.yaml", YAML_STRING, 9),
        ("block.yaml", YAML_BLOCK, 10),
        ("job.json", JSON_STRING, 15),
    ],
)
def test_a_suppression_inside_a_string_is_not_a_suppression(
    tmp_path: Path, name: str, text: str, line: int
) -> None:
    manifest = tmp_path / name
    manifest.write_text(text)
    result = run_cli("check", "--format", "json", "--select", "GL202", str(manifest))
    report = json.loads(result.out)
    found = [(f["ruleId"], f["line"], f["suppressed"]) for f in report["findings"]]
    assert (result.code, found) == (1, [("GL202", line, None)])


def test_a_real_comment_still_suppresses(tmp_path: Path) -> None:
    manifest = tmp_path / "job.yaml"
    manifest.write_text(
        YAML_STRING.replace("capacity: spot", "capacity: spot  # gpulint: ignore[GL202] ok")
    )
    result = run_cli("check", "--format", "json", "--select", "GL202", str(manifest))
    report = json.loads(result.out)["findings"]
    found = [(f["ruleId"], f["line"], f["suppressed"]) for f in report]
    assert (result.code, found) == (0, [("GL202", 9, {"reason": "ok"})])
