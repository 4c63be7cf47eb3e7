"""Facts: what gpulint computes about each workload, for rules and for ``gpulint facts``.

A provider turns a workload into one typed fact model; rules read it as ``facts.<name>``.
Providers are registered below, the one list of them. Most are local: computed from the workload
alone (:class:`Subject`), lazily, so a run whose rules never read ``facts.memory`` never sizes
memory. Run-wide providers (a pool shared across files, quotas the run's workloads draw on
together) have a :class:`~linter.facts.run.RunSide` instead: a small record of each manifest,
an index built once from all records, and the fact read from both. Rules that read a run-wide
fact are evaluated once every file has been read (linter/run/runner.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from linter.facts import (
    candidates,
    capacity,
    cost,
    environment,
    landing,
    memory,
    names,
    parallelism,
    pool,
    quota,
    recovery,
    residency,
    resources,
    scaling,
    spend,
    storage,
    unpinned,
)
from linter.facts.base import Fact
from linter.facts.run import RunIndex, RunInputs, RunSide, Target
from linter.facts.subject import Subject
from linter.model.manifest import Manifest
from linter.records import datarecord

if TYPE_CHECKING:
    from linter.memory.calibration import Calibration


@datarecord
class Provider:
    model: type[Fact]
    #: Normalised workload paths (prefixes) the provider reads: a message relying on a fact
    #: built from an assumed value names the assumption.
    reads: tuple[str, ...]
    compute: Callable[[Subject], Fact] | None = None  # a local provider
    run: RunSide | None = None  # a run-wide provider
    #: The manifest kinds it gives a fact for.
    kinds: tuple[str, ...] = ("Workload",)


#: What a memory estimate reads: the facts that size a model on GPUs all depend on these.
_SIZING_INPUTS = ("spec.model", "spec.serving", "spec.fineTuning", "spec.resources")

PROVIDERS: dict[str, Provider] = {
    "resources": Provider(
        resources.ResourcesFact, ("spec.resources", "spec.serving.replicas"), resources.compute
    ),
    "memory": Provider(
        memory.MemoryFact,
        _SIZING_INPUTS,
        memory.compute,
    ),
    "candidates": Provider(
        candidates.CandidatesFact,
        _SIZING_INPUTS,
        candidates.compute,
    ),
    "unpinned": Provider(
        unpinned.UnpinnedFact,
        _SIZING_INPUTS,
        unpinned.compute,
    ),
    "landing": Provider(
        landing.LandingFact,
        _SIZING_INPUTS,
        run=landing.RUN,
        kinds=("Workload", "CapacityLimit"),
    ),
    "recovery": Provider(
        recovery.RecoveryFact, ("spec.checkpointing", "spec.lifecycle"), recovery.compute
    ),
    "quota": Provider(
        quota.QuotaFact,
        ("spec.resources", "spec.serving.replicas", "spec.endpoints"),
        run=quota.RUN,
    ),
    "pool": Provider(pool.PoolFact, ("spec.profile", "spec.resources.pool"), run=pool.RUN),
    "cost": Provider(
        cost.CostFact,
        ("spec.resources", "spec.serving", "spec.lifecycle", "spec.model.id", "spec.data"),
        cost.compute,
    ),
    "spend": Provider(
        spend.SpendFact,
        (
            "metadata.labels",
            "spec.resources",
            "spec.serving",
            "spec.lifecycle",
            "spec.profile",
        ),
        run=spend.RUN,
    ),
    "residency": Provider(
        residency.ResidencyFact,
        ("spec.resources", "spec.endpoints", "spec.data"),
        residency.compute,
    ),
    "names": Provider(names.NamesFact, (), names.compute),
    "parallelism": Provider(
        parallelism.ParallelismFact,
        ("spec.serving", "spec.resources", "spec.lifecycle"),
        parallelism.compute,
    ),
    "storage": Provider(storage.StorageFact, ("spec.model",), storage.compute),
    "environment": Provider(environment.EnvironmentFact, ("metadata",), environment.compute),
    "capacity": Provider(
        capacity.CapacityFact,
        ("metadata", "spec.resources", "spec.serving.replicas"),
        run=capacity.RUN,
        kinds=("Workload", "CapacityLimit"),
    ),
    "scaling": Provider(scaling.ScalingFact, ("metadata", "spec.profile"), run=scaling.RUN),
}

RUN_WIDE = frozenset(name for name, provider in PROVIDERS.items() if provider.run is not None)


def run_sides() -> dict[str, RunSide]:
    return {name: p.run for name, p in PROVIDERS.items() if p.run is not None}


def records(manifest: Manifest, known: Mapping[str, Fact] | None = None) -> dict[str, Any]:
    """What each run-wide provider records of one manifest (plain data; None: nothing), reusing
    the local facts already ``known`` of it (:attr:`Facts.computed`)."""
    known = known or {}
    return {name: side.record(manifest, known) for name, side in run_sides().items()}


def target(manifest: Manifest) -> Target:
    return (manifest.file, manifest.index, manifest.part)


def run_index(manifests: Sequence[Manifest], inputs: RunInputs | None = None) -> RunIndex:
    """A run's index from manifests in memory (``gpulint facts``, tests): the records each
    would make while its file is read."""
    index = RunIndex(run_sides(), inputs)
    for manifest in manifests:
        index.add(target(manifest), records(manifest))
    return index


class Facts(Mapping[str, Any]):
    """The facts of one manifest, as rules read them: each provider registered for its kind runs
    on first access and its result is kept as plain data (a QuotaLedger has none; a
    CapacityLimit has ``capacity``). Run-wide facts need the run's index (``run``); without one
    (while files are still being read) reading them is an error."""

    def __init__(
        self,
        manifest: Manifest,
        run: RunIndex | None = None,
        default_residency: Sequence[str] = (),
        calibration: Calibration | None = None,
    ) -> None:
        self._manifest = manifest
        self._subject = Subject(manifest, default_residency, calibration)
        self._providers = {n: p for n, p in PROVIDERS.items() if manifest.kind in p.kinds}
        self._run = run
        self._models: dict[str, Fact] = {}
        self._data: dict[str, Any] = {}

    def model(self, name: str) -> Fact:
        if name not in self._models:
            provider = self._providers[name]
            if provider.compute is not None:
                self._models[name] = provider.compute(self._subject)
            elif self._run is not None and provider.run is not None:
                record = provider.run.record(self._manifest, self._models)
                self._models[name] = self._run.fact(name, record)
            else:
                raise KeyError(f"{name} is a run-wide fact, known once every file is read")
        return self._models[name]

    @property
    def computed(self) -> Mapping[str, Fact]:
        """The facts computed so far (name -> model), for records to reuse."""
        return self._models

    def __getitem__(self, name: str) -> Any:
        if name not in self._data:
            self._data[name] = self.model(name).as_data()
        return self._data[name]

    def __contains__(self, name: object) -> bool:
        """Whether the manifest's kind has that fact; answered without computing it."""
        return name in self._providers

    def __iter__(self) -> Iterator[str]:
        return iter(self._providers)

    def __len__(self) -> int:
        return len(self._providers)


def compute_facts(
    manifest: Manifest, run: RunIndex, default_residency: Sequence[str] = ()
) -> dict[str, Any]:
    """Every fact of one workload as plain data (``gpulint facts``)."""
    facts = Facts(manifest, run, default_residency)
    return {name: facts[name] for name in facts}


__all__ = [
    "PROVIDERS",
    "RUN_WIDE",
    "Facts",
    "Provider",
    "RunIndex",
    "RunInputs",
    "compute_facts",
    "records",
    "run_index",
    "target",
]
