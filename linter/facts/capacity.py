"""The ``capacity`` fact: the queues, namespaces and node pools (``CapacityLimit`` documents) a
workload draws GPUs from, what all workloads of the run drawing on each need together, and what
each allows at once. A CapacityLimit has the same fact, seen from the limit: the workloads that
draw on it.

Which workloads draw on a limit:

- ``queue``: a workload in a ``localQueue``'s namespace carrying its ``matchLabels`` is admitted
  to the queue that localQueue names (Kueue: label ``kueue.x-k8s.io/queue-name`` -> LocalQueue in
  the workload's namespace -> ClusterQueue).
- ``namespace``: a workload in that namespace. Both sides must name it: an object without
  ``metadata.namespace`` lands wherever it is applied, which the files do not say.
- ``nodePool``: a workload whose ``resources.pool`` is the pool's name or one of its
  ``matchPools``.

A limit declared more than once in the run (the same object for several clusters, or a base and
its overlay) is not judged: which one applies is decided where they are applied. A workload draws
the GPUs of its vendor (GPU catalogue) and only when its GPU count is known: every replica's,
and one replica alone must fit what one admission may take (Kueue admits a workload to one flavor).

What a limit allows at once: the sum of its entries for the vendor; a queue in a cohort may add
its ``borrowingLimit``, or without one what the cohort's other queues in the run lend (their
``lendingLimit``, else their whole quota). A queue covers only the GPUs it lists: a vendor it does
not list is a limit of 0. Every index is built once per run; a workload costs O(its limits).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from pydantic import Field

from linter.facts.base import MAX_LISTED, Fact, Tally, listing, plural
from linter.facts.placement import Placement, resolve_placement
from linter.facts.pool import Reference
from linter.facts.run import RunIndex
from linter.facts.subject import Subject
from linter.formats.manifest import Manifest
from linter.load.positions import Path, format_path
from linter.model import CapacityLimit, Workload
from linter.model.capacity_limit import Limit

Scope = Literal["queue", "namespace", "nodePool"]

#: What happens to the workloads beyond a limit, and to a replica larger than it, per scope.
OUTCOME: dict[str, tuple[str, str]] = {
    "queue": (
        "the queue admits them in turn and keeps the rest suspended until quota frees up",
        "the queue never admits it",
    ),
    "namespace": (
        "pods beyond the quota are refused at creation (exceeded quota)",
        "its pods can never all be created",
    ),
    "nodePool": (
        "no nodes are provisioned beyond the limit, so the rest of the pods stay Pending",
        "its pods can never all be scheduled",
    ),
}
#: How a limit of each scope is named when its file does not name its kind (gpulint's format).
SCOPE_TEXT = {
    "queue": "queue",
    "localQueue": "local queue",
    "namespace": "namespace quota",
    "nodePool": "node pool",
}


class CapacityDraw(Fact):
    """One limit and the workloads of the run drawing on it, for one vendor's GPUs."""

    scope: Scope
    limit: str = Field(description="The limit, for messages: 'ClusterQueue team-a'.")
    via: str | None = Field(
        description="How the workload reaches it ('LocalQueue ml/team-queue'); null otherwise."
    )
    vendor: str = Field(description="Whose GPUs are counted: nvidia, amd.")
    allowed: float = Field(description="Most GPUs the workloads drawing on it may hold at once.")
    allowed_text: str = Field(description="'8 nvidia GPUs'.")
    source_text: str = Field(
        description="Where that comes from, in the limit's own words: 'nominalQuota of "
        "nvidia.com/gpu in flavor h100: 8'."
    )
    single_allowed: float = Field(
        description="Most GPUs one replica may get (a queue admits a workload to one flavor)."
    )
    needed: float = Field(description="What every workload of the run drawing on it needs.")
    needed_text: str = Field(description="'12 nvidia GPUs'.")
    single: float = Field(
        description="GPUs of one replica of this workload; on a limit, of the largest replica "
        "drawing on it."
    )
    single_text: str = Field(description="'1 nvidia GPU'.")
    single_name: str = Field(description="The workload 'single' is of.")
    workload_count: int
    workloads_text: str = Field(description="'train-a with 8 and train-b with 4'.")
    outcome_text: str = Field(description="What happens to the workloads beyond the limit.")
    never_text: str = Field(description="What happens to a replica larger than the limit.")
    path: str = Field(
        description="Where a finding on this document points: the workload's label, namespace "
        "or pool; on a limit, its GPUs."
    )
    related: list[Reference] = Field(
        description=f"The limit (and the local queue), or on a limit the first {MAX_LISTED} "
        "workloads."
    )


class CapacityFact(Fact):
    draws: list[CapacityDraw]
    ambiguous: list[str] = Field(
        description="Limits it draws on that the run declares more than once (several clusters "
        "or overlays): not judged."
    )


@dataclass(frozen=True)
class _Link:
    """A workload drawing on a limit: through which local queue, and at which of its fields."""

    limit: Manifest
    via: Manifest | None
    path: Path


@dataclass
class _Demand:
    """The workloads drawing one vendor's GPUs from one limit."""

    tally: Tally[tuple[Manifest, float, Path]] = field(default_factory=Tally)
    largest: float = 0.0
    largest_name: str = ""

    def add(self, workload: Manifest, gpus: float, single: float, path: Path) -> None:
        self.tally.add((workload, gpus, path), gpus)
        if single > self.largest:
            self.largest, self.largest_name = single, workload.name


_Identity = tuple[str, str | None, str]  # scope, namespace, name
_Position = tuple[str, int, int]  # file, document, part


@dataclass
class _Index:
    """Every CapacityLimit of the run by what selects it, and what the run's workloads draw."""

    queues: dict[str, list[Manifest]] = field(default_factory=dict)
    local_queues: dict[tuple[str, str, str], list[Manifest]] = field(default_factory=dict)
    namespaces: dict[str, list[Manifest]] = field(default_factory=dict)
    pools: dict[str, list[Manifest]] = field(default_factory=dict)
    declared: dict[_Identity, int] = field(default_factory=dict)
    #: (cohort, flavor, vendor) -> what the cohort's queues lend together ("": no cohort).
    lendable: dict[tuple[str, str | None, str], float] = field(default_factory=dict)
    #: limit -> vendor -> what the run's workloads draw from it.
    demand: dict[_Position, dict[str, _Demand]] = field(default_factory=dict)


def _limit(manifest: Manifest) -> CapacityLimit:
    assert isinstance(manifest.model, CapacityLimit)
    return manifest.model


def _identity(manifest: Manifest) -> _Identity:
    model = _limit(manifest)
    return model.spec.scope, model.metadata.namespace, model.metadata.name


def _lends(entry: Limit) -> float:
    return entry.gpus if entry.lending_limit is None else entry.lending_limit


def _build(run: RunIndex) -> _Index:
    index = _Index()
    for manifest in run.capacity_limits:
        model = _limit(manifest)
        spec, namespace = model.spec, model.metadata.namespace
        identity = _identity(manifest)
        index.declared[identity] = index.declared.get(identity, 0) + 1
        if spec.scope == "queue":
            index.queues.setdefault(model.metadata.name, []).append(manifest)
            for entry in spec.limits:
                key = (spec.cohort or "", entry.flavor, entry.vendor)
                index.lendable[key] = index.lendable.get(key, 0.0) + _lends(entry)
        elif spec.scope == "localQueue" and namespace:
            for label in spec.match_labels.items():
                index.local_queues.setdefault((namespace, *label), []).append(manifest)
        elif spec.scope == "namespace" and namespace:
            index.namespaces.setdefault(namespace, []).append(manifest)
        elif spec.scope == "nodePool":
            for pool in {model.metadata.name, *spec.match_pools}:
                index.pools.setdefault(pool, []).append(manifest)
    for workload in run.workloads:
        assert isinstance(workload.model, Workload)
        need = _need(resolve_placement(workload.model))
        if need is None:
            continue
        vendor, gpus, single = need
        for link in _links(workload, index, []):
            by_vendor = index.demand.setdefault(_position(link.limit), {})
            by_vendor.setdefault(vendor, _Demand()).add(workload, gpus, single, link.path)
    return index


def _position(manifest: Manifest) -> _Position:
    return manifest.file, manifest.index, manifest.part


def _need(where: Placement) -> tuple[str, float, float] | None:
    """A workload's GPU vendor, GPUs across replicas and GPUs of one replica, when known."""
    if where.gpu is None or not where.total_gpus or where.gpus_per_replica is None:
        return None
    return where.gpu.vendor, where.total_gpus, where.gpus_per_replica


def _links(workload: Manifest, index: _Index, ambiguous: list[str]) -> Iterator[_Link]:
    """The limits a workload draws on; those declared more than once go to ``ambiguous``."""
    assert isinstance(workload.model, Workload)
    metadata, pool = workload.model.metadata, workload.model.spec.resources.pool

    def judged(manifest: Manifest) -> bool:
        if index.declared[_identity(manifest)] == 1:
            return True
        ambiguous.append(_name(manifest))
        return False

    if metadata.namespace:
        for label in metadata.labels.items():
            for local in index.local_queues.get((metadata.namespace, *label), []):
                queue = _limit(local).spec.cluster_queue
                for limit in index.queues.get(queue or "", []) if judged(local) else []:
                    if judged(limit):
                        yield _Link(limit, local, ("metadata", "labels", label[0]))
        for quota in index.namespaces.get(metadata.namespace, []):
            if judged(quota):
                yield _Link(quota, None, ("metadata", "namespace"))
    for node_pool in index.pools.get(pool or "", []):
        if judged(node_pool):
            yield _Link(node_pool, None, ("spec", "resources", "pool"))


def _name(manifest: Manifest) -> str:
    """'ClusterQueue team-a', 'ResourceQuota gpus in namespace ml', 'LocalQueue ml/team-queue'."""
    model = _limit(manifest)
    kind = manifest.source_kind or SCOPE_TEXT[model.spec.scope]
    namespace = model.metadata.namespace
    if model.spec.scope == "localQueue" and namespace:
        return f"{kind} {namespace}/{model.metadata.name}"
    if model.spec.scope == "namespace" and namespace:
        return f"{kind} {model.metadata.name} in namespace {namespace}"
    return f"{kind} {model.metadata.name}"


@dataclass(frozen=True)
class _Allowance:
    """What a limit allows of one vendor's GPUs, and where it points."""

    allowed: float
    single: float
    text: str
    path: Path


def _allowance(manifest: Manifest, vendor: str, index: _Index) -> _Allowance | None:
    model = _limit(manifest)
    spec, names = model.spec, manifest.provenance
    numbered = [(n, e) for n, e in enumerate(spec.limits) if e.vendor == vendor]
    if not numbered:
        if spec.scope != "queue":
            return None
        return _Allowance(0.0, 0.0, f"it covers no {vendor} GPUs", ("spec", "limits"))
    parts, shares = [], []
    for number, entry in numbered:
        at: Path = ("spec", "limits", number)
        parts.append(f"{names.name((*at, 'gpus'))}: {entry.gpus:g}")
        extra = 0.0
        if entry.borrowing_limit is not None:
            extra = entry.borrowing_limit
            parts.append(f"{names.name((*at, 'borrowingLimit'))}: {extra:g}")
        elif spec.cohort:
            lent = index.lendable[(spec.cohort, entry.flavor, vendor)] - _lends(entry)
            extra = max(0.0, lent)
            if extra:
                parts.append(f"lent by the other queues of cohort {spec.cohort} here: {extra:g}")
        shares.append(entry.gpus + extra)
    first: Path = ("spec", "limits", numbered[0][0], "gpus")
    return _Allowance(sum(shares), max(shares), ", ".join(parts), first)


def prepare(run: RunIndex) -> None:
    run.shared("capacity.index", _build)


def compute(subject: Subject) -> CapacityFact:
    index = subject.run.shared("capacity.index", _build)
    if isinstance(subject.manifest.model, CapacityLimit):
        return CapacityFact(draws=_limit_draws(subject.manifest, index), ambiguous=[])
    need = _need(subject.placement)
    ambiguous: list[str] = []
    draws = []
    if need is not None:
        vendor, _, single = need
        for link in _links(subject.manifest, index, ambiguous):
            draw = _draw(link.limit, vendor, index, (subject.manifest, link, single))
            if draw is not None:
                draws.append(draw)
    return CapacityFact(draws=draws, ambiguous=sorted(set(ambiguous)))


def _limit_draws(manifest: Manifest, index: _Index) -> list[CapacityDraw]:
    """On a limit: one draw per vendor it limits or that workloads draw from it."""
    if index.declared[_identity(manifest)] > 1:
        return []
    vendors: set[str] = {entry.vendor for entry in _limit(manifest).spec.limits}
    vendors |= set(index.demand.get(_position(manifest), {}))
    draws = (_draw(manifest, vendor, index) for vendor in sorted(vendors))
    return [draw for draw in draws if draw is not None]


def _draw(
    limit: Manifest,
    vendor: str,
    index: _Index,
    seen_from: tuple[Manifest, _Link, float] | None = None,
) -> CapacityDraw | None:
    """The draw as a workload sees it (``seen_from``: the workload, its link and one replica's
    GPUs) or, without one, as the limit does."""
    allowance = _allowance(limit, vendor, index)
    if allowance is None:
        return None
    demand = index.demand.get(_position(limit), {}).get(vendor, _Demand())
    scope = _limit(limit).spec.scope
    assert scope != "localQueue"
    outcome, never = OUTCOME[scope]
    noun = f"{vendor} GPU"
    shown = [f"{m.name} with {gpus:g}" for m, gpus, _ in demand.tally.sample]
    via = None
    if seen_from is not None:
        workload, link, single = seen_from
        single_name, path, via = workload.name, link.path, link.via
        message = f"{_name(limit)} allows {plural(allowance.allowed, noun)} ({allowance.text})"
        related = [_reference(limit, allowance.path, message)]
        if via is not None:
            message = f"{_name(via)} submits to {_name(limit)}"
            related.append(_reference(via, ("spec", "clusterQueue"), message))
    else:
        single, single_name, path = demand.largest, demand.largest_name, allowance.path
        related = [
            _reference(m, where, f"{m.name} needs {plural(gpus, noun)}")
            for m, gpus, where in demand.tally.sample
        ]
    return CapacityDraw(
        scope=scope,
        limit=_name(limit),
        via=None if via is None else _name(via),
        vendor=vendor,
        allowed=allowance.allowed,
        allowed_text=plural(allowance.allowed, noun),
        source_text=allowance.text,
        single_allowed=allowance.single,
        needed=demand.tally.total,
        needed_text=plural(demand.tally.total, noun),
        single=single,
        single_text=plural(single, noun),
        single_name=single_name,
        workload_count=demand.tally.count,
        workloads_text=listing(shown, demand.tally.count),
        outcome_text=outcome,
        never_text=never,
        path=format_path(path),
        related=related,
    )


def _reference(manifest: Manifest, path: Path, message: str) -> Reference:
    return Reference(
        file=manifest.file,
        document=manifest.index,
        part=manifest.part,
        path=format_path(path),
        message=message,
    )
