"""Where a workload runs, resolved once per workload through the instance-type and GPU
catalogues: the input most facts share."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from linter.model import Workload
from linter.records import datarecord

if TYPE_CHECKING:
    from linter.memory.right_sizing import GpuSpec, InstanceSpec


@datarecord
class Placement:
    """What a workload's ``resources`` resolve to. ``gpus_per_node`` is None when unknown."""

    gpu: GpuSpec | None
    gpus_per_node: float | None
    instance: InstanceSpec | None
    replicas: int
    nodes: int
    unknown: str | None  # what could not be resolved, for the message
    #: memoryGiB the GPU was chosen by when the accelerator names no type (``gpu`` is then the
    #: catalogued GPU with the least memory of at least that much); None when named.
    memory_gib: float | None = None

    @property
    def gpu_name(self) -> str | None:
        return self.gpu.name if self.gpu else None

    @property
    def instances(self) -> int:
        """Machines across every replica."""
        return self.nodes * self.replicas

    @property
    def gpus_per_replica(self) -> float | None:
        return None if self.gpus_per_node is None else self.gpus_per_node * self.nodes

    @property
    def total_gpus(self) -> float | None:
        per_replica = self.gpus_per_replica
        return None if per_replica is None else per_replica * self.replicas


def resolve_placement(workload: Workload) -> Placement:
    """Resolve instance type and accelerator; an explicit accelerator wins over the instance's.
    An accelerator known only by its memory is sized on the smallest catalogued GPU that has
    it, so whatever the launcher picks holds at least as much."""
    resources = workload.spec.resources
    accelerator = resources.accelerator
    replicas = workload.spec.serving.replicas if workload.spec.profile == "inference" else None
    return _placement(
        resources.instance_type,
        resources.provider,
        None if accelerator is None else accelerator.count,
        None if accelerator is None else accelerator.type,
        None if accelerator is None or accelerator.type is not None else accelerator.memory_gib,
        1 if replicas is None else replicas,
        resources.nodes,
    )


#: Distinct placements remembered: a run declares a few, each in many workloads (and several
#: facts of each workload resolve it).
REMEMBERED = 1024


@functools.lru_cache(maxsize=REMEMBERED, typed=True)
def _placement(
    instance_type: str | None,
    provider: str | None,
    count: int | None,
    gpu_type: str | None,
    memory_gib: float | None,
    replicas: int,
    nodes: int,
) -> Placement:
    """The placement of an instance type and an accelerator (``count`` None: none declared; a
    ``memory_gib`` only when it names no type)."""
    from linter.memory import resolve_gpu, resolve_instance
    from linter.memory.right_sizing import gpu_with_memory

    gpu, gpus_per_node, instance, unknown = None, None, None, None
    if instance_type:
        instance = resolve_instance(instance_type, provider)
        if instance is None:
            unknown = f"instance type {instance_type!r}"
        else:
            gpus_per_node = instance.gpu_count
            gpu = instance.gpu if instance.gpu_count else None
    if count is not None:
        gpus_per_node = count
        if gpu_type is not None:
            gpu = resolve_gpu(gpu_type)
            if gpu is None:
                unknown = unknown or f"accelerator type {gpu_type!r}"
        elif memory_gib is not None:
            gpu = gpu_with_memory(memory_gib)
            if gpu is None:
                unknown = unknown or f"no catalogued GPU has {memory_gib:g} GB"
    return Placement(gpu, gpus_per_node, instance, replicas, nodes, unknown, memory_gib)
