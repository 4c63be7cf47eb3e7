"""Configuration: discovery, validation with positions, severities, options, rule dirs."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_cli

from linter.config import ConfigError, find_config, load_config

JOB = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata:
  name: finetune
spec:
  profile: fine-tuning
  resources:
    accelerator: {type: A100-80GB, count: 8}
  lifecycle:
    idleShutdownMinutes: 90
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_found_upwards_from_the_working_directory_to_the_repository_root(tmp_path: Path) -> None:
    config = write(tmp_path / ".gpulint.yaml", "failOn: warning\n")
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    (tmp_path / ".git").mkdir()
    assert find_config(nested) == config
    # a repository nested below the config: the search stops at its root
    (tmp_path / "a" / ".git").mkdir()
    assert find_config(nested) is None


def test_pyproject_table_is_used_only_when_present(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[project]\nname = 'x'\n")
    assert find_config(tmp_path) is None
    write(tmp_path / "pyproject.toml", "[tool.gpulint]\nfail-on = 'note'\n")
    with pytest.raises(
        ConfigError, match=r"pyproject.toml: \[tool.gpulint\] fail-on: unknown field"
    ):
        load_config(find_config(tmp_path))
    write(tmp_path / "pyproject.toml", "[tool.gpulint]\nfailOn = 'note'\n")
    assert load_config(find_config(tmp_path)).config.fail_on == "note"


def test_unknown_key_is_an_error_with_its_line(tmp_path: Path) -> None:
    path = write(
        tmp_path / ".gpulint.yaml", "rules:\n  GL201:\n    severity: error\n    level: x\n"
    )
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert str(err.value) == f"{path}:4:5: rules.GL201.level: unknown field"


def test_option_and_severity_override(tmp_path: Path) -> None:
    job = write(tmp_path / "job.yaml", JOB)
    assert run_cli("check", "--fail-on", "warning", str(job)).code == 1  # 90 > default 60
    config = write(
        tmp_path / "relaxed.yaml", "rules:\n  GL201:\n    options: {maxIdleShutdownMinutes: 120}\n"
    )
    assert run_cli("check", "--fail-on", "warning", "--config", str(config), str(job)).code == 0
    strict = write(tmp_path / "strict.yaml", "rules:\n  GL201:\n    severity: error\n")
    result = run_cli("check", "--config", str(strict), str(job))
    assert result.code == 1
    assert "GL201 [error]" in result.out


def test_disabled_rule_and_config_ignore(tmp_path: Path) -> None:
    job = write(tmp_path / "job.yaml", JOB)
    off = write(tmp_path / "off.yaml", "rules:\n  GL201: {enabled: false}\n")
    result = run_cli("check", "--config", str(off), str(job))
    assert result.out.splitlines()[-2:] == [
        "Found 0 errors, 0 warnings and 1 note in 1 file.",
        "Configuration turned off 1 rule (GL201).",
    ]
    ignored = write(tmp_path / "ignored.yaml", "ignore: [GL2]\n")
    result = run_cli("check", "--fail-on", "note", "--config", str(ignored), str(job))
    assert result.code == 0
    assert result.out.splitlines()[-1].startswith(
        "Configuration turned off 14 rules (GL201, GL202,"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("rules:\n  GL999: {enabled: false}\n", ":2:3: unknown rule id 'GL999'"),
        (
            "rules:\n  GL201:\n    options: {maxIdle: 5}\n",
            ":3:15: rule GL201 has no option 'maxIdle' (options: idleProneWords, maxIdleShutdownMinutes)",
        ),
        (
            "rules:\n  GL201:\n    options: {maxIdleShutdownMinutes: '5'}\n",
            ":3:15: option 'maxIdleShutdownMinutes' of GL201 must be a integer",
        ),
        (
            "failOn: sometimes\n",
            ":1:1: failOn: Input should be 'error', 'warning', 'note' or 'never' (got 'sometimes')",
        ),
    ],
)
def test_config_errors_exit_2_with_position(tmp_path: Path, text: str, message: str) -> None:
    job = write(tmp_path / "job.yaml", JOB)
    config = write(tmp_path / "c.yaml", text)
    result = run_cli("check", "--config", str(config), str(job))
    assert result.code == 2
    assert result.err == f"gpulint: error: {config}{message}\n"


def test_exclude_globs(tmp_path: Path) -> None:
    write(tmp_path / "vendor" / "job.yaml", JOB)
    config = write(tmp_path / "c.yaml", "exclude: ['*/vendor/*']\n")
    result = run_cli("check", "--fail-on", "note", "--config", str(config), str(tmp_path))
    assert (result.code, result.out) == (
        0,
        "No problems found in 0 files.\nConfiguration excluded 1 file.\n",
    )


ORG_RULE = """\
id: ACME001
name: missing-team-label
severity: warning
tags: [ownership]
summary: Workloads must say which team owns them
scope: {kinds: [Workload]}
checks:
  - violation: '!("team" in workload.metadata.labels)'
    path: metadata.labels | metadata
    message: 'workload {workload.metadata.name} has no team label'
docs:
  whatItDoes: Requires a team label.
  whyIsThisBad: Nobody to ask.
  example: "x: 1"
  useInstead: "x: 1"
"""


def test_organisation_rules_from_rules_dir_and_config(tmp_path: Path) -> None:
    job = write(tmp_path / "job.yaml", JOB)
    write(tmp_path / "policies" / "ACME001.yaml", ORG_RULE)
    result = run_cli(
        "check", "--select", "ACME", "--rules-dir", str(tmp_path / "policies"), str(job)
    )
    assert (
        result.out.splitlines()[0]
        == f"{job}:3:1: ACME001 [warning] workload finetune has no team label"
    )
    config = write(tmp_path / ".gpulint.yaml", "rulesDirs: [policies]\nselect: [ACME]\n")
    assert "ACME001" in run_cli("check", "--config", str(config), str(job)).out


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            ("severity: warning", "severity: fatal"),
            ":3:1: severity: Input should be 'error', 'warning' or 'note' (got 'fatal')",
        ),
        (("violation: '!(", "violation: '(("), ":8:5: invalid CEL:"),
        (
            ("{workload.metadata.name}", "{workload.metadata.}"),
            ":10:5: in message placeholder {workload.metadata.}",
        ),
        (("tags: [ownership]", "tags: [ownership]\nowner: me"), ":5:1: owner: unknown field"),
    ],
)
def test_bad_rule_file_is_an_error_naming_file_and_line(
    tmp_path: Path, change: tuple[str, str], message: str
) -> None:
    job = write(tmp_path / "job.yaml", JOB)
    rule = write(tmp_path / "policies" / "ACME001.yaml", ORG_RULE.replace(*change))
    result = run_cli("check", "--rules-dir", str(tmp_path / "policies"), str(job))
    assert result.code == 2
    assert result.err.startswith(f"gpulint: error: {rule}{message}")
    assert len(result.err.splitlines()) == 1


def test_a_rules_dir_link_loop_is_a_clean_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "loop").symlink_to("loop")
    write(tmp_path / ".gpulint.yaml", "rulesDirs: [loop]\n")
    job = write(tmp_path / "job.yaml", JOB)
    monkeypatch.chdir(tmp_path)
    result = run_cli("check", str(job))
    assert (result.code, result.err) == (
        2,
        f"gpulint: error: {tmp_path / 'loop'}: rules directory not found\n",
    )
