"""The ``resources`` fact: which accelerators a workload runs on and how many, from the
instance-type or GPU catalogue."""

from __future__ import annotations

from typing import Any

from linter.documents import Manifest
from linter.facts.run import RunIndex
from linter.model import Workload


def compute(manifest: Manifest, run: RunIndex) -> dict[str, Any]:
    from linter.memory.gpus import resolve_gpu, resolve_instance

    workload = manifest.model
    assert isinstance(workload, Workload)
    resources = workload.spec.resources
    gpu_name: str | None = None
    gpus_per_node: float | None = None
    unknown: str | None = None
    instance = None
    if resources.instance_type:
        instance = resolve_instance(resources.instance_type, resources.provider)
        if instance is None:
            unknown = f"instance type {resources.instance_type!r}"
        else:
            gpus_per_node = instance.gpu_count
            gpu_name = instance.gpu.name if instance.gpu_count else None
    if resources.accelerator is not None:
        gpu = resolve_gpu(resources.accelerator.type)
        gpus_per_node = resources.accelerator.count
        if gpu is None:
            unknown = unknown or f"accelerator type {resources.accelerator.type!r}"
            gpu_name = None
        else:
            gpu_name = gpu.name
    declared = resources.accelerator is not None or resources.instance_type is not None
    replicas = workload.spec.serving.replicas if workload.spec.profile == "inference" else None
    replicas = 1 if replicas is None else replicas
    total = None if gpus_per_node is None else gpus_per_node * resources.nodes * replicas
    return {
        "declared": declared,
        "gpuType": gpu_name,
        "gpusPerNode": gpus_per_node,
        "nodes": resources.nodes,
        "replicas": replicas,
        "totalGpus": total,
        "usesGpu": None if gpus_per_node is None else gpus_per_node > 0,
        "unknown": unknown,
        "instanceFamily": instance.family if instance else None,
        "vcpusPerInstance": instance.vcpus if instance else None,
    }
