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
  ``matchPools``; not the workload read from the same document as the limit (a Terraform node
  pool is both: the capacity, and the limit on what selects it).

A limit declared more than once in the run (the same object for several clusters, or a base and
its overlay) is not judged: which one applies is decided where they are applied. A workload draws
the GPUs of its vendor (GPU catalogue) and only when its GPU count is known: every replica's,
and one replica alone must fit what one admission may take (Kueue admits a workload to one flavor).

What a limit allows at once: the sum of its entries for the vendor; a queue in a cohort may add
its ``borrowingLimit``, or without one what the cohort's other queues in the run lend (their
``lendingLimit``, else their whole quota). A queue covers only the GPUs it lists: a vendor it does
not list is a limit of 0. Every index is built once per run; a workload costs O(its limits).
"""

from collections.abc import Iterator, Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any, Literal, cast

from linter.facts.base import Fact, Tally, described, plural
from linter.facts.placement import resolve_placement
from linter.facts.pool import Reference
from linter.facts.run import Records, RunInputs, RunSide, Target
from linter.load.positions import Path, format_path
from linter.model import Workload
from linter.model.manifest import Manifest
from linter.records import datarecord
from linter.wording import MAX_LISTED, listing

if TYPE_CHECKING:  # defined when a run first reads one (linter.model.kind_model)
    from linter.model.capacity_limit import CapacityLimit

Scope = Literal["queue", "namespace", "nodePool"]

#: How a limit of each scope is named when its file does not name its kind (gpulint's format).
SCOPE_TEXT = {
    "queue": "queue",
    "localQueue": "local queue",
    "namespace": "namespace quota",
    "nodePool": "node pool",
    "flavor": "flavor",
}


class CapacityDraw(Fact):
    """One limit and the workloads of the run drawing on it, for one vendor's GPUs."""

    scope: Scope
    limit: str = described("The limit, for messages: 'ClusterQueue team-a'.")
    via: str | None = described(
        "How the workload reaches it ('LocalQueue ml/team-queue'); null otherwise."
    )
    vendor: str = described("Whose GPUs are counted: nvidia, amd.")
    allowed: float = described("Most GPUs the workloads drawing on it may hold at once.")
    source_text: str = described(
        "Where that comes from, in the limit's own words: 'nominalQuota of "
        "nvidia.com/gpu in flavor h100: 8'."
    )
    single_allowed: float = described(
        "Most GPUs one replica may get (a queue admits a workload to one flavor)."
    )
    needed: float = described("What every workload of the run drawing on it needs.")
    single: float = described(
        "GPUs of one replica of this workload; on a limit, of the largest replica drawing on it."
    )
    single_name: str = described("The workload 'single' is of.")
    workload_count: int
    workloads_text: str = described("'train-a with 8 and train-b with 4'.")
    path: str = described(
        "Where a finding on this document points: the workload's label, namespace "
        "or pool; on a limit, its GPUs."
    )
    related: list[Reference] = described(
        f"The limit (and the local queue), or on a limit the first {MAX_LISTED} workloads."
    )


class CapacityFact(Fact):
    draws: list[CapacityDraw]
    ambiguous: list[str] = described(
        "Limits it draws on that the run declares more than once (several clusters "
        "or overlays): not judged."
    )


# -- records (per manifest, while its file is read) -----------------------------------------


def record(manifest: Manifest, _known: Mapping[str, Fact]) -> dict[str, Any] | None:
    """A limit's scope, selectors and entries, or a workload's selectors and GPUs."""
    target = [manifest.file, manifest.index, manifest.part]
    if manifest.kind == "CapacityLimit":
        model = cast("CapacityLimit", manifest.model)
        spec, names = model.spec, manifest.provenance
        entries = []
        for number, entry in enumerate(spec.limits):
            at: Path = ("spec", "limits", number)
            entries.append(
                {
                    "vendor": entry.vendor,
                    "flavor": entry.flavor,
                    "gpus": entry.gpus,
                    "borrowingLimit": entry.borrowing_limit,
                    "lendingLimit": entry.lending_limit,
                    "gpusName": names.name((*at, "gpus")),
                    "borrowingName": names.name((*at, "borrowingLimit")),
                }
            )
        return {
            "target": target,
            "limit": {
                "scope": spec.scope,
                "namespace": model.metadata.namespace,
                "name": model.metadata.name,
                "cohort": spec.cohort,
                "clusterQueue": spec.cluster_queue,
                "matchLabels": dict(spec.match_labels),
                "matchPools": list(spec.match_pools),
                "display": _name(manifest),
                "entries": entries,
            },
        }
    if not isinstance(manifest.model, Workload):
        return None
    workload = manifest.model
    where = resolve_placement(workload)
    need = None
    # A GPU known only by its memory is sized as some GPU with that memory, but whose GPUs it
    # draws (nvidia.com/gpu or amd.com/gpu) is not known.
    known = where.gpu is not None and where.memory_gib is None
    if known and where.total_gpus and where.gpus_per_replica is not None:
        assert where.gpu is not None
        need = [where.gpu.vendor, where.total_gpus, where.gpus_per_replica]
    return {
        "target": target,
        "workload": {
            "name": manifest.name,
            "namespace": workload.metadata.namespace,
            "labels": dict(workload.metadata.labels),
            "pool": workload.spec.resources.pool,
            "need": need,
        },
    }


def _name(manifest: Manifest) -> str:
    """'ClusterQueue team-a', 'ResourceQuota gpus in namespace ml', 'LocalQueue ml/team-queue'."""
    assert manifest.kind == "CapacityLimit"
    model = cast("CapacityLimit", manifest.model)
    kind = manifest.source_kind or SCOPE_TEXT[model.spec.scope]
    namespace = model.metadata.namespace
    if model.spec.scope == "localQueue" and namespace:
        return f"{kind} {namespace}/{model.metadata.name}"
    if model.spec.scope == "namespace" and namespace:
        return f"{kind} {model.metadata.name} in namespace {namespace}"
    return f"{kind} {model.metadata.name}"


# -- the index (once per run) ----------------------------------------------------------------


@datarecord
class _Limit:
    """A CapacityLimit as the index knows it."""

    target: Target
    scope: str
    namespace: str | None
    name: str
    cohort: str | None
    cluster_queue: str | None
    display: str
    entries: tuple[dict[str, Any], ...]

    @property
    def identity(self) -> tuple[str, str | None, str]:
        return self.scope, self.namespace, self.name


@datarecord
class _Link:
    """A workload drawing on a limit: through which local queue, and at which of its fields."""

    limit: _Limit
    via: _Limit | None
    path: Path


@datarecord
class _Drawer:
    """A workload drawing on a limit, as a related location names it."""

    name: str
    gpus: float
    target: Target
    path: Path


@datarecord(frozen=False)
class _Demand:
    """The workloads drawing one vendor's GPUs from one limit."""

    tally: Tally[_Drawer] = field(default_factory=Tally)
    largest: float = 0.0
    largest_name: str = ""

    def add(self, drawer: _Drawer, single: float) -> None:
        self.tally.add(drawer, drawer.gpus)
        if single > self.largest:
            self.largest, self.largest_name = single, drawer.name


@datarecord(frozen=False)
class CapacityIndex:
    """Every CapacityLimit of the run by what selects it, and what the run's workloads draw."""

    queues: dict[str, list[_Limit]] = field(default_factory=dict)
    local_queues: dict[tuple[str, str, str], list[_Limit]] = field(default_factory=dict)
    namespaces: dict[str, list[_Limit]] = field(default_factory=dict)
    pools: dict[str, list[_Limit]] = field(default_factory=dict)
    declared: dict[tuple[str, str | None, str], int] = field(default_factory=dict)
    #: (cohort, flavor, vendor) -> what the cohort's queues lend together ("": no cohort).
    lendable: dict[tuple[str, str | None, str], float] = field(default_factory=dict)
    #: limit -> vendor -> what the run's workloads draw from it.
    demand: dict[Target, dict[str, _Demand]] = field(default_factory=dict)
    limits: dict[Target, _Limit] = field(default_factory=dict)


def _lends(entry: dict[str, Any]) -> float:
    lending = entry["lendingLimit"]
    return float(entry["gpus"] if lending is None else lending)


def index(records: Records, _inputs: RunInputs) -> CapacityIndex:
    """The run's limits, then what its workloads draw on them (read again, only when there
    are limits: a run without any holds nothing per workload)."""
    out = CapacityIndex()
    for target, item in records:
        if "workload" in item:
            continue
        data = item["limit"]
        limit = _Limit(
            target,
            data["scope"],
            data["namespace"],
            data["name"],
            data["cohort"],
            data["clusterQueue"],
            data["display"],
            tuple(data["entries"]),
        )
        out.limits[target] = limit
        out.declared[limit.identity] = out.declared.get(limit.identity, 0) + 1
        if limit.scope == "queue":
            out.queues.setdefault(limit.name, []).append(limit)
            for entry in limit.entries:
                key = (limit.cohort or "", entry["flavor"], entry["vendor"])
                out.lendable[key] = out.lendable.get(key, 0.0) + _lends(entry)
        elif limit.scope == "localQueue" and limit.namespace:
            for label in data["matchLabels"].items():
                out.local_queues.setdefault((limit.namespace, *label), []).append(limit)
        elif limit.scope == "namespace" and limit.namespace:
            out.namespaces.setdefault(limit.namespace, []).append(limit)
        elif limit.scope == "nodePool":
            for pool in {limit.name, *data["matchPools"]}:
                out.pools.setdefault(pool, []).append(limit)
    for target, item in records if out.limits else ():
        workload = item.get("workload")
        if workload is None or workload["need"] is None:
            continue
        vendor, gpus, single = workload["need"]
        for link in _links(workload, out, []):
            if _own(link, target):
                continue
            by_vendor = out.demand.setdefault(link.limit.target, {})
            drawer = _Drawer(workload["name"], gpus, target, link.path)
            by_vendor.setdefault(vendor, _Demand()).add(drawer, single)
    return out


def _own(link: _Link, target: Target) -> bool:
    """A limit read from the workload's own document (a node pool: the capacity itself, and the
    limit on what selects it) is not one the workload draws on."""
    return tuple(link.limit.target[:2]) == tuple(target[:2])


def _links(workload: dict[str, Any], index: CapacityIndex, ambiguous: list[str]) -> Iterator[_Link]:
    """The limits a workload draws on; those declared more than once go to ``ambiguous``."""
    namespace, pool = workload["namespace"], workload["pool"]

    def judged(limit: _Limit) -> bool:
        if index.declared[limit.identity] == 1:
            return True
        ambiguous.append(limit.display)
        return False

    if namespace:
        for label in workload["labels"].items():
            for local in index.local_queues.get((namespace, *label), []):
                for limit in (
                    index.queues.get(local.cluster_queue or "", []) if judged(local) else []
                ):
                    if judged(limit):
                        yield _Link(limit, local, ("metadata", "labels", label[0]))
        for quota in index.namespaces.get(namespace, []):
            if judged(quota):
                yield _Link(quota, None, ("metadata", "namespace"))
    for node_pool in index.pools.get(pool or "", []):
        if judged(node_pool):
            yield _Link(node_pool, None, ("spec", "resources", "pool"))


# -- the fact ----------------------------------------------------------------------------------


@datarecord
class _Allowance:
    """What a limit allows of one vendor's GPUs, and where it points."""

    allowed: float
    single: float
    text: str
    path: Path


def _allowance(limit: _Limit, vendor: str, index: CapacityIndex) -> _Allowance | None:
    numbered = [(n, e) for n, e in enumerate(limit.entries) if e["vendor"] == vendor]
    if not numbered:
        if limit.scope != "queue":
            return None
        return _Allowance(0.0, 0.0, f"it covers no {vendor} GPUs", ("spec", "limits"))
    parts, shares = [], []
    for _, entry in numbered:
        parts.append(f"{entry['gpusName']}: {entry['gpus']:g}")
        extra = 0.0
        if entry["borrowingLimit"] is not None:
            extra = entry["borrowingLimit"]
            parts.append(f"{entry['borrowingName']}: {extra:g}")
        elif limit.cohort:
            lent = index.lendable[(limit.cohort, entry["flavor"], vendor)] - _lends(entry)
            extra = max(0.0, lent)
            if extra:
                parts.append(f"lent by the other queues of cohort {limit.cohort} here: {extra:g}")
        shares.append(entry["gpus"] + extra)
    first: Path = ("spec", "limits", numbered[0][0], "gpus")
    return _Allowance(sum(shares), max(shares), ", ".join(parts), first)


def fact(item: dict[str, Any] | None, capacity: CapacityIndex) -> CapacityFact:
    if item is None:
        return CapacityFact(draws=[], ambiguous=[])
    if "limit" in item:
        limit = capacity.limits[tuple(item["target"])]
        return CapacityFact(draws=_limit_draws(limit, capacity), ambiguous=[])
    workload = item["workload"]
    ambiguous: list[str] = []
    draws = []
    if workload["need"] is not None:
        vendor, _, single = workload["need"]
        for link in _links(workload, capacity, ambiguous):
            if _own(link, tuple(item["target"])):
                continue
            seen_from = (workload["name"], link, single)
            draw = _draw(link.limit, vendor, capacity, seen_from)
            if draw is not None:
                draws.append(draw)
    return CapacityFact(draws=draws, ambiguous=sorted(set(ambiguous)))


def _limit_draws(limit: _Limit, capacity: CapacityIndex) -> list[CapacityDraw]:
    """On a limit: one draw per vendor it limits or that workloads draw from it."""
    if capacity.declared[limit.identity] > 1:
        return []
    vendors: set[str] = {entry["vendor"] for entry in limit.entries}
    vendors |= set(capacity.demand.get(limit.target, {}))
    draws = (_draw(limit, vendor, capacity) for vendor in sorted(vendors))
    return [draw for draw in draws if draw is not None]


def _draw(
    limit: _Limit,
    vendor: str,
    capacity: CapacityIndex,
    seen_from: tuple[str, _Link, float] | None = None,
) -> CapacityDraw | None:
    """The draw as a workload sees it (``seen_from``: the workload's name, its link and one
    replica's GPUs) or, without one, as the limit does."""
    allowance = _allowance(limit, vendor, capacity)
    if allowance is None:
        return None
    demand = capacity.demand.get(limit.target, {}).get(vendor, _Demand())
    assert limit.scope != "localQueue"
    noun = f"{vendor} GPU"
    shown = [f"{d.name} with {d.gpus:g}" for d in demand.tally.sample]
    via = None
    if seen_from is not None:
        single_name, link, single = seen_from
        path, via = link.path, link.via
        message = f"{limit.display} allows {plural(allowance.allowed, noun)} ({allowance.text})"
        related = [_reference(limit.target, allowance.path, message)]
        if via is not None:
            message = f"{via.display} submits to {limit.display}"
            related.append(_reference(via.target, ("spec", "clusterQueue"), message))
    else:
        single, single_name, path = demand.largest, demand.largest_name, allowance.path
        related = [
            _reference(d.target, d.path, f"{d.name} needs {plural(d.gpus, noun)}")
            for d in demand.tally.sample
        ]
    return CapacityDraw(
        scope=cast(Scope, limit.scope),  # localQueue and flavor limits hold no GPUs to draw
        limit=limit.display,
        via=None if via is None else via.display,
        vendor=vendor,
        allowed=allowance.allowed,
        source_text=allowance.text,
        single_allowed=allowance.single,
        needed=demand.tally.total,
        single=single,
        single_name=single_name,
        workload_count=demand.tally.count,
        workloads_text=listing(shown, demand.tally.count),
        path=format_path(path),
        related=related,
    )


def _reference(target: Target, path: Path, message: str) -> Reference:
    file, document, part = target
    return Reference(
        file=file, document=document, part=part, path=format_path(path), message=message
    )


RUN = RunSide(
    record,
    index,
    fact,
    {
        "Workload": ("metadata.namespace", "metadata.labels", "spec.resources.pool"),
        "CapacityLimit": ("spec.limits", "spec.clusterQueue"),
    },
)
