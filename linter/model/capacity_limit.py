"""The ``CapacityLimit`` kind: how many GPUs a queue, a namespace or a node pool lets the
workloads that draw on it hold at once.

gpulint reads these from Kubernetes (Kueue ClusterQueue and LocalQueue, ResourceQuota, Karpenter
NodePool: linter/formats/kubernetes/capacity.py); they can also be written directly. Which
workloads draw on a limit is decided by its scope (linter/facts/capacity.py): a ``queue``
through the ``localQueue`` entries that name it (a workload carries the localQueue's
``matchLabels`` and is in its namespace), a ``namespace`` by the workloads' namespace, a
``nodePool`` by their pool (its name or one of its ``matchPools``). A ``localQueue`` has no
limits of its own: it names the queue its workloads are admitted to. A ``flavor`` (a Kueue
ResourceFlavor) has none either: it says which GPU types the nodes of a queue's flavor have.
"""

from typing import Literal

from linter.catalog.gpus import Vendor
from linter.declared import CamelRecord, Field, empty_list, model_validator
from linter.model.base import API_VERSION, Metadata
from linter.model.workload import Capacity

Scope = Literal["queue", "localQueue", "namespace", "nodePool", "flavor"]


class Limit(CamelRecord):
    """One vendor's GPUs, or with Kueue, one flavor's share of them."""

    vendor: Vendor = Field(description="Whose GPUs it counts (Kubernetes nvidia.com/gpu: nvidia).")
    gpus: float = Field(
        ge=0,
        allow_inf_nan=False,
        description="Most GPUs the workloads drawing on it may hold at once.",
    )
    flavor: str | None = Field(
        None,
        min_length=1,
        description="queue: the Kueue ResourceFlavor this share is of (one workload is admitted "
        "to one flavor).",
    )
    borrowing_limit: float | None = Field(
        None,
        ge=0,
        allow_inf_nan=False,
        description="queue in a cohort: most it may borrow from the cohort's other queues; "
        "unset: as much as they lend.",
    )
    lending_limit: float | None = Field(
        None,
        ge=0,
        allow_inf_nan=False,
        description="queue in a cohort: most of its unused GPUs the other queues may borrow; "
        "unset: all of them.",
    )


class CapacityLimitSpec(CamelRecord):
    scope: Scope = Field(
        description="queue (Kueue ClusterQueue), localQueue (Kueue LocalQueue), namespace "
        "(ResourceQuota), nodePool (Karpenter NodePool) or flavor (Kueue ResourceFlavor)."
    )
    cluster_queue: str | None = Field(
        None, min_length=1, description="localQueue: the queue its workloads are admitted to."
    )
    match_labels: dict[str, str] = Field(
        default_factory=dict,
        description="localQueue: the labels a workload in its namespace carries to be submitted "
        "to it (Kueue: kueue.x-k8s.io/queue-name: <its name>).",
    )
    match_pools: list[str] = Field(
        default_factory=empty_list,
        description="nodePool: other spellings of its name in the workloads' resources.pool "
        "(karpenter.sh/nodepool=<name>); its name always matches.",
    )
    cohort: str | None = Field(
        None,
        min_length=1,
        description="queue: the Kueue cohort whose queues lend each other unused quota.",
    )
    accelerators: list[str] = Field(
        default_factory=empty_list,
        description="nodePool, flavor: the GPU types its nodes may have, as written (empty: not "
        "pinned).",
    )
    capacity: list[Capacity] = Field(
        default_factory=empty_list,
        description="nodePool: the capacity types its nodes may have (empty: not pinned).",
    )
    limits: list[Limit] = Field(default_factory=empty_list)

    @model_validator(mode="after")
    def _fits_scope(self) -> "CapacityLimitSpec":
        local = self.scope == "localQueue"
        if local != (self.cluster_queue is not None):
            raise ValueError("clusterQueue is set on a localQueue, and only there")
        if local and self.limits:
            raise ValueError("a localQueue has no limits of its own (its queue's apply)")
        if local != bool(self.match_labels):
            raise ValueError("matchLabels are set on a localQueue, and only there")
        if self.scope != "queue" and self.cohort is not None:
            raise ValueError("only a queue belongs to a cohort")
        if self.scope != "nodePool" and (self.capacity or self.match_pools):
            raise ValueError("matchPools and capacity describe a nodePool")
        if self.scope not in ("nodePool", "flavor") and self.accelerators:
            raise ValueError("accelerators describe a nodePool or a flavor")
        if self.scope == "flavor" and self.limits:
            raise ValueError("a flavor has no limits of its own (its queues' apply)")
        for limit in self.limits:
            if self.scope != "queue" and limit.flavor is not None:
                raise ValueError("only a queue's limits have flavors")
            lends = limit.borrowing_limit is not None or limit.lending_limit is not None
            if lends and self.cohort is None:
                raise ValueError("borrowingLimit and lendingLimit need a cohort")
        return self


class CapacityLimit(CamelRecord):
    """The GPUs a queue, a namespace or a node pool allows at once."""

    api_version: Literal[API_VERSION]  # type: ignore[valid-type]
    kind: Literal["CapacityLimit"]
    metadata: Metadata
    spec: CapacityLimitSpec
