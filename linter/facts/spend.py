"""The ``spend`` fact: what a workload's monthly cost does to the budgets that cover it, and how
it changed against the cost base (the same paths at a git revision, ``gpulint check
--cost-base REF``).

A budget covers workloads across files, so this is a run-wide provider: each workload records
its monthly cost (the local ``cost`` fact's figure) while its file is read, and the run pairs
them with the cost base and sums each budget once (``linter.pricing.budgets``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, cast

from linter.facts.base import Fact, described
from linter.facts.cost import CostFact, cost_of
from linter.facts.run import Records, RunInputs, RunSide
from linter.facts.subject import Subject
from linter.model import Workload
from linter.model.manifest import Manifest
from linter.records import datarecord

if TYPE_CHECKING:
    from linter.pricing.budgets import BudgetFigures, Costed, Key, Member
    from linter.pricing.matching import Pair


#: How a workload compares with the base branch (a removed one has no facts of its own).
ChangeStatus = Literal["same", "moved", "renamed", "added", "not-compared"]


class CostChange(Fact):
    status: ChangeStatus = described(
        "How the workload pairs with one at the base (linter/pricing/matching.py)."
    )
    base: str = described("The base revision, e.g. 'main (0123456789ab)'.")
    base_file: str | None
    base_name: str | None
    base_monthly: float | None
    delta: float | None = described("Monthly now less at the base; null if unknown.")
    text: str


class BudgetStatus(Fact):
    name: str
    workloads: int = described("Workloads of the run the budget covers.")
    monthly: float = described("What they cost a month together (priced ones).")
    monthly_limit: float | None
    over_monthly: bool
    carries_monthly_breach: bool = described(
        "This workload is the budget's costliest (the first of its file order among "
        "equals): a breach of the monthly limit is one finding, reported here, not one per "
        "workload."
    )
    monthly_text: str
    base_monthly: float | None = described("At the cost base; null without one.")
    increase: float | None = described("Monthly now less at the cost base.")
    increase_limit: float | None
    over_increase: bool
    contribution: float | None = described(
        "What this workload adds to the increase; null if it cannot be told."
    )
    raises_cost: bool = described("This workload adds to the increase.")
    increase_text: str | None
    cost_unknown: bool = described(
        "This workload has no monthly cost (no price, or hours not known): the "
        "budget cannot be checked for it."
    )
    unknown_text: str | None = described("Says so, and why; null when its cost is known.")


class SpendFact(Fact):
    change: CostChange | None = described(
        "Against the cost base (gpulint check --cost-base); null without one."
    )
    budgets: list[BudgetStatus] = described("Every budget that covers the workload.")


@datarecord
class _RunCosts:
    """What the run's budgets and cost base say, computed once per run."""

    base: str | None
    pairs: dict[Key, Pair[Costed, Costed]]
    #: Each workload's part in every budget that covers it.
    budgets: dict[Key, list[tuple[BudgetFigures, Member]]]
    head: dict[Key, float | None]

    def change(self, key: Key) -> CostChange | None:
        found = self.pairs.get(key)
        if found is None or self.base is None:
            return None
        from linter.pricing.budgets import change_text

        monthly, base = self.head[key], found.base
        base_monthly = None if base is None else base.monthly
        delta = None
        if found.status != "not-compared" and monthly is not None:
            if base is None:
                delta = monthly
            elif base_monthly is not None:
                delta = round(monthly - base_monthly, 2)
        return CostChange(
            status=cast(ChangeStatus, found.status),  # a removed workload has no key here
            base=self.base,
            base_file=None if base is None else base.file,
            base_name=None if base is None else base.name,
            base_monthly=base_monthly,
            delta=delta,
            text=change_text(found, self.base, monthly, delta),
        )

    def statuses(self, key: Key) -> list[BudgetStatus]:
        return [_status(figures, member) for figures, member in self.budgets.get(key, [])]


def _costliest(figures: BudgetFigures) -> Member | None:
    """The member a monthly breach is reported on: the highest monthly cost, then the first in
    file order (workloads without a cost last)."""
    members = [m for m in figures.current if m.head is not None]
    if not members:
        return None
    return min(
        members,
        key=lambda m: (m.monthly is None, -(m.monthly or 0.0), m.head),
    )


def _status(figures: BudgetFigures, member: Member) -> BudgetStatus:
    budget, contribution = figures.budget, member.contribution
    return BudgetStatus(
        name=budget.name,
        workloads=len(figures.current),
        monthly=figures.monthly,
        monthly_limit=budget.monthly,
        over_monthly=figures.over_monthly,
        carries_monthly_breach=member is _costliest(figures),
        monthly_text=figures.monthly_text,
        base_monthly=figures.base_monthly,
        increase=figures.increase,
        increase_limit=budget.increase,
        over_increase=figures.over_increase,
        contribution=_round(contribution, 2),
        raises_cost=contribution is not None and contribution > 0,
        increase_text=figures.increase_text,
        cost_unknown=member.cost_unknown,
        unknown_text=figures.unknown_text(member) if member.cost_unknown else None,
    )


def record(manifest: Manifest, known: Mapping[str, Fact]) -> dict[str, Any] | None:
    """A workload's place, name, labels and monthly cost (None when it has no price or no
    hours, and then why): the ``cost`` fact's, when the rules have had it computed."""
    if not isinstance(manifest.model, Workload):
        return None
    cost = known.get("cost")
    if not isinstance(cost, CostFact):
        cost = cost_of(Subject(manifest), compare=False)
    monthly = cost.monthly
    return {
        "at": [manifest.file, manifest.index, manifest.part],
        "name": manifest.name,
        "labels": manifest.model.metadata.labels,
        "monthly": monthly,
        "unknown": None if monthly is not None else _unknown(cost),
    }


def _unknown(cost: CostFact) -> str:
    """Why a workload has no monthly cost."""
    if cost.unpriced:
        return cost.unpriced
    return f"its hours a month are {cost.hours_text}"


def index(records: Records, inputs: RunInputs) -> _RunCosts:
    """Every workload paired with the cost base and placed in the budgets covering it; with
    neither budgets nor a base, nothing (no workload has a change or a budget status)."""
    if not inputs.budgets and inputs.cost_base is None:
        return _RunCosts(base=None, pairs={}, budgets={}, head={})
    # imported past the common case (no budget, no base): a one-file run does not pay for them
    from linter.pricing.budgets import Costed, budget_figures, pair_with_base
    from linter.pricing.matching import by_head

    head = [
        Costed(file, document, part, item["name"], item["labels"], item["monthly"], item["unknown"])
        for (file, document, part), item in records
    ]
    pairs = pair_with_base(head, inputs.cost_base)
    budgets: dict[Key, list[tuple[BudgetFigures, Member]]] = {}
    for figures in budget_figures(inputs.budgets, pairs, inputs.cost_base):
        for member in figures.current:
            if member.head is not None:
                budgets.setdefault(member.head, []).append((figures, member))
    return _RunCosts(
        base=None if inputs.cost_base is None else inputs.cost_base.label,
        pairs=by_head(pairs),
        budgets=budgets,
        head={item.key: item.monthly for item in head},
    )


def fact(item: dict[str, Any] | None, costs: _RunCosts) -> SpendFact:
    if item is None:
        return SpendFact(change=None, budgets=[])
    file, document, part = item["at"]
    key = (file, document, part, item["name"])
    return SpendFact(change=costs.change(key), budgets=costs.statuses(key))


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


RUN = RunSide(record, index, fact)
