"""Attack 1: an apiVersion spelt with escapes parses to ours, so it must be linted.

``apiVersion: "gpulint\\x2Edev/v1alpha1"`` (YAML) or ``"gpulint.d\\u0065v/v1alpha1"`` (JSON)
is our apiVersion once parsed; a byte pre-filter looking for ``gpulint.dev`` used to skip such a
file: in a directory it vanished (exit 0, no result) and named explicitly it was "skipped".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli

YAML = """apiVersion: "gpulint\\x2Edev/v1alpha1"
kind: Workload
metadata:
  name: hidden
spec:
  profile: training
  resources:
    capacity: spot
    accelerator: {type: H100-80GB, count: 8}
  lifecycle: {maxRuntimeHours: 4}
"""

JSON_TEXT = json.dumps(
    {
        "apiVersion": "PLACEHOLDER",
        "kind": "Workload",
        "metadata": {"name": "hidden"},
        "spec": {
            "profile": "training",
            "resources": {"capacity": "spot", "accelerator": {"type": "H100-80GB", "count": 8}},
            "lifecycle": {"maxRuntimeHours": 4},
        },
    },
    indent=2,
).replace("PLACEHOLDER", "gpulint.d\\u0065v/v1alpha1")


@pytest.mark.parametrize(("name", "text"), [("w.yaml", YAML), ("w.json", JSON_TEXT)])
@pytest.mark.parametrize("named", [True, False], ids=["named", "in-directory"])
def test_escaped_api_version_is_linted(tmp_path: Path, name: str, text: str, named: bool) -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")
    target = tmp_path / name if named else tmp_path
    result = run_cli("check", "--format", "json", "--select", "GL202", str(target))
    report = json.loads(result.out)
    assert (result.code, result.err) == (1, "")
    assert [(f["ruleId"], f["line"]) for f in report["findings"]] == [
        ("GL202", 8 if name.endswith("yaml") else 10)
    ]
    assert report["summary"]["filesChecked"] == 1
