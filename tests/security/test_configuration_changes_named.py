"""A configuration that weakens the run without a word.

The repository's ``.gpulint.yaml`` is the pull request's too. Turning a rule off or excluding
files was named in the run's summary, but lowering a rule's severity (``GL202: {severity:
note}``) or ``failOn: never`` was named nowhere: an error became a note, or stopped failing the
check, and the report looked like any clean run. Now the text report's last line, the JSON
report's ``configuration`` and SARIF's ``invocations[0].toolConfigurationNotifications`` say
what the configuration changed.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from conftest import REPO, run_cli
from hostile_repository import SPOT_JOB, repository

SARIF_SCHEMA = json.loads((REPO / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = repository(tmp_path)
    (root / "job.yaml").write_text(SPOT_JOB)
    monkeypatch.chdir(root)
    return root


CONFIGURATIONS = {
    "lowered": (
        "rules:\n  GL202: {severity: note}\n",
        "Configuration changed the severity of 1 rule (GL202 from error to note).",
        0,
    ),
    "fail-on-never": ("failOn: never\n", "Configuration set failOn: never.", 0),
    "both": (
        "failOn: never\nrules:\n  GL202: {severity: warning}\n  GL203: {severity: error}\n",
        "Configuration changed the severity of 2 rules (GL202 from error to warning, GL203 "
        "from note to error) and set failOn: never.",
        0,
    ),
    "with-rules-off": (
        "ignore: [GL203]\nrules:\n  GL202: {severity: note}\n",
        "Configuration turned off 1 rule (GL203) and changed the severity of 1 rule (GL202 "
        "from error to note).",
        0,
    ),
}


@pytest.mark.parametrize(
    ("config", "note", "code"), CONFIGURATIONS.values(), ids=CONFIGURATIONS.keys()
)
def test_every_output_names_what_the_configuration_changed(
    work: Path, config: str, note: str, code: int
) -> None:
    (work / ".gpulint.yaml").write_text(config)
    text = run_cli("check", "job.yaml")
    assert (text.code, text.out.splitlines()[-1]) == (code, note)
    report = json.loads(run_cli("check", "--format", "json", "job.yaml").out)
    assert report["configuration"] == [note]
    sarif = json.loads(run_cli("check", "--format", "sarif", "job.yaml").out)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(sarif)
    (invocation,) = sarif["runs"][0]["invocations"]
    assert invocation["toolConfigurationNotifications"] == [
        {"level": "note", "message": {"text": note}}
    ]


def test_a_command_line_fail_on_is_the_users_and_is_not_named(work: Path) -> None:
    (work / ".gpulint.yaml").write_text("failOn: never\n")
    result = run_cli("check", "--fail-on", "error", "job.yaml")
    assert result.code == 1
    assert not result.out.splitlines()[-1].startswith("Configuration")


def test_a_configuration_that_changes_nothing_is_not_named(work: Path) -> None:
    """``failOn: error`` and a severity equal to the rule's own are the defaults, written out."""
    (work / ".gpulint.yaml").write_text("failOn: error\nrules:\n  GL202: {severity: error}\n")
    text = run_cli("check", "job.yaml").out
    assert text.splitlines()[-1] == "Found 1 error, 0 warnings and 0 notes in 1 file."
    sarif = json.loads(run_cli("check", "--format", "sarif", "job.yaml").out)
    assert "toolConfigurationNotifications" not in sarif["runs"][0]["invocations"][0]


def test_a_stricter_fail_on_is_named_too(work: Path) -> None:
    (work / ".gpulint.yaml").write_text("failOn: note\n")
    assert run_cli("check", "job.yaml").out.splitlines()[-1] == "Configuration set failOn: note."
