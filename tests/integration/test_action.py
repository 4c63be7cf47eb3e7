"""action.yml: a composite action whose inputs are the ones the README's workflow passes."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
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
        "cost-diff",
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
    assert action["uses"] == "gpulint/gpulint@v0.2.0"
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


def _cost_step() -> dict[str, Any]:
    (step,) = [s for s in ACTION["runs"]["steps"] if s.get("name") == "gpulint cost"]
    return step


def test_the_cost_summary_runs_only_when_asked_and_after_a_failed_check() -> None:
    step = _cost_step()
    assert step["if"] == "${{ !cancelled() && inputs.cost-diff != '' }}"
    assert step["env"]["GPULINT_COST_DIFF"] == "${{ inputs.cost-diff }}"
    assert '--diff="$GPULINT_COST_DIFF"' in step["run"]  # one argument, even if it starts with -
    assert '>> "$GITHUB_STEP_SUMMARY"' in step["run"]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_cost_step_appends_the_diff_to_the_job_summary(tmp_path: Path) -> None:
    """The step's own script, run by bash as the runner would, on a repository with two
    commits: the job summary gains the Markdown diff after what was there."""
    repo = tmp_path / "repo"
    (repo / "deploy").mkdir(parents=True)

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)
        return done.stdout.decode().strip()

    git("init", "-q", "-b", "main")
    manifest = (REPO / "tests/rules/GL212/good/within-budget.yaml").read_text()
    (repo / "deploy/chat.yaml").write_text(manifest)
    git("add", "-A")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "-m", "base")
    (repo / "deploy/chat.yaml").write_text(manifest.replace("name: chat", "name: chat2", 1))
    runner = tmp_path / "runner"
    (runner / "gpulint-venv" / "bin").mkdir(parents=True)
    os.symlink(Path(sys.executable).parent / "gpulint", runner / "gpulint-venv/bin/gpulint")
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    env = {
        **os.environ,
        "RUNNER_TEMP": str(runner),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GPULINT_PATHS": "deploy",
        "GPULINT_COST_DIFF": "HEAD",
    }
    done = subprocess.run(["bash", "-c", _cost_step()["run"]], cwd=repo, env=env)
    assert done.returncode == 0
    lines = summary.read_text().splitlines()
    head = git("rev-parse", "HEAD")[:12]
    assert lines[:2] == ["earlier step", f"### gpulint cost change against HEAD ({head})"]
    assert (
        "| chat2 | deploy/chat.yaml | renamed from chat | \\$734.38 | \\$734.38 | \\$0.00 |"
        in lines
    )
    env["GPULINT_COST_DIFF"] = "--output=owned"
    failed = subprocess.run(
        ["bash", "-c", _cost_step()["run"]], cwd=repo, env=env, capture_output=True, text=True
    )
    assert (failed.returncode, failed.stderr) == (
        2,
        "gpulint: error: '--output=owned' is not a git revision\n",
    )
    assert not (repo / "owned").exists()
