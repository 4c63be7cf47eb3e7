"""Choosing a GPU by memory: right-sizing suggestions and GPUs known only by their memory.

The records and lookups live in :mod:`linter.catalog.gpus` and :mod:`linter.catalog.instances`;
they are re-exported here for existing callers.
"""

from __future__ import annotations

from collections.abc import Iterable

from linter.catalog.gpus import GpuSpec, all_gpus, resolve_gpu
from linter.catalog.instances import InstanceSpec, Interconnect, resolve_instance

__all__ = [
    "GpuSpec",
    "InstanceSpec",
    "Interconnect",
    "all_gpus",
    "gpu_with_memory",
    "resolve_gpu",
    "resolve_instance",
    "smallest_fitting_gpu",
]


#: vLLM's CUDA kernels need compute capability 7.0 (Volta) or newer.
MIN_COMPUTE_CAPABILITY = (7, 0)


def _capability(gpu: GpuSpec) -> tuple[int, ...]:
    return tuple(int(part) for part in (gpu.compute_capability or "0.0").split("."))


def _candidates() -> list[GpuSpec]:
    """GPUs worth suggesting: NVIDIA (the accounting in this package is CUDA/vLLM accounting)
    datacenter parts vLLM runs on."""
    return [
        g
        for g in all_gpus()
        if g.vendor == "nvidia"
        and g.segment == "datacenter"
        and _capability(g) >= MIN_COMPUTE_CAPABILITY
    ]


def smallest_fitting_gpu(
    required_bytes_per_gpu: int, headroom: float, gpus: Iterable[GpuSpec] | None = None
) -> GpuSpec | None:
    """Smallest GPU whose usable memory, less a ``headroom`` fraction kept free, holds
    ``required_bytes_per_gpu`` (ties broken by name); None when none does. By default the
    candidates are NVIDIA datacenter GPUs that vLLM runs on."""
    if not 0 <= headroom < 1:
        raise ValueError("headroom must be a fraction in [0, 1)")
    candidates = _candidates() if gpus is None else list(gpus)
    fitting = [g for g in candidates if required_bytes_per_gpu <= g.usable_bytes * (1 - headroom)]
    return min(fitting, key=lambda g: (g.memory_bytes, g.name), default=None)


def gpu_with_memory(memory_gib: float) -> GpuSpec | None:
    """The GPU to size "any GPU with at least ``memory_gib`` GB" (dstack ``gpu: 40GB..``, an
    accelerator given only by ``memoryGiB``) on: the catalogued NVIDIA GPU with the least memory
    among those marketed with at least that much (NVIDIA datacenter GPUs vLLM runs on), so a fit
    holds on every GPU the launcher may pick. Launchers compare against the marketed size (an
    "80GB" H100 has 79.6 GiB), so this does too. None when no catalogued GPU is that large."""
    if memory_gib <= 0:
        raise ValueError("memory must be positive")
    candidates = [g for g in _candidates() if g.marketed_gb >= memory_gib]
    return min(candidates, key=lambda g: (g.usable_bytes, g.name), default=None)
