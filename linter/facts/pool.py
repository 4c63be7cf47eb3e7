"""The ``pool`` fact: other workloads of the run on the same capacity pool with the opposite
utilisation profile (training and fine-tuning against inference)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from linter.facts.base import MAX_LISTED, Fact, Tally, listing, plural
from linter.facts.run import RunIndex
from linter.facts.subject import Subject
from linter.formats.manifest import Manifest
from linter.model import Workload

Side = Literal["training", "serving"]
TRAINING = frozenset({"training", "fine-tuning"})
#: How each side names the other in messages.
OPPOSITE_TEXT = {"training": "inference", "serving": "training or fine-tuning"}


class Reference(Fact):
    """Another document of the run, as a related location."""

    file: str
    document: int
    part: int
    path: str = Field(description="Normalised path in that document.")
    message: str


class PoolConflict(Reference):
    name: str
    profile: str


class PoolFact(Fact):
    name: str | None = Field(description="The pool, cluster or node group, when declared.")
    side: Side | None = Field(description="training (training, fine-tuning) or serving.")
    opposite_text: str | None = Field(description="What the other side is called in messages.")
    conflict_count: int = Field(description="Workloads of the other side on the same pool.")
    conflicts: list[PoolConflict] = Field(description=f"The first {MAX_LISTED} of them.")
    conflicts_text: str = Field(
        description="'2 inference workloads: chat in a.yaml and api in b.yaml'."
    )


def side_of(workload: Workload) -> Side | None:
    profile = workload.spec.profile
    if profile in TRAINING:
        return "training"
    return "serving" if profile == "inference" else None


def _by_pool(run: RunIndex) -> dict[tuple[str, Side], Tally[Manifest]]:
    """(pool, side) -> its workloads; built once per run so each lookup is O(1)."""
    index: dict[tuple[str, Side], Tally[Manifest]] = {}
    for manifest in run.workloads:
        assert isinstance(manifest.model, Workload)
        pool, side = manifest.model.spec.resources.pool, side_of(manifest.model)
        if pool and side:
            index.setdefault((pool, side), Tally()).add(manifest)
    return index


def prepare(run: RunIndex) -> None:
    run.shared("pool.index", _by_pool)


def compute(subject: Subject) -> PoolFact:
    workload = subject.workload
    pool, side = workload.spec.resources.pool, side_of(workload)
    other = None
    if pool and side:
        opposite: Side = "serving" if side == "training" else "training"
        other = subject.run.shared("pool.index", _by_pool).get((pool, opposite))
    conflicts = [_conflict(m, pool) for m in other.sample] if other and pool else []
    count = other.count if other else 0
    return PoolFact(
        name=pool,
        side=side,
        opposite_text=OPPOSITE_TEXT[side] if side else None,
        conflict_count=count,
        conflicts=conflicts,
        conflicts_text=_conflicts_text(side, conflicts, count),
    )


def _conflicts_text(side: Side | None, conflicts: list[PoolConflict], count: int) -> str:
    if side is None or not count:
        return "none"
    names = listing([f"{c.name} in {c.file}" for c in conflicts], count)
    return f"{plural(count, OPPOSITE_TEXT[side] + ' workload')}: {names}"


def _conflict(other: Manifest, pool: str) -> PoolConflict:
    assert isinstance(other.model, Workload)
    profile = other.model.spec.profile
    return PoolConflict(
        file=other.file,
        document=other.index,
        part=other.part,
        path="spec.resources.pool",
        message=f"{profile} workload {other.name} in pool {pool}",
        name=other.name,
        profile=profile,
    )
