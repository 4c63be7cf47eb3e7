"""Budgets: which workloads a budget covers, what they cost together, and what a change adds.

A budget (``budgets:`` in the configuration, :class:`linter.config.Budget`) covers the workloads
of the run whose displayed path matches one of its ``paths`` globs (matched like ``exclude``)
and that carry all of its ``labels``; it limits their monthly cost together and, given a cost
base (the same paths at a git revision), what one change may add to it. The increase is counted
over the workloads that can be compared (``linter.pricing.matching``): a workload counts at the
base when it was in the budget there, so moving a workload into a budget adds its cost. A
workload without a monthly figure (no price, or hours not known) cannot be summed: the figures'
text names it, and the budget cannot be checked for it (:meth:`BudgetFigures.unknown_text`,
GL213), which is a finding of its own rather than a cost of zero.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import field

from linter.config import Budget
from linter.load.discovery import excluded
from linter.pricing.matching import Pair, Status, pair_workloads
from linter.records import datarecord
from linter.wording import listing, money, plural

Key = tuple[str, int, int, str]
# Amounts are compared in cents: sums of cents are rounded back to cents first, so that
# $734.38 + $300.00 - $834.38 is exactly $200.00, not $200.0000000000001.


@datarecord
class Costed:
    """A workload as budgets see it: where it is, its labels and its monthly cost."""

    file: str
    index: int
    part: int
    name: str
    labels: Mapping[str, str]
    monthly: float | None
    unknown: str | None = None  # why there is no monthly cost, when there is none

    @property
    def key(self) -> Key:
        return (self.file, self.index, self.part, self.name)


@datarecord
class CostBase:
    """The cost of the same paths at a git revision."""

    ref: str
    commit: str
    workloads: tuple[Costed, ...]
    #: Files (or folders) that could not be read or validated there, with why.
    problems: Mapping[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.ref} ({self.commit[:12]})"


def covers(budget: Budget, file: str, labels: Mapping[str, str]) -> bool:
    """Whether ``budget`` covers a workload in ``file`` (display path) with ``labels``."""
    in_paths = not budget.paths or excluded(file, tuple(budget.paths))
    return in_paths and all(labels.get(key) == value for key, value in budget.labels.items())


def scope_text(budget: Budget) -> str:
    """``paths deploy/team-a/* with label team=a``, or ``every workload``."""
    parts = []
    if budget.paths:
        parts.append(f"{'path' if len(budget.paths) == 1 else 'paths'} {', '.join(budget.paths)}")
    if budget.labels:
        pairs = ", ".join(f"{key}={value}" for key, value in sorted(budget.labels.items()))
        parts.append(f"{'label' if len(budget.labels) == 1 else 'labels'} {pairs}")
    return " with ".join(parts) if parts else "every workload"


@datarecord
class Member:
    """A workload's part in one budget: its cost now and at the base, whether it is in the
    budget on each side, and whether it can be compared at all."""

    name: str
    head: Key | None
    monthly: float | None
    base_monthly: float | None
    in_budget: bool
    was_in_budget: bool
    compared: bool
    unknown: str | None = None  # why its monthly cost now is not known

    @property
    def cost_unknown(self) -> bool:
        """In the budget now, without a monthly cost: the budget cannot be checked for it."""
        return self.in_budget and self.monthly is None

    @property
    def contribution(self) -> float | None:
        """What this workload adds to the budget's increase; None when that cannot be told."""
        if not (self.compared and self.in_budget) or self.monthly is None:
            return None
        if not self.was_in_budget:
            return self.monthly
        return None if self.base_monthly is None else self.monthly - self.base_monthly


@datarecord
class BudgetFigures:
    """One budget over a run: what its workloads cost now and, with a base, the change (each
    figure computed once: every workload of the budget reads them)."""

    budget: Budget
    members: tuple[Member, ...]
    base: str | None  # the base's label; None without one

    @functools.cached_property
    def current(self) -> list[Member]:
        return [m for m in self.members if m.in_budget]

    @functools.cached_property
    def monthly(self) -> float:
        return round(sum(m.monthly for m in self.current if m.monthly is not None), 2)

    @functools.cached_property
    def unpriced(self) -> list[str]:
        return [m.name for m in self.current if m.monthly is None]

    @functools.cached_property
    def base_monthly(self) -> float | None:
        """The compared workloads' cost in the budget at the base."""
        if self.base is None:
            return None
        compared = (m.base_monthly or 0.0 for m in self.members if m.compared and m.was_in_budget)
        return round(sum(compared), 2)

    @functools.cached_property
    def increase(self) -> float | None:
        """The compared workloads' cost in the budget now, less at the base."""
        before = self.base_monthly
        if before is None:
            return None
        now = sum(m.monthly or 0.0 for m in self.members if m.compared and m.in_budget)
        return round(now - before, 2)

    @property
    def over_monthly(self) -> bool:
        return self.budget.monthly is not None and self.monthly > self.budget.monthly

    @property
    def over_increase(self) -> bool:
        increase, limit = self.increase, self.budget.increase
        return increase is not None and limit is not None and increase > limit

    @functools.cached_property
    def monthly_text(self) -> str:
        """``budget team-a (label team=a): the 2 workloads it covers (a and b) cost $1,468.76
        a month together, $468.76 over its $1,000.00 limit``."""

        covered = f"the {plural(len(self.current), 'workload')} it covers"
        if self.current:
            covered += f" ({listing([m.name for m in self.current])})"
        unpriced = ""
        if self.unpriced:
            unpriced = f" ({listing(self.unpriced)} without a monthly cost, not counted)"
        return (
            f"budget {self.budget.name} ({scope_text(self.budget)}): {covered} cost "
            f"{money(self.monthly)} a month together{unpriced}"
            f"{_against(self.monthly, self.budget.monthly, 'its {limit} limit')}"
        )

    @functools.cached_property
    def increase_text(self) -> str | None:
        """``budget team-a: against main (0123456789ab) the monthly cost of its workloads
        changes by +$734.38 ($734.38 → $1,468.76), $534.38 over the $200.00 one change may
        add``; None without a base."""
        increase, before = self.increase, self.base_monthly
        if increase is None or before is None:
            return None
        limit = _against(increase, self.budget.increase, "the {limit} one change may add")
        return (
            f"budget {self.budget.name}: against {self.base} the monthly cost of its workloads "
            f"changes by {money(increase, signed=True)} ({money(before)} → "
            f"{money(before + increase)}){limit}"
        )

    def unknown_text(self, member: Member) -> str:
        """``budget team-a (label team=a) cannot be checked: the monthly cost of this workload
        is not known (the catalogue has no price for g9.huge (aws)); it sums only its priced
        workloads ($734.38 a month, against its $1,000.00 limit)``."""
        why = f" ({member.unknown})" if member.unknown else ""
        limit = self.budget.monthly
        against = "" if limit is None else f", against its {money(limit)} limit"
        return (
            f"budget {self.budget.name} ({scope_text(self.budget)}) cannot be checked: the "
            f"monthly cost of this workload is not known{why}; it sums only its priced "
            f"workloads ({money(self.monthly)} a month{against})"
        )


def _against(amount: float, limit: float | None, what: str) -> str:
    """``, $468.76 over its $1,000.00 limit``, ``, within ...``, or nothing without a limit."""
    if limit is None:
        return ""
    named = what.format(limit=money(limit))
    if amount > limit:
        return f", {money(amount - limit)} over {named}"
    return f", within {named}"


def pair_with_base(head: Sequence[Costed], base: CostBase | None) -> list[Pair[Costed, Costed]]:
    """The head workloads paired with the base's (without a base, each on its own)."""
    if base is None:
        return [Pair(None, item, "added") for item in head]
    return pair_workloads(base.workloads, head, base.problems)


def budget_figures(
    budgets: Sequence[Budget], pairs: Sequence[Pair[Costed, Costed]], base: CostBase | None
) -> list[BudgetFigures]:
    """Every budget's figures over the paired workloads (``pair_with_base``)."""
    label = None if base is None else base.label
    return [
        BudgetFigures(
            budget,
            tuple(m for m in (_member(budget, p, base is not None) for p in pairs) if m),
            label,
        )
        for budget in budgets
    ]


STATUS_TEXT: dict[Status, str] = {
    "same": "",
    "moved": " (moved from {file})",
    "renamed": " (renamed from {name})",
}


def change_text(
    pair: Pair[Costed, Costed], base: str, monthly: float | None, delta: float | None
) -> str:
    """What a workload's monthly cost did since ``base``, in words."""
    if pair.status == "not-compared":
        return f"not compared with {base}: {pair.reason}"
    now = "no monthly cost" if monthly is None else f"{money(monthly)} a month"
    if pair.base is None:
        return f"new since {base}: {now}"
    before = pair.base
    was = "no monthly cost" if before.monthly is None else f"{money(before.monthly)} a month"
    how = STATUS_TEXT.get(pair.status, "").format(file=before.file, name=before.name)
    change = "" if delta is None else f" ({money(delta, signed=True)})"
    return f"{was} at {base}{how}, {now} now{change}"


def _member(budget: Budget, pair: Pair[Costed, Costed], has_base: bool) -> Member | None:
    head, base = pair.head, pair.base
    in_budget = head is not None and covers(budget, head.file, head.labels)
    was_in_budget = base is not None and covers(budget, base.file, base.labels)
    if not (in_budget or was_in_budget):
        return None
    named = head or base
    assert named is not None
    return Member(
        name=named.name,
        head=None if head is None else head.key,
        monthly=None if head is None else head.monthly,
        base_monthly=None if base is None else base.monthly,
        in_budget=in_budget,
        was_in_budget=was_in_budget,
        compared=has_base and pair.status != "not-compared",
        unknown=None if head is None else head.unknown,
    )
