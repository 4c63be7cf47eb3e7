"""Suppressions only in real comments: a ``# gpulint: ignore[...]`` inside a string value (a
plain or block scalar, a JSON string) was taken for a suppression comment and hid the finding."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli
from hostile_repository import SPOT_JOB

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
