"""Accelerators: memory as nvidia-smi and torch see it, bandwidth, names and aliases.

``memory_bytes`` is the total nvidia-smi (or the vendor tool) reports, not the marketed GB;
``torch_visible_bytes`` is what ``torch.cuda.mem_get_info`` reports (the total vLLM multiplies by
``gpu_memory_utilization``), from a start-up log where one was found.
"""

import functools
import unicodedata
from typing import Literal

from linter.catalog.base import Catalogue, Record, validated
from linter.catalog.spelling import name_key
from linter.declared import Field, empty_list

#: When no torch-visible total is catalogued, it is taken as 2% below the nvidia-smi total
#: (memory.md §0 rule 4: cudaMemGetInfo is 1.5-3% below; logged gaps are 0.4-1.8%).
TORCH_VISIBLE_FRACTION = 0.98

Vendor = Literal["nvidia", "amd", "intel", "google", "aws"]
Segment = Literal["datacenter", "workstation", "consumer"]


class GpuSpec(Record):
    """One accelerator model (a GPU, or one chip of a TPU / Trainium / Gaudi board)."""

    name: str = Field(min_length=1, description="Canonical name, e.g. H100-80GB.")
    aliases: list[str] = Field(
        default_factory=empty_list,
        description="Other spellings: cloud labels, nvidia-smi names, launcher names.",
    )
    vendor: Vendor
    segment: Segment = Field(description="Market segment: GeForce cards are consumer.")
    compute_capability: str | None = Field(
        None, pattern=r"^\d+\.\d+$", description="CUDA compute capability (NVIDIA only)."
    )
    memory_bytes: int = Field(gt=0, description="Total as nvidia-smi reports it (MiB x 2^20).")
    torch_visible_bytes: int | None = Field(
        None, gt=0, description="Total torch.cuda.mem_get_info reports, from a logged run."
    )
    cuda_context_bytes: int | None = Field(
        None, gt=0, description="Device memory a PyTorch process takes before its first tensor."
    )
    marketed_gb: float = Field(gt=0)
    bandwidth_gbps: float | None = Field(None, gt=0, description="Memory bandwidth in GB/s.")
    ecc_off_memory_bytes: int | None = Field(
        None, gt=0, description="nvidia-smi total with ECC disabled (GDDR parts)."
    )
    source: str = Field(min_length=1)

    @property
    def usable_bytes(self) -> int:
        """Total a framework can allocate (what vLLM multiplies by gpu_memory_utilization)."""
        if self.torch_visible_bytes is not None:
            return self.torch_visible_bytes
        return int(self.memory_bytes * TORCH_VISIBLE_FRACTION)

    @property
    def torch_visible_is_measured(self) -> bool:
        return self.torch_visible_bytes is not None


class GpuCatalogue(Catalogue):
    """gpulint accelerator catalogue."""

    gpus: list[GpuSpec] = Field(min_length=1)


def catalogue() -> GpuCatalogue:
    return validated("gpus", GpuCatalogue)


@functools.cache
def _index() -> dict[str, GpuSpec]:
    index: dict[str, GpuSpec] = {}
    for gpu in catalogue().gpus:
        for name in (gpu.name, *gpu.aliases):
            index[name_key(name)] = gpu
    return index


def all_gpus() -> tuple[GpuSpec, ...]:
    """Every catalogued accelerator, in catalogue order."""
    return tuple(catalogue().gpus)


_VENDOR_PREFIXES = ("nvidia", "tesla", "geforce", "amd", "instinct")


def visible(name: str) -> bool:
    """False for a name with invisible or control characters (a zero-width space in ``H100``):
    :func:`name_key` would drop them and resolve a name that is not what it seems."""
    return not any(unicodedata.category(ch) in ("Cc", "Cf", "Co", "Cn") for ch in name)


@functools.lru_cache(maxsize=4096)
def resolve_gpu(name: str) -> GpuSpec | None:
    """A GPU by canonical name or alias; case, spaces and punctuation do not matter, nor a
    vendor prefix (``NVIDIA H100 80GB HBM3``, ``Tesla T4``)."""
    if not visible(name):
        return None
    index = _index()
    key = name_key(name)
    found = index.get(key)
    while found is None:
        prefix = next((p for p in _VENDOR_PREFIXES if key.startswith(p) and key != p), None)
        if prefix is None:
            return None
        key = key.removeprefix(prefix)
        found = index.get(key)
    return found
