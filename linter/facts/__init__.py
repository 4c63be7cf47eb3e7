"""Facts: what gpulint computes about each workload, for rules and for ``gpulint facts``.

A provider turns a workload (:class:`Subject`) into one typed fact model; rules read it as
``facts.<name>``. Providers are registered below, the one list of them. Facts are computed
lazily: a run whose selected rules never read ``facts.memory`` never sizes memory. Providers may
look across the whole run (pools, quota totals) through ``RunIndex``, whose indices are built
once per run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from linter.facts import (
    candidates,
    cost,
    memory,
    names,
    pool,
    quota,
    recovery,
    residency,
    resources,
)
from linter.facts.base import Fact
from linter.facts.run import RunIndex
from linter.facts.subject import Subject
from linter.formats.manifest import Manifest


@dataclass(frozen=True)
class Provider:
    model: type[Fact]
    compute: Callable[[Subject], Fact]
    #: Normalised workload paths (prefixes) the provider reads: a message relying on a fact
    #: built from an assumed value names the assumption.
    reads: tuple[str, ...]


PROVIDERS: dict[str, Provider] = {
    "resources": Provider(
        resources.ResourcesFact, resources.compute, ("spec.resources", "spec.serving.replicas")
    ),
    "memory": Provider(
        memory.MemoryFact,
        memory.compute,
        ("spec.model", "spec.serving", "spec.fineTuning", "spec.resources"),
    ),
    "candidates": Provider(
        candidates.CandidatesFact,
        candidates.compute,
        ("spec.model", "spec.serving", "spec.fineTuning", "spec.resources"),
    ),
    "recovery": Provider(
        recovery.RecoveryFact, recovery.compute, ("spec.checkpointing", "spec.lifecycle")
    ),
    "quota": Provider(
        quota.QuotaFact,
        quota.compute,
        ("spec.resources", "spec.serving.replicas", "spec.endpoints"),
    ),
    "pool": Provider(pool.PoolFact, pool.compute, ("spec.profile", "spec.resources.pool")),
    "cost": Provider(
        cost.CostFact,
        cost.compute,
        ("spec.resources", "spec.serving", "spec.lifecycle", "spec.model.id"),
    ),
    "residency": Provider(
        residency.ResidencyFact,
        residency.compute,
        ("spec.resources", "spec.endpoints", "spec.data"),
    ),
    "names": Provider(names.NamesFact, names.compute, ()),
}


def prepare(run: RunIndex) -> None:
    """Build the run-wide indices facts share (quota draws and ledgers, pools) up front, so
    worker processes inherit them instead of each building its own."""
    pool.prepare(run)
    quota.prepare(run)


class Facts(Mapping[str, Any]):
    """The facts of one workload, as rules read them: each provider runs on first access and its
    result is kept as plain data. Other kinds (QuotaLedger) have no facts."""

    def __init__(self, manifest: Manifest, run: RunIndex) -> None:
        self._subject = Subject(manifest, run) if manifest.kind == "Workload" else None
        self._models: dict[str, Fact] = {}
        self._data: dict[str, Any] = {}

    def model(self, name: str) -> Fact:
        if self._subject is None:
            raise KeyError(name)
        if name not in self._models:
            self._models[name] = PROVIDERS[name].compute(self._subject)
        return self._models[name]

    def __getitem__(self, name: str) -> Any:
        if name not in self._data:
            if name not in PROVIDERS:
                raise KeyError(name)
            self._data[name] = self.model(name).as_data()
        return self._data[name]

    def __iter__(self) -> Iterator[str]:
        return iter(PROVIDERS if self._subject is not None else ())

    def __len__(self) -> int:
        return len(PROVIDERS) if self._subject is not None else 0


def compute_facts(manifest: Manifest, run: RunIndex) -> dict[str, Any]:
    """Every fact of one workload as plain data (``gpulint facts``)."""
    facts = Facts(manifest, run)
    return {name: facts[name] for name in facts}


__all__ = ["PROVIDERS", "Facts", "Provider", "RunIndex", "compute_facts", "prepare"]
