"""Attack 9: repository configuration switched everything off silently and reached outside the
repository.

``ignore: [g]``, ``ignore: [" G"]`` and unknown ids in ``select`` were accepted without a word;
``exclude: ["*"]`` left nothing to lint and said nothing; the config search walked above the git
root; ``rulesDirs`` read folders anywhere and echoed their files in errors. Now: entries that
name no rule are errors with file:line:col, the report says what the configuration turned off,
discovery stops at the repository root, and ``rulesDirs`` stay inside the repository.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_cli
from hostile_repository import SPOT_JOB, repository

HELP = (
    "matches no rule id or prefix (ids are upper case, e.g. GL202; a prefix is a whole "
    "namespace, optionally with digits: GL, GL2)"
)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = repository(tmp_path)
    (root / "job.yaml").write_text(SPOT_JOB)
    monkeypatch.chdir(root)
    return root


@pytest.mark.parametrize(
    ("config", "error"),
    [
        ("ignore: [g]\n", ".gpulint.yaml:1:10: ignore: 'g' "),
        ('# everything\nignore: [" G"]\n', ".gpulint.yaml:2:10: ignore: ' G' "),
        ("select:\n  - GL202\n  - GL999\n", ".gpulint.yaml:3:5: select: 'GL999' "),
        ("ignore: [gl202]\n", ".gpulint.yaml:1:10: ignore: 'gl202' "),
    ],
)
def test_entries_that_name_no_rule_are_errors(repo: Path, config: str, error: str) -> None:
    (repo / ".gpulint.yaml").write_text(config)
    result = run_cli("check", "job.yaml")
    expected = f"gpulint: error: {repo / error}{HELP}\n"
    assert (result.code, result.out, result.err) == (2, "", expected)


def test_the_report_says_what_the_configuration_turned_off(repo: Path) -> None:
    (repo / "vendor").mkdir()
    (repo / "vendor" / "other.yaml").write_text(SPOT_JOB)
    (repo / ".gpulint.yaml").write_text(
        "ignore: [GL202]\nexclude: ['vendor/*']\nrules:\n  GL203: {enabled: false}\n"
    )
    text = run_cli("check", ".")
    assert (text.code, text.out) == (
        0,
        "No problems found in 1 file.\n"
        "Configuration turned off 2 rules (GL202, GL203) and excluded 1 file.\n",
    )
    json_run = run_cli("check", "--format", "json", ".")
    assert json_run.err == (
        "gpulint: Configuration turned off 2 rules (GL202, GL203) and excluded 1 file.\n"
    )


def test_excluding_everything_is_visible(repo: Path) -> None:
    (repo / ".gpulint.yaml").write_text("exclude: ['*']\n")
    result = run_cli("check", ".")
    assert (result.code, result.out) == (
        0,
        "No problems found in 0 files.\nConfiguration excluded 2 files.\n",  # and itself
    )


def test_config_discovery_stops_at_the_repository_root(repo: Path, tmp_path: Path) -> None:
    (tmp_path / ".gpulint.yaml").write_text("ignore: [GL2]\n")  # above the git root
    result = run_cli("check", "--select", "GL202", "job.yaml")
    assert result.code == 1
    assert result.out.splitlines()[-1] == "Found 1 error, 0 warnings and 0 notes in 1 file."


@pytest.mark.parametrize("entry", ["../outside", "{outside}", "link"])
def test_rules_dirs_outside_the_repository_are_refused(
    repo: Path, tmp_path: Path, entry: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_text("id: hunter2-is-the-password\n")
    (repo / "link").symlink_to(outside)
    entry = entry.format(outside=outside)
    (repo / ".gpulint.yaml").write_text(f"failOn: error\nrulesDirs:\n  - {entry}\n")
    result = run_cli("check", "job.yaml")
    assert (result.code, result.err) == (
        2,
        f"gpulint: error: {repo / '.gpulint.yaml'}:3:5: rulesDirs: {entry!r} is outside the "
        f"repository ({repo}); pass a folder you trust with --rules-dir instead\n",
    )
    assert "hunter2" not in result.err


def test_a_config_link_out_of_the_repository_is_not_read(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere.yaml").write_text("failOn: hunter2\n")
    (repo / ".gpulint.yaml").symlink_to(tmp_path / "elsewhere.yaml")
    result = run_cli("check", "job.yaml")
    assert (result.code, result.err) == (
        2,
        f"gpulint: error: {repo / '.gpulint.yaml'}:1:1: a symbolic link to a file outside "
        f"{repo}; not read\n",
    )
