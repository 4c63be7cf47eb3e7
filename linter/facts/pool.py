"""The ``pool`` fact: other workloads of the run on the same capacity pool with the opposite
utilisation profile (training and fine-tuning against inference)."""

from __future__ import annotations

from typing import Any

from linter.documents import Manifest
from linter.facts.run import RunIndex
from linter.model import Workload

TRAINING = frozenset({"training", "fine-tuning"})


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
    conflicts = []
    if pool and side:
        for other in run.shared("pool.index", _by_pool).get(pool, []):
            assert isinstance(other.model, Workload)
            other_side = _side(other.model)
            if other_side and other_side != side:
                conflicts.append({
                    "file": other.file,
                    "document": other.index,
                    "path": "spec.resources.pool",
                    "name": other.name,
                    "profile": other.model.spec.profile,
                    "message": f"{other.model.spec.profile} workload {other.name} in pool {pool}",
                })
    return {"name": pool, "side": side, "conflicts": conflicts}
