"""Budgets: validated with positions like the rest of the configuration; what they cover, what
their workloads cost together, and what a change adds against a cost base."""

from __future__ import annotations

from pathlib import Path

import pytest

from linter.config import Budget, ConfigError, load_config
from linter.pricing.budgets import (
    CostBase,
    Costed,
    budget_figures,
    covers,
    pair_with_base,
    scope_text,
)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (
            "budgets:\n  - {name: a, monthly: 10}\n  - {name: a, increase: 5}\n",
            "1:1: budgets: Value error, budget names must be unique: a",
        ),
        (
            "failOn: error\nbudgets:\n  - name: a\n    paths: [deploy/*]\n",
            "3:5: budgets[0]: Value error, give a monthly limit, an increase limit, or both",
        ),
        (
            "budgets:\n  - name: a\n    monthly: '10'\n",
            "3:5: budgets[0].monthly: Input should be a valid number (got '10')",
        ),
        (
            "budgets:\n  - name: a\n    increase: -1\n",
            "3:5: budgets[0].increase: Input should be greater than or equal to 0 (got -1)",
        ),
        (
            "budgets:\n  - {name: a, monthly: 1, limit: 2}\n",
            "2:27: budgets[0].limit: unknown field",
        ),
        (
            "budgets:\n  - {name: a, monthly: 1, labels: {team: 7}}\n",
            "2:36: budgets[0].labels.team: Input should be a valid string (got 7)",
        ),
    ],
)
def test_budgets_are_validated_with_positions(tmp_path: Path, text: str, error: str) -> None:
    path = tmp_path / ".gpulint.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert str(raised.value) == f"{path}:{error}"


def test_a_valid_budget(tmp_path: Path) -> None:
    path = tmp_path / ".gpulint.yaml"
    path.write_text(
        "budgets:\n  - {name: team-a, paths: ['deploy/a/*'], labels: {team: a}, monthly: 1000,"
        " increase: 200}\n",
        encoding="utf-8",
    )
    (budget,) = load_config(path).config.budgets
    assert budget == Budget(
        name="team-a", paths=["deploy/a/*"], labels={"team": "a"}, monthly=1000.0, increase=200.0
    )


TEAM_A = Budget(
    name="team-a", paths=["deploy/a"], labels={"tier": "prod"}, monthly=1000, increase=200
)


def test_what_a_budget_covers() -> None:
    assert covers(TEAM_A, "deploy/a/chat.yaml", {"tier": "prod", "x": "y"})
    assert covers(TEAM_A, "deploy/a/sub/chat.yaml", {"tier": "prod"})
    assert not covers(TEAM_A, "deploy/b/chat.yaml", {"tier": "prod"})
    assert not covers(TEAM_A, "deploy/a/chat.yaml", {"tier": "dev"})
    assert covers(Budget(name="all", monthly=1), "anything.yaml", {})
    assert scope_text(TEAM_A) == "path deploy/a with label tier=prod"
    assert scope_text(Budget(name="all", monthly=1)) == "every workload"


def w(file: str, name: str, monthly: float | None, index: int = 0, tier: str = "prod") -> Costed:
    return Costed(file, index, 0, name, {"tier": tier}, monthly)


def test_monthly_limit_over_every_workload_it_covers() -> None:
    head = [
        w("deploy/a/chat.yaml", "chat", 734.38),
        w("deploy/a/chat.yaml", "search", 500.0, 1),
        w("deploy/a/lab.yaml", "lab", None),
        w("deploy/b/other.yaml", "other", 9999.0),
    ]
    (figures,) = budget_figures([TEAM_A], pair_with_base(head, None), None)
    assert (figures.monthly, figures.unpriced, figures.over_monthly) == (1234.38, ["lab"], True)
    assert (figures.increase, figures.over_increase) == (None, False)
    assert figures.monthly_text == (
        "budget team-a (path deploy/a with label tier=prod): the 3 workloads it covers (chat, "
        "search and lab) cost $1,234.38 a month together (lab without a monthly cost, not "
        "counted), $234.38 over its $1,000.00 limit"
    )
    assert figures.increase_text is None


def test_increase_against_a_base_counts_moves_into_the_budget() -> None:
    base = CostBase(
        "main",
        "0123456789abcdef0123456789abcdef01234567",
        (
            w("deploy/a/chat.yaml", "chat", 734.38),
            w("deploy/b/batch.yaml", "batch", 300.0),  # outside the budget at the base
            w("deploy/a/old.yaml", "old", 100.0),  # removed by the change
        ),
    )
    head = [
        w("deploy/a/chat.yaml", "chat", 734.38),  # unchanged
        w("deploy/a/batch.yaml", "batch", 300.0),  # moved into the budget: adds all it costs
    ]
    (figures,) = budget_figures([TEAM_A], pair_with_base(head, base), base)
    assert (figures.base_monthly, figures.increase, figures.over_increase) == (834.38, 200.0, False)
    contributions = {m.name: m.contribution for m in figures.members}
    assert contributions == {"chat": 0.0, "batch": 300.0, "old": None}
    assert figures.increase_text == (
        "budget team-a: against main (0123456789ab) the monthly cost of its workloads changes by "
        "+$200.00 ($834.38 → $1,034.38), within the $200.00 one change may add"
    )


def test_a_workload_whose_file_cannot_be_read_at_the_base_is_left_out_of_the_increase() -> None:
    base = CostBase("main", "f" * 40, (), {"deploy/a/chat.yaml": "a symbolic link at the revision"})
    head = [w("deploy/a/chat.yaml", "chat", 734.38), w("deploy/a/new.yaml", "new", 250.0)]
    (figures,) = budget_figures([TEAM_A], pair_with_base(head, base), base)
    assert (figures.monthly, figures.increase, figures.over_increase) == (984.38, 250.0, True)
    assert {m.name: m.contribution for m in figures.members} == {"chat": None, "new": 250.0}
