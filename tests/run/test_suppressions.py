"""Inline suppressions: applied with a reason, reported without one, reported when unused."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli

BASE = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata:
  name: finetune
spec:
  profile: fine-tuning
  resources:
    accelerator: {type: A100-80GB, count: 8}
    capacity: spot{comment}
  lifecycle:
    maxRuntimeHours: 10
"""


def check(tmp_path: Path, text: str) -> tuple[int, list[tuple[str, int, str | None]]]:
    path = tmp_path / "job.yaml"
    path.write_text(text)
    result = run_cli("check", "--format", "json", str(path))
    findings = json.loads(result.out)["findings"]
    return result.code, [
        (f["ruleId"], f["line"], (f["suppressed"] or {}).get("reason")) for f in findings
    ]


def test_suppression_with_reason_on_the_same_line(tmp_path: Path) -> None:
    text = BASE.replace(
        "{comment}", "  # gpulint: ignore[GL202] platform snapshots the volume hourly"
    )
    assert check(tmp_path, text) == (0, [("GL202", 9, "platform snapshots the volume hourly")])


def test_suppression_on_the_line_above(tmp_path: Path) -> None:
    text = BASE.replace(
        "    capacity: spot{comment}",
        "    # gpulint: ignore[GL202] stateless eval job\n    capacity: spot",
    )
    assert check(tmp_path, text) == (0, [("GL202", 10, "stateless eval job")])


def test_suppression_without_reason_is_reported_and_not_applied(tmp_path: Path) -> None:
    text = BASE.replace("{comment}", "  # gpulint: ignore[GL202]")
    assert check(tmp_path, text) == (1, [("GL202", 9, None), ("GL004", 9, None)])


def test_unknown_rule_and_unused_suppression(tmp_path: Path) -> None:
    text = BASE.replace("{comment}", "  # gpulint: ignore[GL999] typo").replace(
        "  name: finetune", "  name: finetune  # gpulint: ignore[GL201] nothing here"
    )
    code, found = check(tmp_path, text)
    assert found == [("GL005", 4, None), ("GL202", 9, None), ("GL004", 9, None)]
    assert code == 1


def test_suppression_of_a_deselected_rule_is_not_called_unused(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(BASE.replace("{comment}", "  # gpulint: ignore[GL202] reviewed"))
    result = run_cli("check", "--select", "GL201,GL005", "--format", "json", str(path))
    assert json.loads(result.out)["findings"] == []
