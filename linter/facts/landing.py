"""The ``landing`` fact: the GPU types a workload that does not pin one may be scheduled on, and
whether it runs on each (the ``unpinned`` fact sizes it on every catalogued GPU).

Where the GPU types come from, first found first:

1. A node pool of the run that the workload selects: a Karpenter NodePool or a Terraform node
   pool whose name, or ``key=value`` node label, is the workload's ``resources.pool``, with the
   GPU types its nodes are pinned to (``CapacityLimit.spec.accelerators``). Several objects of
   that name (one per cluster, or a base and its overlay) give their GPUs together.
   Else the Kueue queue it is submitted to (its ``kueue.x-k8s.io/queue-name`` label names a
   LocalQueue of its namespace): the GPU types of the ClusterQueue's flavors, when the run has
   a ResourceFlavor pinning each of them.
2. A pool of the configuration's ``cluster:`` inventory the workload selects (by name or by a
   ``selector`` label), then the inventory's GPUs (``cluster.gpus``, else every pool's).

Without any, the fact has no candidates and a rule can only say what the workload needs.
Run-wide: a record per node pool and per unpinned workload, one index by pool name.
"""

from collections.abc import Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any, cast

from linter.catalog.gpus import resolve_gpu
from linter.facts import unpinned
from linter.facts.base import Fact, described
from linter.facts.memory import MemoryRecord
from linter.facts.run import Records, RunInputs, RunSide
from linter.facts.subject import Subject
from linter.model import Workload
from linter.model.manifest import Manifest
from linter.records import datarecord
from linter.wording import listing

if TYPE_CHECKING:  # defined when a run first reads one (linter.model.kind_model)
    from linter.model.capacity_limit import CapacityLimit

GIB = 1024**3


class LandingGpu(MemoryRecord):
    gpu: str
    usable_gib: float = described("What a framework can allocate on it.")
    runs: bool = described("The workload's memory estimate fits on it.")


class LandingFact(Fact):
    inventory: bool = described("Some inventory says which GPUs it may land on.")
    source: str | None = described(
        "Where the GPU types come from: 'NodePool gpu-a', 'pool big of the cluster "
        "inventory', 'the cluster inventory'."
    )
    count: int = described("GPU types it may land on.")
    candidates: list[LandingGpu]
    failing: list[str] = described("GPU types it does not run on.")
    working: list[str] = described("GPU types it runs on.")
    failing_text: str
    working_text: str
    some_fail: bool
    all_fail: bool


# -- records ---------------------------------------------------------------------------------


def record(manifest: Manifest, known: Mapping[str, Fact]) -> dict[str, Any] | None:
    """A node pool's or a Kueue flavor's GPU types, a queue's flavors, a local queue's queue, or
    an unpinned workload's pool, namespace and sizing."""
    model = manifest.model
    if manifest.kind == "CapacityLimit":
        return _capacity_record(cast("CapacityLimit", model), manifest.source_kind)
    if not isinstance(model, Workload) or not unpinned.requests_untyped(model):
        return None
    fact = known.get("unpinned")
    if not isinstance(fact, unpinned.UnpinnedFact):
        fact = unpinned.compute(Subject(manifest))
    if not fact.sized:
        return None
    return {
        "workload": {
            "pool": model.spec.resources.pool,
            "namespace": model.metadata.namespace,
            "runsOn": fact.runs_on,
        }
    }


def _capacity_record(model: "CapacityLimit", kind: str | None) -> dict[str, Any] | None:
    spec, name = model.spec, model.metadata.name
    if spec.scope == "nodePool":
        gpus = _canonical(spec.accelerators)
        if not gpus:
            return None
        names = sorted({name, *spec.match_pools})
        return {
            "nodePool": {"names": names, "display": f"{kind or 'node pool'} {name}", "gpus": gpus}
        }
    if spec.scope == "flavor":
        gpus = _canonical(spec.accelerators)
        return {"flavor": {"name": name, "gpus": gpus}} if gpus else None
    if spec.scope == "queue":
        flavors = sorted({entry.flavor for entry in spec.limits if entry.flavor and entry.gpus})
        return {"queue": {"name": name, "flavors": flavors}} if flavors else None
    if spec.scope == "localQueue" and model.metadata.namespace and spec.cluster_queue:
        labels = [f"{key}={value}" for key, value in spec.match_labels.items()]
        queue = {"namespace": model.metadata.namespace, "labels": labels}
        return {"localQueue": {**queue, "clusterQueue": spec.cluster_queue}}
    return None


def _canonical(names: list[str]) -> list[str]:
    out: list[str] = []
    for name in names:
        gpu = resolve_gpu(name)
        if gpu is not None and gpu.name not in out:
            out.append(gpu.name)
    return out


# -- the index -------------------------------------------------------------------------------


@datarecord(frozen=False)
class LandingIndex:
    #: pool name or ``key=value`` label -> (display of the first object, GPU types of all).
    pools: dict[str, tuple[str, list[str]]] = field(default_factory=dict)
    #: Kueue: flavor -> GPU types; queue -> flavors; (namespace, ``key=value``) -> queue.
    flavors: dict[str, list[str]] = field(default_factory=dict)
    queues: dict[str, list[str]] = field(default_factory=dict)
    local_queues: dict[tuple[str, str], str] = field(default_factory=dict)
    inputs: RunInputs = field(default_factory=RunInputs)


def index(records: Records, inputs: RunInputs) -> LandingIndex:
    out = LandingIndex(inputs=inputs)
    for _, item in records:
        if "nodePool" in item:
            pool = item["nodePool"]
            for name in pool["names"]:
                _, gpus = out.pools.setdefault(name, (pool["display"], []))
                gpus.extend(gpu for gpu in pool["gpus"] if gpu not in gpus)
        elif "flavor" in item:
            gpus = out.flavors.setdefault(item["flavor"]["name"], [])
            gpus.extend(gpu for gpu in item["flavor"]["gpus"] if gpu not in gpus)
        elif "queue" in item:
            flavors = out.queues.setdefault(item["queue"]["name"], [])
            flavors.extend(f for f in item["queue"]["flavors"] if f not in flavors)
        elif "localQueue" in item:
            local = item["localQueue"]
            for label in local["labels"]:
                out.local_queues.setdefault((local["namespace"], label), local["clusterQueue"])
    return out


def _kueue(pool: str, namespace: str | None, landing: LandingIndex) -> tuple[str, list[str]] | None:
    """The GPU types of the flavors of the queue a workload is submitted to, when every flavor
    the run declares pins them (a flavor without a GPU label may give any node)."""
    queue = landing.local_queues.get((namespace or "", pool))
    flavors = landing.queues.get(queue or "", [])
    if queue is None or not flavors or any(f not in landing.flavors for f in flavors):
        return None
    gpus: list[str] = []
    for flavor in flavors:
        gpus.extend(gpu for gpu in landing.flavors[flavor] if gpu not in gpus)
    return f"ClusterQueue {queue} (flavor {listing(flavors)})", gpus


# -- the fact --------------------------------------------------------------------------------


def _where(
    pool: str | None, namespace: str | None, landing: LandingIndex
) -> tuple[str, list[str]] | None:
    """(source, GPU types) the workload may land on, or None without an inventory."""
    if pool is not None and pool in landing.pools:
        return landing.pools[pool]
    queued = _kueue(pool, namespace, landing) if pool is not None else None
    if queued is not None:
        return queued
    cluster = landing.inputs.cluster
    if cluster is None:
        return None
    selected = cluster.pool_of(pool)
    if selected is not None:
        name, chosen = selected
        return f"pool {name} of the cluster inventory", list(chosen.gpus)
    gpus = cluster.every_gpu()
    return ("the cluster inventory", gpus) if gpus else None


def fact(item: dict[str, Any] | None, landing: LandingIndex) -> LandingFact:
    workload = None if item is None else item.get("workload")
    where = None if workload is None else _where(workload["pool"], workload["namespace"], landing)
    if workload is None or where is None:
        return _fact(None, [])
    source, names = where
    runs_on = set(workload["runsOn"])
    candidates = []
    for name in names:
        gpu = resolve_gpu(name)
        if gpu is None:
            continue
        runs = gpu.name in runs_on
        usable = round(gpu.usable_bytes / GIB, 2)
        candidates.append(LandingGpu(gpu=gpu.name, usable_gib=usable, runs=runs))
    return _fact(source, candidates)


def _fact(source: str | None, candidates: list[LandingGpu]) -> LandingFact:
    failing = [c.gpu for c in candidates if not c.runs]
    working = [c.gpu for c in candidates if c.runs]
    return LandingFact(
        inventory=bool(candidates),
        source=source if candidates else None,
        count=len(candidates),
        candidates=candidates,
        failing=failing,
        working=working,
        failing_text=listing(failing),
        working_text=listing(working),
        some_fail=bool(failing),
        all_fail=bool(candidates) and not working,
    )


RUN = RunSide(record, index, fact)
