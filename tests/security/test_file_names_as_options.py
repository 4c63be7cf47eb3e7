"""A file name that becomes an option.

pre-commit appends the names of the staged files to the hook's command line, and the Action's
``paths`` are expanded by the shell: a committed file named ``--write-baseline=x.yaml`` arrived
as an argument and was parsed as an option, so the findings went into ``x.yaml`` and the run
exited 0. Now the hook and the Action put ``--`` before file names, after which every argument
is a path (that file is linted as a file); an option that is also a file's name (a caller that
left out ``--``), and after ``--`` an option-like name that is no file, are refused with exit 2.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, run_cli
from hostile_repository import SPOT_JOB
from ruamel.yaml import YAML

HOOK: dict[str, Any] = YAML(typ="safe").load((REPO / ".pre-commit-hooks.yaml").read_text())[0]
ACTION: dict[str, Any] = YAML(typ="safe").load((REPO / "action.yml").read_text())
HOSTILE_NAMES = ["--write-baseline=x.yaml", "--fail-on=never", "-ox.yaml", "--write=x.yaml"]


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "job.yaml").write_text(SPOT_JOB)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _hook_command(files: list[str], args: list[str] | None = None) -> list[str]:
    """The command pre-commit runs: the entry, the hook's args (or the user's), the files."""
    entry = shlex.split(HOOK["entry"])
    assert entry[0] == "gpulint"
    return [*entry[1:], *(HOOK.get("args", []) if args is None else args), *files]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_the_hook_lints_a_file_named_like_an_option(work: Path, name: str) -> None:
    (work / name).write_text("not: ours\n")
    result = run_cli(*_hook_command(sorted([name, "job.yaml"])))
    assert result.code == 1
    assert "job.yaml:8:5: GL202 [error]" in result.out
    assert sorted(p.name for p in work.iterdir()) == sorted([name, "job.yaml"])


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_an_option_that_is_also_a_file_is_refused(work: Path, name: str) -> None:
    """A user's own hook args without ``--``: the run stops instead of obeying the file."""
    (work / name).write_text("not: ours\n")
    result = run_cli(*_hook_command(sorted([name, "job.yaml"]), args=["--no-cache"]))
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        f"gpulint: error: {name!r} is both an option and a file here; put -- before file "
        "names (gpulint check [OPTIONS] -- FILE...)\n"
    )
    assert sorted(p.name for p in work.iterdir()) == sorted([name, "job.yaml"])


def test_an_option_after_the_separator_is_refused(work: Path) -> None:
    result = run_cli("check", "--", "job.yaml", "--format=json")
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        "gpulint: error: '--format=json' follows -- but is not a file; options go before --\n"
    )


def test_standard_input_after_the_separator_is_still_standard_input(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(SPOT_JOB.encode())))
    result = run_cli("check", "--format", "json", "--", "-")
    assert [(f["file"], f["line"]) for f in json.loads(result.out)["findings"]] == [("<stdin>", 8)]


def _check_step() -> dict[str, Any]:
    return next(step for step in ACTION["runs"]["steps"] if step.get("id") == "check")


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_actions_glob_passes_such_a_file_as_a_file(work: Path, tmp_path: Path) -> None:
    """The check step's own script, run by bash as the runner would, with ``paths: *.yaml``."""
    (work / "--write-baseline=x.yaml").write_text("not: ours\n")
    runner = tmp_path.parent / f"{tmp_path.name}-runner"
    (runner / "gpulint-venv" / "bin").mkdir(parents=True)
    os.symlink(Path(sys.executable).parent / "gpulint", runner / "gpulint-venv/bin/gpulint")
    env = {
        **os.environ,
        "RUNNER_TEMP": str(runner),
        "GITHUB_OUTPUT": str(runner / "output"),
        "GITHUB_STEP_SUMMARY": str(runner / "summary"),
        "GPULINT_PATHS": "*.yaml",
        "GPULINT_ARGS": "",
        "GPULINT_SARIF": "gpulint.sarif",
        "GPULINT_CATEGORY": "gpulint",
        "GPULINT_FAIL": "false",
    }
    script = runner / "step.sh"
    script.write_text(_check_step()["run"])
    # as the runner runs a `shell: bash` step
    command = ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)]
    done = subprocess.run(command, cwd=work, env=env, check=False)
    assert done.returncode == 0
    assert (runner / "output").read_text() == "exit-code=1\n"
    assert not (work / "x.yaml").exists()
    results = json.loads((work / "gpulint.sarif").read_text())["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["GL202"]
