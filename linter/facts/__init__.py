"""Facts: what gpulint computes about each workload, for rules and for ``gpulint facts``.

A fact provider is a function ``(manifest, run) -> dict`` registered in PROVIDERS below; its result
is visible to rules as ``facts.<name>``. Keys are camelCase like the manifest. Providers may look
across the whole run (all workloads and ledgers) through ``RunIndex``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from linter.facts import cost, memory, pool, quota, residency, resources
from linter.facts.run import RunIndex
from linter.formats.manifest import Manifest

FactProvider = Callable[[Manifest, RunIndex], dict[str, Any]]

PROVIDERS: dict[str, FactProvider] = {
    "resources": resources.compute,
    "memory": memory.compute,
    "quota": quota.compute,
    "pool": pool.compute,
    "cost": cost.compute,
    "residency": residency.compute,
}


def prepare(run: RunIndex) -> None:
    """Build the run-wide indices facts share (quota draws and ledgers, pools) up front, so
    worker processes inherit them instead of each building its own."""
    pool.prepare(run)
    quota.prepare(run)


def compute_facts(manifest: Manifest, run: RunIndex) -> dict[str, Any]:
    """Every registered fact for one workload (other kinds have none)."""
    if manifest.kind != "Workload":
        return {}
    return {name: provider(manifest, run) for name, provider in PROVIDERS.items()}


__all__ = ["PROVIDERS", "FactProvider", "RunIndex", "compute_facts", "prepare"]
