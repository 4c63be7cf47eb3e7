"""Built-in rules keep decisions out of their messages: a message or fix placeholder reads a value
and never chooses (no conditional operator, no string concatenation). Choices and wording are
made in the rule's ``variables:`` (tests/rules/test_rule_prose.py), from the numbers, flags and names
facts give (tests/facts, schemas/facts.schema.json)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO

from linter.load import read
from linter.policy.cel_placeholders import decisions
from linter.policy.rule_file import RuleFile
from linter.policy.template import placeholders

RULES = sorted((REPO / "rules").glob("*.yaml"))


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.stem)
def test_placeholders_hold_no_decisions(path: Path) -> None:
    meta = RuleFile.model_validate(read(path).documents[0].data)
    found = [
        f"checks[{index}].{field}: {{{expression}}}"
        for index, check in enumerate(meta.checks)
        for field in ("message", "fix")
        for expression, _ in placeholders(getattr(check, field) or "")
        if decisions(expression)
    ]
    assert found == []


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.stem)
def test_policy_rules_say_what_to_do(path: Path) -> None:
    meta = RuleFile.model_validate(read(path).documents[0].data)
    assert all(check.fix for check in meta.checks), "every check of a built-in rule has a fix"


@pytest.mark.parametrize(
    ("expression", "decides"),
    [
        ("facts.memory.inference.suggestions.text", False),
        ('facts.x == null ? "more" : string(facts.x)', True),
        ('"a " + facts.names.pool', True),
        ("double(facts.memory.parameters) / 1e9", False),
    ],
)
def test_the_check_itself_can_fail(expression: str, decides: bool) -> None:
    assert bool(decisions(expression)) is decides
