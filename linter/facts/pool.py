"""The ``pool`` fact: other workloads of the run on the same capacity pool with the opposite
utilisation profile (training and fine-tuning against inference). Run-wide: each workload
records its pool and side; the index counts each (pool, side) once."""

from collections.abc import Mapping
from typing import Any, Literal

from linter.facts.base import Fact, Tally, described
from linter.facts.run import Records, RunInputs, RunSide
from linter.model import Workload
from linter.model.manifest import Manifest
from linter.wording import MAX_LISTED, listing

Side = Literal["training", "serving"]
TRAINING = frozenset({"training", "fine-tuning"})
OPPOSITE: dict[str, Side] = {"training": "serving", "serving": "training"}


class Reference(Fact):
    """Another document of the run, as a related location."""

    file: str
    document: int
    part: int
    path: str = described("Normalised path in that document.")
    message: str


class PoolConflict(Reference):
    name: str
    profile: str


class PoolFact(Fact):
    name: str | None = described("The pool, cluster or node group, when declared.")
    side: Side | None = described("training (training, fine-tuning) or serving.")
    conflict_count: int = described("Workloads of the other side on the same pool.")
    conflicts: list[PoolConflict] = described(f"The first {MAX_LISTED} of them.")
    conflicts_text: str = described(
        "Them by name and file, 'chat in a.yaml and api in b.yaml' ('none')."
    )


def side_of(workload: Workload) -> Side | None:
    profile = workload.spec.profile
    if profile in TRAINING:
        return "training"
    return "serving" if profile == "inference" else None


def record(manifest: Manifest, _known: Mapping[str, Fact]) -> dict[str, Any] | None:
    """A workload's pool, side and what a conflict on the other side says of it."""
    workload = manifest.model
    if not isinstance(workload, Workload):
        return None
    side, pool = side_of(workload), workload.spec.resources.pool
    return {
        "pool": pool,
        "side": side,
        "name": manifest.name,
        "profile": workload.spec.profile,
    }


def index(records: Records, _inputs: RunInputs) -> dict[tuple[str, str], Tally[PoolConflict]]:
    """(pool, side) -> its workloads, counted once per run, for the pools both sides use: only
    those give a workload conflicts, and a run of many separate pools holds no more than each
    pool's first side while it finds them."""
    first_side: dict[str, str] = {}
    shared = set()
    for _, item in records:
        pool, side = item["pool"], item["side"]
        if pool and side and first_side.setdefault(pool, side) != side:
            shared.add(pool)
    del first_side
    out: dict[tuple[str, str], Tally[PoolConflict]] = {}
    for (file, document, part), item in records if shared else ():
        if item["pool"] in shared and item["side"]:
            conflict = PoolConflict(
                file=file,
                document=document,
                part=part,
                path="spec.resources.pool",
                message=f"{item['profile']} workload {item['name']} in pool {item['pool']}",
                name=item["name"],
                profile=item["profile"],
            )
            out.setdefault((item["pool"], item["side"]), Tally()).add(conflict)
    return out


def fact(
    item: dict[str, Any] | None, pools: dict[tuple[str, str], Tally[PoolConflict]]
) -> PoolFact:
    pool = item["pool"] if item else None
    side: Side | None = item["side"] if item else None
    other = pools.get((pool, OPPOSITE[side])) if pool and side else None
    conflicts = list(other.sample) if other else []
    count = other.count if other else 0
    return PoolFact(
        name=pool,
        side=side,
        conflict_count=count,
        conflicts=conflicts,
        conflicts_text=listing([f"{c.name} in {c.file}" for c in conflicts], count),
    )


RUN = RunSide(record, index, fact, {"Workload": ("spec.resources.pool",)})
