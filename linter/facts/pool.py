"""The ``pool`` fact: other workloads of the run on the same capacity pool with the opposite
utilisation profile (training and fine-tuning against inference)."""

from __future__ import annotations

from typing import Any

from linter.facts.run import RunIndex
from linter.formats.manifest import Manifest
from linter.model import Workload

TRAINING = frozenset({"training", "fine-tuning"})
MAX_LISTED = 5


def _side(workload: Workload) -> str | None:
    profile = workload.spec.profile
    if profile in TRAINING:
        return "training"
    return "serving" if profile == "inference" else None


class _Side:
    """The workloads of one side of one pool: how many, and the first few to name."""

    def __init__(self) -> None:
        self.count = 0
        self.sample: list[Manifest] = []

    def add(self, manifest: Manifest) -> None:
        self.count += 1
        if len(self.sample) < MAX_LISTED:
            self.sample.append(manifest)


def _by_pool(run: RunIndex) -> dict[tuple[str, str], _Side]:
    """(pool, side) -> its workloads; built once per run so each lookup is O(1)."""
    index: dict[tuple[str, str], _Side] = {}
    for manifest in run.workloads:
        assert isinstance(manifest.model, Workload)
        pool, side = manifest.model.spec.resources.pool, _side(manifest.model)
        if pool and side:
            index.setdefault((pool, side), _Side()).add(manifest)
    return index


def prepare(run: RunIndex) -> None:
    run.shared("pool.index", _by_pool)


def compute(manifest: Manifest, run: RunIndex) -> dict[str, Any]:
    workload = manifest.model
    assert isinstance(workload, Workload)
    pool, side = workload.spec.resources.pool, _side(workload)
    other = None
    if pool and side:
        opposite = "serving" if side == "training" else "training"
        other = run.shared("pool.index", _by_pool).get((pool, opposite))
    return {
        "name": pool,
        "side": side,
        "conflictCount": other.count if other else 0,
        # a sample, not all: in a large repository a shared pool can hold thousands of workloads
        "conflicts": [_reference(m, pool) for m in other.sample] if other and pool else [],
    }


def _reference(other: Manifest, pool: str) -> dict[str, Any]:
    assert isinstance(other.model, Workload)
    return {
        "file": other.file,
        "document": other.index,
        "path": "spec.resources.pool",
        "name": other.name,
        "profile": other.model.spec.profile,
        "message": f"{other.model.spec.profile} workload {other.name} in pool {pool}",
    }
