"""``check --whole-repository FILE...``: run-wide rules judge the repository, findings are
reported only for the named files (the pre-commit hook's mode)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import REPO, run_cli

QUOTA_REPO = REPO / "examples" / "quota-repo"


@pytest.fixture
def quota_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """examples/quota-repo as a repository of its own, the working directory."""
    target = tmp_path / "quota-repo"
    shutil.copytree(QUOTA_REPO, target)
    (target / ".git").mkdir()
    monkeypatch.chdir(target)
    return target


def found(out: str) -> list[str]:
    """``file:line:column: rule`` of each finding in a text report."""
    return [line.split(" [", 1)[0] for line in out.splitlines() if " [" in line[:40]]


def test_a_staged_job_alone_is_judged_without_its_ledger(quota_repo: Path) -> None:
    """What the hook did before: the named file alone, so no ledger is in the run (warnings:
    gpulint cannot tell a missing quota from an unrecorded one)."""
    result = run_cli("check", "train-a.yaml")
    assert result.code == 0
    assert "GL301 [warning]" in result.out
    assert found(result.out) == [
        "train-a.yaml:19:5: GL301",
        "train-a.yaml:19:5: GL301",
        "train-a.yaml:20:5: GL203",
    ]


def test_the_whole_repository_gives_the_real_shortfall_and_no_false_gl301(
    quota_repo: Path,
) -> None:
    result = run_cli("check", "--whole-repository", "train-a.yaml")
    assert result.code == 1, result.err
    assert found(result.out) == ["train-a.yaml:19:5: GL302", "train-a.yaml:20:5: GL203"]
    assert result.out.splitlines()[:2] == [
        "train-a.yaml:19:5: GL302 [error] gcp quota NVIDIA_A100_GPUS in us-central1: 16 GPU "
        "needed, 8 approved; short by 8 GPU",
        "    help: request an increase of at least 8 GPU, or move some of them; the 2 workloads "
        "of this run drawing on quota NVIDIA_A100_GPUS: ranking-model-a (8 GPU) and "
        "ranking-model-b (8 GPU)",
    ]
    assert "    quotas.yaml:8:7: ledger entry in search-team-gcp" in result.out
    # train-b.yaml's own GL302 is not reported: nobody named that file
    assert "train-b.yaml:19" not in result.out
    assert result.out.endswith("Found 1 error, 0 warnings and 1 note in 1 file.\n")


def test_a_file_without_findings_passes_though_others_have_some(quota_repo: Path) -> None:
    result = run_cli("check", "--whole-repository", "quotas.yaml")
    assert (result.code, result.out) == (0, "No problems found in 1 file.\n")


def test_a_named_file_of_no_format_is_skipped_and_others_are_silent(quota_repo: Path) -> None:
    (quota_repo / "values.yaml").write_text("replicas: 2\n", encoding="utf-8")
    (quota_repo / "other.yaml").write_text("name: x\n", encoding="utf-8")
    result = run_cli("check", "--whole-repository", "values.yaml")
    assert (result.code, result.out) == (0, "No problems found in 0 files.\n")
    assert result.err == "gpulint: skipped values.yaml: no document of a format gpulint reads\n"


def test_without_files_the_whole_repository_is_reported(quota_repo: Path) -> None:
    result = run_cli("check", "--whole-repository")
    assert result.code == 1
    assert found(result.out) == [
        "train-a.yaml:19:5: GL302",
        "train-a.yaml:20:5: GL203",
        "train-b.yaml:19:5: GL302",
        "train-b.yaml:20:5: GL203",
    ]


def test_from_a_subfolder_the_repository_is_still_linted(
    quota_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (quota_repo / "jobs").mkdir()
    shutil.move(quota_repo / "train-b.yaml", quota_repo / "jobs" / "train-b.yaml")
    monkeypatch.chdir(quota_repo / "jobs")
    result = run_cli("check", "--whole-repository", "train-b.yaml")
    assert result.code == 1
    assert found(result.out) == ["train-b.yaml:19:5: GL302", "train-b.yaml:20:5: GL203"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("-",),
            "gpulint: error: --whole-repository lints the repository's files, not standard input\n",
        ),
        (
            ("--write-baseline", "b.json", "train-a.yaml"),
            "gpulint: error: --write-baseline records every finding: run it without "
            "--whole-repository\n",
        ),
    ],
)
def test_what_it_refuses(quota_repo: Path, args: tuple[str, ...], message: str) -> None:
    result = run_cli("check", "--whole-repository", *args)
    assert (result.code, result.out, result.err) == (2, "", message)
    assert not (quota_repo / "b.json").exists()


def test_a_kept_report_is_not_reused_for_other_named_files(
    quota_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The report kept for one set of named files is not printed for another."""
    monkeypatch.delenv("GPULINT_NO_CACHE")
    monkeypatch.setenv("GPULINT_CACHE_DIR", str(tmp_path / "cache"))
    first = run_cli("check", "--whole-repository", "train-a.yaml")
    again = run_cli("check", "--whole-repository", "train-a.yaml")
    other = run_cli("check", "--whole-repository", "train-b.yaml")
    assert first.out == again.out
    assert found(other.out) == ["train-b.yaml:19:5: GL302", "train-b.yaml:20:5: GL203"]


def test_readme_shows_the_real_output(quota_repo: Path) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## pre-commit\n", 1)[1].split("\n## ", 1)[0]
    block = section.split("```text\n", 1)[1].split("```", 1)[0]
    command, shown = block.split("\n", 1)
    assert command == "$ gpulint check --whole-repository train-a.yaml"
    result = run_cli(*command.removeprefix("$ gpulint ").split())
    assert (result.code, result.out) == (1, shown)


def test_the_hook_is_given_the_files_discovery_reads() -> None:
    """The hook's ``files`` pattern takes exactly the extensions a directory run reads (any
    case), so a staged Terraform module or batch script is linted like a staged manifest."""
    import re

    from ruamel.yaml import YAML

    from linter.load.discovery import EXTENSIONS

    (hook,) = YAML(typ="safe").load((REPO / ".pre-commit-hooks.yaml").read_text("utf-8"))
    assert (hook["entry"], hook["args"]) == ("gpulint check --whole-repository", ["--"])
    pattern = re.compile(hook["files"])
    for extension in EXTENSIONS:
        for name in (f"deploy/x{extension}", f"X{extension.upper()}"):
            assert pattern.search(name), name
    for name in ("x.tfvars", "x.txt", "x.py", "yaml", "x.yaml.bak"):
        assert not pattern.search(name), name
