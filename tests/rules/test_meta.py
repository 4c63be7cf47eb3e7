"""Meta-tests: every rule is documented, has fixtures, and its own examples behave."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO

from linter.bundled import bundled
from linter.policy.docs import SECTIONS, markdown
from linter.policy.loader import load_rule, rule_files
from linter.policy.reference import pages

RULE_FILES = rule_files([REPO / "rules"])


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.stem)
def test_rule_file_is_named_after_its_id(path: Path) -> None:
    assert load_rule(path).id == path.stem


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.stem)
def test_docs_have_every_section(path: Path) -> None:
    page = markdown(load_rule(path).meta)
    assert [line[3:] for line in page.splitlines() if line.startswith("## ")] == list(SECTIONS)


#: Engine rules no fixture can trigger: GL006 needs a rule that fails at run time, and the
#: built-in rules are checked at load so that they do not (tests/policy/test_evaluator.py covers it).
NO_FIXTURES = {"GL006"}


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.stem)
def test_policy_rules_quote_the_guidance(path: Path) -> None:
    rule = load_rule(path)
    if not rule.meta.engine:
        assert rule.meta.principle is not None
        assert "The guidance:" in rule.meta.docs.why_is_this_bad


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.stem)
def test_rules_have_good_and_bad_fixtures(path: Path) -> None:
    fixtures = REPO / "tests" / "rules" / path.stem
    if path.stem in NO_FIXTURES:
        assert not fixtures.exists()
        return
    assert list((fixtures / "good").glob("*.y*ml")), "needs a good fixture"
    assert list((fixtures / "bad").glob("*.y*ml")), "needs a bad fixture"


def test_bundled_rules_are_the_repository_rules() -> None:
    assert sorted(p.name for p in bundled("rules").glob("*.yaml")) == sorted(
        p.name for p in RULE_FILES
    )


def test_generated_reference_is_current() -> None:
    expected = pages()
    on_disk = {
        p.name: p.read_text(encoding="utf-8") for p in (REPO / "docs" / "rules").glob("*.md")
    }
    assert on_disk == expected, "run: python -m linter.policy.reference"
