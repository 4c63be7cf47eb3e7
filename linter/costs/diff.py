"""What a change does to the monthly cost: each workload against itself at the base revision,
what changed in what it runs on, and the totals."""

from __future__ import annotations

from collections.abc import Callable

from linter.costs.estimate import Estimate, WorkloadCost
from linter.model import Workload
from linter.pricing.matching import Pair, Status, pair_workloads
from linter.records import datarecord

#: What can change a workload's cost, and how to read it from the normalised workload.
_INPUTS: tuple[tuple[str, Callable[[Workload], object]], ...] = (
    ("provider", lambda w: w.spec.resources.provider),
    ("region", lambda w: w.spec.resources.region),
    ("instance type", lambda w: w.spec.resources.instance_type),
    ("GPU", lambda w: w.spec.resources.accelerator.type if w.spec.resources.accelerator else None),
    (
        "GPUs per node",
        lambda w: w.spec.resources.accelerator.count if w.spec.resources.accelerator else None,
    ),
    ("nodes", lambda w: w.spec.resources.nodes),
    ("capacity", lambda w: w.spec.resources.capacity),
    ("replicas", lambda w: w.spec.serving.replicas),
    ("max replicas", lambda w: w.spec.serving.max_replicas),
    ("on-demand fallback replicas", lambda w: w.spec.serving.on_demand_fallback_replicas),
    ("scale to zero", lambda w: w.spec.lifecycle.scale_to_zero),
    ("hours a month", lambda w: w.spec.lifecycle.hours_per_month),
    ("max runtime hours", lambda w: w.spec.lifecycle.max_runtime_hours),
    ("profile", lambda w: w.spec.profile),
)


def _shown(value: object) -> str:
    if value is None:
        return "unset"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def what_changed(before: Workload, after: Workload) -> list[str]:
    """``replicas 2 → 4``, ``instance type g5.xlarge → g5.2xlarge``: the cost inputs that
    differ."""
    out = []
    for name, read in _INPUTS:
        old, new = read(before), read(after)
        if old != new:
            out.append(f"{name} {_shown(old)} → {_shown(new)}")
    return out


@datarecord
class Change:
    """One workload's monthly cost before and after (None where there is no figure)."""

    status: Status
    base: WorkloadCost | None
    head: WorkloadCost | None
    before: float | None
    after: float | None
    #: after - before (a workload added costs all it costs, one removed saves all it cost);
    #: None when either side has no figure or the workload could not be compared.
    delta: float | None
    what: tuple[str, ...]
    note: str | None

    @property
    def workload(self) -> WorkloadCost:
        found = self.head or self.base
        assert found is not None
        return found


@datarecord
class CostDiff:
    base: str  # e.g. "main (0123456789ab)"
    changes: tuple[Change, ...]

    @property
    def compared(self) -> list[Change]:
        """The changes with a delta, largest first (then by file and name)."""
        known = [c for c in self.changes if c.delta is not None]
        return sorted(known, key=lambda c: (-abs(c.delta or 0.0), c.workload.file, c.workload.name))

    @property
    def uncompared(self) -> list[Change]:
        return [c for c in self.changes if c.delta is None]

    @property
    def before(self) -> float | None:
        """What the compared workloads cost at the base (cents, like every amount); None when
        no workload could be compared: an unknown cost is not zero."""
        compared = self.compared
        if not compared:
            return None
        return round(sum(c.before or 0.0 for c in compared), 2)

    @property
    def after(self) -> float | None:
        compared = self.compared
        if not compared:
            return None
        return round(sum(c.after or 0.0 for c in compared), 2)

    @property
    def delta(self) -> float | None:
        before, after = self.before, self.after
        return None if before is None or after is None else round(after - before, 2)


def _side(workload: WorkloadCost | None) -> float | None:
    return None if workload is None else workload.cost.monthly


def _note(
    pair: Pair[WorkloadCost, WorkloadCost], before: float | None, after: float | None
) -> str | None:
    """Why a change has no delta, or how the workload was paired when not by file and name."""
    base, head = pair.base, pair.head
    if pair.status == "not-compared":
        return f"not compared: {pair.reason}"
    if pair.status == "moved" and base is not None:
        return f"moved from {base.file}"
    if pair.status == "renamed" and base is not None:
        return f"renamed from {base.name}"
    for side, workload, amount in (("now", head, after), ("before", base, before)):
        if workload is not None and amount is None:
            why = workload.cost.unpriced or workload.cost.hours_text
            return f"no monthly cost {side}: {why}"
    return None


def diff(base: Estimate, head: Estimate, label: str, base_problems: dict[str, str]) -> CostDiff:
    """Every workload of ``base`` and ``head`` paired (``linter.pricing.matching``) with its
    delta; ``base_problems`` are the files (or folders) the base could not read or validate."""
    head_problems: dict[str, str] = {}
    for problem in head.problems:
        head_problems.setdefault(problem.file, problem.message)
    changes = []
    for pair in pair_workloads(base.workloads, head.workloads, base_problems, head_problems):
        before = _side(pair.base)
        after = _side(pair.head)
        delta = None
        if pair.status != "not-compared":
            if pair.base is None and after is not None:
                delta = after
            elif pair.head is None and before is not None:
                delta = -before
            elif before is not None and after is not None:
                delta = round(after - before, 2)
        what: tuple[str, ...] = ()
        if pair.base is not None and pair.head is not None:
            what = tuple(what_changed(pair.base.workload, pair.head.workload))
        changes.append(
            Change(
                pair.status,
                pair.base,
                pair.head,
                before,
                after,
                delta,
                what,
                _note(pair, before, after),
            )
        )
    return CostDiff(label, tuple(changes))


def describe(change: Change) -> str:
    """The change of one workload in words, for a report's ``change`` column."""
    if change.status == "added":
        return "added"
    if change.status == "removed":
        return "removed"
    parts = list(change.what)
    if change.note and change.status in ("moved", "renamed"):
        parts.insert(0, change.note)
    return "; ".join(parts) if parts else "no change"
