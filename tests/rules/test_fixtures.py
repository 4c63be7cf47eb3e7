"""Every built-in rule's fixtures (tests/rules/<ID>/{good,bad}/) and docs examples, through the
same code as ``gpulint test`` (linter/run/fixtures.py)."""

from __future__ import annotations

import pytest
from conftest import REPO

from linter.bundled import bundled
from linter.policy.loader import Rulebook
from linter.run.fixtures import run_rule

FIXTURES = REPO / "tests" / "rules"
RULE_IDS = sorted(p.stem for p in bundled("rules").glob("*.yaml"))


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_rule_fixtures_and_docs(rule_id: str, rulebook: Rulebook) -> None:
    failures = [
        f"{failure.file}:{failure.line}: {case.name}: {failure.message}"
        for case in run_rule(rulebook.by_id[rule_id], rulebook, FIXTURES)
        for failure in case.failures
    ]
    assert failures == []


def test_every_fixture_folder_names_a_rule(rulebook: Rulebook) -> None:
    # Python's bytecode folder is not a fixture folder (it appears where bytecode is written).
    folders = {p.name for p in FIXTURES.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders <= set(rulebook.by_id)
