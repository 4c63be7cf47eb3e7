"""Cloud instance types: which accelerator, how many, vCPUs, memory and interconnect."""

import functools
from typing import NamedTuple

from linter.catalog.base import Catalogue, Record, validated
from linter.catalog.gpus import GpuSpec, resolve_gpu, visible
from linter.catalog.spelling import name_key
from linter.declared import Field, empty_list


class Interconnect(Record):
    type: str = Field(min_length=1, description="efa, infiniband, ...")
    gbps: float | None = Field(None, gt=0)


class InstanceType(Record):
    provider: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    name: str = Field(min_length=1)
    family: str = Field(min_length=1)
    gpu: str = Field(min_length=1, description="A gpus.yaml name or alias.")
    gpu_count: float = Field(ge=0, description="Fractional for vGPU slices (Azure NV*_A10_v5).")
    vcpus: int = Field(ge=1)
    memory_gib: float | None = Field(None, gt=0)
    interconnect: Interconnect | None = None
    quota_family: str | None = None
    source: str = Field(min_length=1)


class ServicePrefix(Record):
    """A managed service that rents an instance type under a prefixed name (SageMaker's
    ``ml.g5.2xlarge`` is the hardware of ``g5.2xlarge``)."""

    provider: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    prefix: str = Field(min_length=1)
    service: str = Field(min_length=1)
    source: str = Field(min_length=1)


class InstanceCatalogue(Catalogue):
    """gpulint cloud instance-type catalogue."""

    service_prefixes: list[ServicePrefix] = Field(default_factory=empty_list)
    instance_types: list[InstanceType] = Field(min_length=1)


class InstanceSpec(NamedTuple):
    """An instance type with its accelerator resolved."""

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


def catalogue() -> InstanceCatalogue:
    return validated("instance_types", InstanceCatalogue)


def _keys(name: str) -> tuple[str, ...]:
    """Index keys of a name: Azure sizes match with or without ``Standard_``."""
    key = name_key(name)
    return (key, key.removeprefix("standard")) if key.startswith("standard") else (key,)


@functools.cache
def _index() -> dict[str, list[InstanceType]]:
    index: dict[str, list[InstanceType]] = {}
    for entry in catalogue().instance_types:
        for key in _keys(entry.name):
            index.setdefault(key, []).append(entry)
    return index


def _spec(entry: InstanceType) -> InstanceSpec:
    gpu = resolve_gpu(entry.gpu)
    if gpu is None:
        raise LookupError(f"instance {entry.name} names unknown GPU {entry.gpu!r}")
    return InstanceSpec(
        name=entry.name,
        provider=entry.provider,
        family=entry.family,
        gpu=gpu,
        gpu_count=entry.gpu_count,
        vcpus=entry.vcpus,
        memory_gib=entry.memory_gib,
        interconnect=entry.interconnect,
        quota_family=entry.quota_family,
        source=entry.source,
    )


@functools.lru_cache(maxsize=4096)
def resolve_instance(instance_type: str, provider: str | None = None) -> InstanceSpec | None:
    """An instance type by name (case and punctuation do not matter; Azure sizes with or without
    ``Standard_``; a managed service's prefixed name, ``ml.g5.2xlarge``, is its hardware),
    optionally only from ``provider``."""
    if not visible(instance_type):
        return None
    wanted = provider.strip().lower() if provider is not None else None
    for key in _keys(instance_type):
        for entry in _index().get(key, ()):
            if wanted is None or entry.provider == wanted:
                return _spec(entry)
    service = service_of(instance_type, provider)
    if service is not None:
        return resolve_instance(instance_type[len(service.prefix) :], service.provider)
    return None


def service_of(instance_type: str, provider: str | None = None) -> ServicePrefix | None:
    """The managed service whose prefixed name ``instance_type`` is (``ml.g5.2xlarge``:
    SageMaker), or None for a plain instance type."""
    wanted = provider.strip().lower() if provider is not None else None
    for service in catalogue().service_prefixes:
        if instance_type.startswith(service.prefix) and wanted in (None, service.provider):
            return service
    return None
