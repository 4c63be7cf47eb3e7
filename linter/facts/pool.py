"""The ``pool`` fact: other workloads of the run on the same capacity pool with the opposite
utilisation profile (training and fine-tuning against inference)."""

from __future__ import annotations

from typing import Any

from linter.documents import Manifest
from linter.facts.run import RunIndex
from linter.model import Workload

TRAINING = frozenset({"training", "fine-tuning"})
MAX_LISTED = 5


def _side(workload: Workload) -> str | None:
    profile = workload.spec.profile
    if profile in TRAINING:
        return "training"
    return "serving" if profile == "inference" else None


def _by_pool(run: RunIndex) -> dict[str, list[Manifest]]:
    index: dict[str, list[Manifest]] = {}
    for manifest in run.workloads:
        assert isinstance(manifest.model, Workload)
        pool = manifest.model.spec.resources.pool
        if pool:
            index.setdefault(pool, []).append(manifest)
    return index


def compute(manifest: Manifest, run: RunIndex) -> dict[str, Any]:
    workload = manifest.model
    assert isinstance(workload, Workload)
    pool, side = workload.spec.resources.pool, _side(workload)
    others: list[Manifest] = []
    if pool and side:
        for other in run.shared("pool.index", _by_pool).get(pool, []):
            assert isinstance(other.model, Workload)
            other_side = _side(other.model)
            if other_side and other_side != side:
                others.append(other)
    return {
        "name": pool,
        "side": side,
        "conflictCount": len(others),
        # a sample, not all: in a large repository a shared pool can hold thousands of workloads
        "conflicts": [_reference(other, pool) for other in others[:MAX_LISTED]],
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
