"""What ``gpulint cost`` shows, as tables and notes: one model the text, Markdown and JSON
renderers share, so the three say the same thing.

Cells are plain strings built from facts (amounts already formatted); a renderer only lays them
out and escapes what came from the repository (``linter.costs.render``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from typing import Any

from linter.costs.diff import Change, CostDiff, describe
from linter.costs.estimate import Estimate, WorkloadCost
from linter.pricing.budgets import BudgetFigures
from linter.records import datarecord
from linter.wording import listing, money, money_per_hour, plural

NONE = "—"
#: A monthly amount that cannot be computed (no price, or hours not known): never $0.00.
UNKNOWN = "unknown"


@datarecord
class Table:
    headers: tuple[str, ...]
    #: ``True`` for a column of amounts (right-aligned).
    numeric: tuple[bool, ...]
    rows: tuple[tuple[str, ...], ...]
    total: tuple[str, ...] | None = None


@datarecord(frozen=False)
class View:
    """A report: a title, a summary line, tables and notes, and the same as plain data."""

    title: str
    summary: str
    tables: list[Table] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)


def _hours(workload: WorkloadCost) -> str:
    hours = workload.cost.hours_per_month
    if hours is None:
        return "?"
    shown = f"{hours:g}"
    return f"≤{shown}" if workload.cost.hours_upper_bound else shown


def _amount(value: float | None) -> str:
    return UNKNOWN if value is None else money(value)


def _spot(workload: WorkloadCost) -> str:
    """Unknown without a price; — where the catalogue's spot price is not a market price."""
    cost = workload.cost
    if cost.spot_monthly is None and cost.on_demand_monthly is not None:
        return NONE
    return _amount(cost.spot_monthly)


def _api(workload: WorkloadCost) -> str:
    api = workload.cost.managed_api
    if api is None:
        return NONE
    if api.comparison is None:
        return "not compared"
    return f"{money(api.comparison.api_monthly)} ({api.comparison.provider})"


def _gpus(value: float | None) -> str:
    return NONE if value is None else f"{value:g}"


def _sum(values: Sequence[float | None]) -> float | None:
    """The known amounts added up, in cents; None when none is known (unknown is not zero)."""
    known = [value for value in values if value is not None]
    return round(sum(known), 2) if known else None


def _total(values: Sequence[float | None]) -> str:
    """A total cell: the known amounts' sum, ``+ unknown`` when some are not known."""
    total = _sum(values)
    if total is None:
        return UNKNOWN if values else money(0)
    return money(total) + (f" + {UNKNOWN}" if None in values else "")


COST_HEADERS = (
    "Workload",
    "File",
    "Capacity",
    "GPUs",
    "Hours/month",
    "$/hour",
    "Monthly",
    "On-demand/month",
    "Spot/month",
    "Managed API/month",
)


def _cost_row(workload: WorkloadCost) -> tuple[str, ...]:
    cost = workload.cost
    return (
        workload.name,
        f"{workload.file}:{workload.line}",
        cost.capacity,
        _gpus(cost.gpus),
        _hours(workload),
        UNKNOWN if cost.per_hour is None else money_per_hour(cost.per_hour),
        _amount(cost.monthly),
        _amount(cost.on_demand_monthly),
        _spot(workload),
        _api(workload),
    )


def _notes(workload: WorkloadCost) -> list[str]:
    """What a workload's row rests on that the row cannot say (one line, or none)."""
    cost = workload.cost
    notes = []
    if cost.unpriced:
        notes.append(f"no price: {cost.unpriced}")
    if cost.assumed_instance_type is not None:
        notes.append(
            f"no instance type declared: priced as {cost.assumed_instance_type}, the cheapest "
            "catalogued instance that holds its GPUs (a lower bound)"
        )
    if cost.hours_basis not in ("declared", "always-on"):
        notes.append(f"hours: {cost.hours_text}")
    if cost.price_region and cost.price_region != workload.workload.spec.resources.region:
        notes.append(f"prices: {cost.price_note}")
    if cost.capacity == "reserved" and cost.per_hour is not None:
        notes.append("reserved capacity at the on-demand price (no reserved prices catalogued)")
    if cost.max_monthly is not None:
        notes.append(f"up to {money(cost.max_monthly)} a month at {cost.max_replicas} replicas")
    if cost.managed_api is not None and cost.managed_api.missing:
        notes.append(f"managed API not compared: {cost.managed_api.missing}")
    if not notes:
        return []
    return [f"{workload.name} ({workload.file}:{workload.line}): {'; '.join(notes)}"]


def _caveats(workloads: Sequence[WorkloadCost]) -> list[str]:
    """Each price caveat once, with the workloads it applies to."""
    found: dict[str, list[str]] = {}
    for workload in workloads:
        for warning in workload.cost.price_warnings:
            found.setdefault(warning, []).append(workload.name)
    return [f"caveat for {listing(names)}: {warning}" for warning, names in found.items()]


def _problems(estimate: Estimate) -> list[str]:
    return [
        f"not costed: {problem.file}:{problem.line}: {problem.message} (gpulint check reports it)"
        for problem in estimate.problems
    ]


def _prices(as_of: str, workloads: Sequence[WorkloadCost]) -> str:
    sources = sorted({w.cost.price_source for w in workloads if w.cost.price_source})
    used = f"; sources {', '.join(sources)}" if sources else ""
    return (
        f"Prices: gpulint's price catalogue as of {as_of} (USD{used}), on-demand and one spot "
        "snapshot per region; monthly = $/hour at the declared capacity x hours a month."
    )


def budget_lines(figures: Sequence[BudgetFigures]) -> list[str]:
    lines = []
    for budget in figures:
        lines.append(budget.monthly_text)
        increase = budget.increase_text
        if increase is not None:
            lines.append(increase)
    return lines


def budget_data(figures: Sequence[BudgetFigures]) -> list[dict[str, Any]]:
    return [
        {
            "name": b.budget.name,
            "workloads": [m.name for m in b.current],
            "monthly": b.monthly,
            "monthlyLimit": b.budget.monthly,
            "overMonthly": b.over_monthly,
            "baseMonthly": b.base_monthly,
            "increase": b.increase,
            "increaseLimit": b.budget.increase,
            "overIncrease": b.over_increase,
        }
        for b in figures
    ]


def _monthly_summary(monthly: float | None, known: int, unknown: Sequence[str]) -> str:
    """``$1,583.04 a month``; with unknown costs, how many the figure covers and how many it
    does not: ``$734.38 a month for 1 of them, 1 unknown``."""
    if not unknown:
        return f"{money(monthly or 0)} a month"
    if monthly is None:
        return f"monthly cost unknown ({len(unknown)} without a price or hours)"
    return f"{money(monthly)} a month for {known} of them, {len(unknown)} unknown"


def cost_view(estimate: Estimate, as_of: str, budgets: Sequence[BudgetFigures]) -> View:
    """``gpulint cost``: a row per workload, totals, and what the figures rest on. An unknown
    monthly cost is shown as unknown and left out of the sums, which say so."""
    workloads = estimate.workloads
    costs = [w.cost for w in workloads]
    gpus = _sum([c.gpus for c in costs])
    monthly = _sum([c.monthly for c in costs])
    on_demand = _sum([c.on_demand_monthly for c in costs])
    spot = _sum([c.spot_monthly for c in costs])
    unpriced = [w.name for w in workloads if w.cost.monthly is None]
    words = plural(len(workloads), "workload")
    total = (
        "Total",
        words,
        "",
        _gpus(gpus),
        "",
        "",
        _total([c.monthly for c in costs]),
        _total([c.on_demand_monthly for c in costs]),
        _total([c.spot_monthly for c in costs]),
        "",
    )
    table = Table(
        COST_HEADERS,
        (False, False, False, True, True, True, True, True, True, True),
        tuple(_cost_row(w) for w in workloads),
        total if workloads else None,
    )
    notes = [note for w in workloads for note in _notes(w)]
    notes += _caveats(workloads)
    if unpriced:
        notes.append(f"totals leave out {listing(unpriced)}: monthly cost unknown (see above)")
    notes += budget_lines(budgets)
    notes += _problems(estimate)
    notes.append(_prices(as_of, workloads))
    summary = f"{words}: {_monthly_summary(monthly, len(workloads) - len(unpriced), unpriced)}"
    data = {
        "asOf": as_of,
        "currency": "USD",
        "workloads": [
            {
                "file": w.file,
                "line": w.line,
                "name": w.name,
                "format": w.format,
                "cost": w.cost.as_data(),
            }
            for w in workloads
        ],
        "totals": {
            "gpus": gpus,
            "monthly": monthly,
            "onDemandMonthly": on_demand,
            "spotMonthly": spot,
            "withoutMonthly": unpriced,
        },
        "budgets": budget_data(budgets),
        "problems": [
            {"file": p.file, "line": p.line, "message": p.message} for p in estimate.problems
        ],
    }
    return View("gpulint cost", summary, [table], notes, data)


DIFF_HEADERS = ("Workload", "File", "Change", "Before", "After", "Delta")


def _diff_row(change: Change) -> tuple[str, ...]:
    workload = change.workload
    return (
        workload.name,
        workload.file,
        describe(change),
        _amount(change.before),
        _amount(change.after),
        UNKNOWN if change.delta is None else money(change.delta, signed=True),
    )


def _signed(amount: float | None) -> str:
    return UNKNOWN if amount is None else money(amount, signed=True)


def _diff_summary(cost_diff: CostDiff) -> str:
    """``+$734.38 a month ($1,583.04 → $2,317.42) over 2 workloads compared``, and how many
    workloads the figures leave out because their cost is unknown on either side."""
    compared, uncompared = len(cost_diff.compared), len(cost_diff.uncompared)
    unknown = f"{plural(uncompared, 'workload')} with an unknown cost"
    before, after = cost_diff.before, cost_diff.after
    if before is None or after is None:
        if uncompared:
            return f"cost change unknown: {unknown}, none compared"
        return "no workloads to compare"
    figures = (
        f"{_signed(cost_diff.delta)} a month ({money(before)} → {money(after)}) over "
        f"{plural(compared, 'workload')} compared"
    )
    return f"{figures}; {unknown} not counted" if uncompared else figures


def diff_view(
    cost_diff: CostDiff, as_of: str, budgets: Sequence[BudgetFigures], head: Estimate
) -> View:
    """``gpulint cost --diff``: what the change adds or saves per workload and in total."""
    compared = cost_diff.compared
    moved = [c for c in compared if c.delta or c.what or c.status != "same"]
    unchanged = len(compared) - len(moved)
    total = (
        "Total",
        plural(len(compared), "workload"),
        "",
        _amount(cost_diff.before),
        _amount(cost_diff.after),
        _signed(cost_diff.delta),
    )
    table = Table(
        DIFF_HEADERS,
        (False, False, False, True, True, True),
        tuple(_diff_row(c) for c in [*moved, *cost_diff.uncompared]),
        total if cost_diff.changes else None,
    )
    notes = []
    if unchanged:
        notes.append(f"{plural(unchanged, 'workload')} unchanged")
    for change in cost_diff.uncompared:
        workload = change.workload
        notes.append(f"{workload.name} ({workload.file}): {change.note}")
    for change in moved:
        ceilings = dict.fromkeys(
            side.cost.hours_text
            for side in (change.base, change.head)
            if side is not None and side.cost.hours_upper_bound
        )
        if ceilings:
            notes.append(f"{change.workload.name}: a ceiling, {'; '.join(ceilings)}")
    notes += budget_lines(budgets)
    notes += _problems(head)
    notes.append(_prices(as_of, [c.workload for c in cost_diff.changes]))
    data = {
        "asOf": as_of,
        "currency": "USD",
        "base": cost_diff.base,
        "before": cost_diff.before,
        "after": cost_diff.after,
        "delta": cost_diff.delta,
        "compared": len(compared),
        "unknown": len(cost_diff.uncompared),
        "changes": [
            {
                "status": c.status,
                "file": c.head.file if c.head else None,
                "name": c.head.name if c.head else None,
                "baseFile": c.base.file if c.base else None,
                "baseName": c.base.name if c.base else None,
                "before": c.before,
                "after": c.after,
                "delta": c.delta,
                "what": list(c.what),
                "note": c.note,
            }
            for c in cost_diff.changes
        ],
        "budgets": budget_data(budgets),
    }
    title = f"gpulint cost change against {cost_diff.base}"
    return View(title, _diff_summary(cost_diff), [table], notes, data)
