"""The ``resources`` fact: which accelerators a workload runs on and how many, resolved through the
instance-type and GPU catalogues."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from linter.facts.run import RunIndex
from linter.formats.manifest import Manifest
from linter.model import Workload

if TYPE_CHECKING:
    from linter.memory.gpus import GpuSpec, InstanceSpec


@dataclass(frozen=True)
class Placement:
    """What a workload's ``resources`` resolve to. ``gpus_per_node`` is None when unknown."""

    gpu: GpuSpec | None
    gpus_per_node: float | None
    instance: InstanceSpec | None
    replicas: int
    unknown: str | None  # what could not be resolved, for the message

    @property
    def gpu_name(self) -> str | None:
        return self.gpu.name if self.gpu else None


def placement(workload: Workload) -> Placement:
    """Resolve instance type and accelerator; an explicit accelerator wins over the instance's."""
    from linter.memory import resolve_gpu, resolve_instance

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
    if accelerator is not None and accelerator.type is not None:
        gpus_per_node = accelerator.count
        gpu = resolve_gpu(accelerator.type)
        if gpu is None:
            unknown = unknown or f"accelerator type {accelerator.type!r}"
    replicas = workload.spec.serving.replicas if workload.spec.profile == "inference" else None
    return Placement(gpu, gpus_per_node, instance, 1 if replicas is None else replicas, unknown)


def compute(manifest: Manifest, run: RunIndex) -> dict[str, Any]:
    workload = manifest.model
    assert isinstance(workload, Workload)
    where = placement(workload)
    nodes = workload.spec.resources.nodes
    per_node = where.gpus_per_node
    return {
        "gpuType": where.gpu_name,
        "gpuMemoryBytes": where.gpu.memory_bytes if where.gpu else None,
        "gpusPerNode": per_node,
        "nodes": nodes,
        "replicas": where.replicas,
        "gpusPerReplica": None if per_node is None else per_node * nodes,
        "totalGpus": None if per_node is None else per_node * nodes * where.replicas,
        "usesGpu": None if per_node is None else per_node > 0,
        "unknown": where.unknown,
        "instanceFamily": where.instance.family if where.instance else None,
        "vcpusPerInstance": where.instance.vcpus if where.instance else None,
        "interconnect": (
            where.instance.interconnect.type
            if where.instance and where.instance.interconnect
            else None
        ),
    }
