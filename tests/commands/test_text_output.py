"""Text output people can read (issue 30): grouped by file, ``--statistics``, ``--quiet``, and
colour that follows NO_COLOR, FORCE_COLOR and the terminal."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO, run_cli

from linter.commands.colour import wants_colour

QUOTA = str(REPO / "examples/quota-repo")


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache of the test's own, so a kept report of one output is never another's."""
    monkeypatch.setenv("GPULINT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.chdir(REPO / "examples")


def test_findings_are_grouped_by_file() -> None:
    result = run_cli("check", "quota-repo")
    groups = result.out.split("\n\n")
    assert [
        {line.split(":")[0] for line in g.splitlines() if not line.startswith(" ")} for g in groups
    ] == [
        {"quota-repo/train-a.yaml"},
        {"quota-repo/train-b.yaml", "Found 2 errors, 0 warnings and 2 notes in 3 files."},
    ]


def test_statistics_count_findings_per_rule() -> None:
    result = run_cli("check", "--statistics", "quota-repo")
    assert (result.code, result.out) == (
        1,
        "2  GL203  note     training-without-spot\n"
        "2  GL302  error    insufficient-accelerator-quota\n"
        "Found 2 errors, 0 warnings and 2 notes in 3 files.\n",
    )
    # a kept report of the plain text is not printed for --statistics, nor the other way round
    assert run_cli("check", "quota-repo").out.startswith("quota-repo/train-a.yaml:19:5: GL302")
    assert run_cli("check", "--statistics", "quota-repo").out == result.out


def test_quiet_prints_the_findings_alone() -> None:
    result = run_cli("check", "--quiet", "quota-repo")
    lines = result.out.splitlines()
    assert result.code == 1
    assert [line[:36].rstrip() for line in lines] == [
        "quota-repo/train-a.yaml:19:5: GL302",
        "    help: request an increase of at",
        "quota-repo/train-a.yaml:20:5: GL203",
        "    help: run on spot (spec.resource",
        "",
        "quota-repo/train-b.yaml:19:5: GL302",
        "    help: request an increase of at",
        "quota-repo/train-b.yaml:20:5: GL203",
        "    help: run on spot (spec.resource",
    ]
    clean = run_cli("check", "-q", "kubernetes/vllm-llama-3b.yaml")
    assert (clean.code, clean.out, clean.err) == (0, "", "")


@pytest.mark.parametrize(
    ("environ", "terminal", "to_file", "expected"),
    [
        ({}, True, False, True),
        ({}, False, False, False),
        ({}, True, True, False),
        ({"NO_COLOR": "1"}, True, False, False),
        ({"NO_COLOR": ""}, True, False, True),
        ({"FORCE_COLOR": "1"}, False, False, True),
        ({"FORCE_COLOR": "0"}, False, False, False),
        ({"FORCE_COLOR": ""}, False, False, False),
        ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False, False, False),
        ({"FORCE_COLOR": "1"}, False, True, False),
    ],
)
def test_colour_follows_the_conventions(
    environ: dict[str, str], terminal: bool, to_file: bool, expected: bool
) -> None:
    assert wants_colour(environ, terminal=terminal, to_file=to_file) is expected


def test_force_color_colours_the_report_and_no_color_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    coloured = run_cli("check", "memory/70b-on-one-gpu.yaml").out
    assert coloured.splitlines()[0].startswith(
        "\033[1mmemory/70b-on-one-gpu.yaml:18:5:\033[0m GL101 \033[31m[error]\033[0m 70.6B"
    )
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\033[" not in run_cli("check", "memory/70b-on-one-gpu.yaml").out


def test_the_readme_shows_the_statistics_as_printed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    command = "gpulint check --statistics examples/quota-repo"
    block = readme.split(f"```text\n$ {command}\n", 1)[1].split("```", 1)[0]
    assert block == run_cli(*command.split()[1:]).out
