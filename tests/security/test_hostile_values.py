"""Values no manifest can mean: infinite and NaN parameter counts passed the schema; they are
GL001 findings at their line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli
from hostile_repository import SPOT_JOB


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
