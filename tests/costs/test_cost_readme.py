"""The README's cost table and cost diff are what gpulint prints for the bundled example."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import REPO, run_cli
from costrepo import commit, new_repo

README = (REPO / "README.md").read_text(encoding="utf-8")


def test_readme_table_is_the_commands_output(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    block = re.search(r"```text\n\$ gpulint cost examples/cost\n(.*?)```", README, re.S)
    assert block is not None
    assert block.group(1) == run_cli("cost", "examples/cost").out


def test_readme_diff_is_the_commands_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = new_repo(tmp_path / "repo")
    shutil.copytree(REPO / "examples/cost", repo / "examples/cost")
    base = commit(repo, "base")
    chat, tune = repo / "examples/cost/chat.yaml", repo / "examples/cost/finetune.yaml"
    chat.write_text(chat.read_text().replace("replicas: 2", "replicas: 3"))
    tune.write_text(tune.read_text().replace("g5.12xlarge", "g6e.12xlarge"))
    monkeypatch.chdir(repo)
    printed = run_cli("cost", "--diff", "main", "--format", "markdown", "examples/cost").out
    quoted = re.findall(r"^>(?: (.*))?$", README, re.M)
    shown = "\n".join(quoted) + "\n"
    (commit_shown,) = re.findall(r"against main \(([0-9a-f]{12})\)", shown)
    assert shown.replace(commit_shown, base[:12]) == printed
