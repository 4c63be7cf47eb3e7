"""Where a workload runs, resolved once per workload through the instance-type and GPU
catalogues: the input most facts share."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from linter.model import Workload

if TYPE_CHECKING:
    from linter.memory.right_sizing import GpuSpec, InstanceSpec


@dataclass(frozen=True)
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
    from linter.memory import resolve_gpu, resolve_instance
    from linter.memory.right_sizing import gpu_with_memory

    resources = workload.spec.resources
    gpu, gpus_per_node, instance, unknown = None, None, None, None
    if resources.instance_type:
        instance = resolve_instance(resources.instance_type, resources.provider)
        if instance is None:
            unknown = f"instance type {resources.instance_type!r}"
        else:
            gpus_per_node = instance.gpu_count
            gpu = instance.gpu if instance.gpu_count else None
    accelerator = resources.accelerator
    memory_gib = None
    if accelerator is not None:
        gpus_per_node = accelerator.count
        if accelerator.type is not None:
            gpu = resolve_gpu(accelerator.type)
            if gpu is None:
                unknown = unknown or f"accelerator type {accelerator.type!r}"
        elif accelerator.memory_gib is not None:
            memory_gib = accelerator.memory_gib
            gpu = gpu_with_memory(memory_gib)
            if gpu is None:
                unknown = unknown or f"no catalogued GPU has {memory_gib:g} GB"
    replicas = workload.spec.serving.replicas if workload.spec.profile == "inference" else None
    return Placement(
        gpu,
        gpus_per_node,
        instance,
        1 if replicas is None else replicas,
        resources.nodes,
        unknown,
        memory_gib,
    )
