"""Accelerators and cloud instance types from the packaged catalogue."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from linter import catalog

#: When no torch-visible total is catalogued, assume it is 2% below the nvidia-smi total
#: (memory.md §0 rule 4: cudaMemGetInfo is 1.5-3% below; logged gaps are 0.4-1.8%).
TORCH_VISIBLE_FRACTION = 0.98


@dataclass(frozen=True)
class GpuSpec:
    name: str
    vendor: str
    memory_bytes: int
    marketed_gb: float
    bandwidth_gbps: float | None = None
    torch_visible_bytes: int | None = None
    aliases: tuple[str, ...] = ()
    source: str = ""

    @property
    def usable_bytes(self) -> int:
        """Total a framework can allocate (what vLLM multiplies by gpu_memory_utilization)."""
        if self.torch_visible_bytes is not None:
            return self.torch_visible_bytes
        return int(self.memory_bytes * TORCH_VISIBLE_FRACTION)


@dataclass(frozen=True)
class Interconnect:
    type: str
    gbps: float | None = None


@dataclass(frozen=True)
class InstanceSpec:
    name: str
    provider: str
    family: str
    gpu: GpuSpec
    gpu_count: float
    vcpus: int
    memory_gib: float | None = None
    interconnect: Interconnect | None = None
    quota_family: str | None = None
    source: str = ""


def _normalise(name: str) -> str:
    return "-".join(name.strip().lower().replace("_", " ").replace("-", " ").split())


def _gpu(entry: Mapping[str, Any]) -> GpuSpec:
    return GpuSpec(
        name=entry["name"],
        vendor=entry["vendor"],
        memory_bytes=entry["memory_bytes"],
        marketed_gb=entry["marketed_gb"],
        bandwidth_gbps=entry.get("bandwidth_gbps"),
        torch_visible_bytes=entry.get("torch_visible_bytes"),
        aliases=tuple(entry.get("aliases", ())),
        source=entry["source"],
    )


@functools.lru_cache(maxsize=1)
def _gpu_index() -> dict[str, GpuSpec]:
    index: dict[str, GpuSpec] = {}
    for entry in catalog.load("gpus")["gpus"]:
        spec = _gpu(entry)
        for name in (spec.name, *spec.aliases):
            index[_normalise(name)] = spec
    return index


@functools.lru_cache(maxsize=1)
def all_gpus() -> tuple[GpuSpec, ...]:
    """Every catalogued accelerator, in catalogue order."""
    return tuple(_gpu(entry) for entry in catalog.load("gpus")["gpus"])


@functools.lru_cache(maxsize=4096)
def resolve_gpu(name: str) -> GpuSpec | None:
    """Look up a GPU by canonical name or alias; case, ``_``, spaces and ``-`` are equivalent."""
    index = _gpu_index()
    key = _normalise(name)
    return index.get(key) or index.get(key.removeprefix("nvidia-"))


@functools.lru_cache(maxsize=4096)
def resolve_instance(instance_type: str, provider: str | None = None) -> InstanceSpec | None:
    """Look up an instance type, case-insensitively (Azure sizes with or without ``Standard_``)."""
    wanted = instance_type.strip().lower()
    for entry in catalog.load("instance_types")["instance_types"]:
        if provider is not None and entry["provider"] != provider.lower():
            continue
        name = entry["name"].lower()
        if wanted not in (name, name.removeprefix("standard_")):
            continue
        gpu = resolve_gpu(entry["gpu"])
        if gpu is None:
            raise LookupError(f"instance {entry['name']} names unknown GPU {entry['gpu']!r}")
        link = entry.get("interconnect")
        return InstanceSpec(
            name=entry["name"],
            provider=entry["provider"],
            family=entry["family"],
            gpu=gpu,
            gpu_count=entry["gpu_count"],
            vcpus=entry["vcpus"],
            memory_gib=entry.get("memory_gib"),
            interconnect=Interconnect(link["type"], link.get("gbps")) if link else None,
            quota_family=entry.get("quota_family"),
            source=entry["source"],
        )
    return None


def smallest_fitting_gpu(
    required_bytes_per_gpu: int, headroom: float, gpus: Iterable[GpuSpec] | None = None
) -> GpuSpec | None:
    """Smallest GPU whose usable memory, less a ``headroom`` fraction kept free, holds
    ``required_bytes_per_gpu`` (ties broken by name); None when none does. By default only
    NVIDIA GPUs are candidates: the accounting in this package is CUDA/vLLM accounting."""
    if not 0 <= headroom < 1:
        raise ValueError("headroom must be a fraction in [0, 1)")
    candidates = [g for g in all_gpus() if g.vendor == "nvidia"] if gpus is None else list(gpus)
    fitting = [g for g in candidates if required_bytes_per_gpu <= g.usable_bytes * (1 - headroom)]
    return min(fitting, key=lambda g: (g.memory_bytes, g.name), default=None)
