"""action.yml: a composite action whose inputs are the ones the README's workflow passes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from conftest import REPO
from ruamel.yaml import YAML

ACTION: dict[str, Any] = YAML(typ="safe").load((REPO / "action.yml").read_text())
README = (REPO / "README.md").read_text()


def _readme_workflows() -> list[dict[str, Any]]:
    blocks = re.findall(r"```yaml\n(.*?)```", README, re.DOTALL)
    return [
        YAML(typ="safe").load(block)
        for block in blocks
        if "upload-sarif" in block and "jobs:" in block
    ]


def _steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for job in workflow["jobs"].values() for step in job["steps"]]


def test_action_is_a_composite_action() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert set(ACTION["inputs"]) == {
        "paths",
        "version",
        "args",
        "sarif-file",
        "category",
        "fail-on-findings",
    }
    assert all("description" in spec for spec in ACTION["inputs"].values())
    for step in ACTION["runs"]["steps"]:
        assert step["shell"] == "bash"


def test_every_input_the_action_reads_is_declared() -> None:
    used = set(re.findall(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", (REPO / "action.yml").read_text()))
    assert used == set(ACTION["inputs"])


def test_install_is_from_the_actions_own_checkout() -> None:
    install = ACTION["runs"]["steps"][0]
    assert install["env"]["GPULINT_SOURCE"] == "${{ github.action_path }}"
    assert '"$GPULINT_SOURCE"' in install["run"]


def test_readme_workflow_uses_the_action_and_uploads_its_sarif() -> None:
    (workflow,) = _readme_workflows()
    steps = _steps(workflow)
    (action,) = [s for s in steps if s.get("uses", "").startswith("gpulint/gpulint@")]
    assert action["uses"] == "gpulint/gpulint@v0.1.0"
    assert set(action.get("with", {})) <= set(ACTION["inputs"])
    (upload,) = [
        s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")
    ]
    assert upload["uses"] == "github/codeql-action/upload-sarif@v3"
    sarif_file = action.get("with", {}).get("sarif-file", ACTION["inputs"]["sarif-file"]["default"])
    assert upload["with"]["sarif_file"] == sarif_file
    assert upload["if"] == "${{ !cancelled() }}"
    assert workflow["permissions"]["security-events"] == "write"


def test_sdist_ships_the_action() -> None:
    assert '"action.yml"' in Path(REPO / "pyproject.toml").read_text()
