"""The node labels and extended resources Kubernetes objects use to say where a pod runs (which
GPU, instance type, region, capacity type and node pool), and the flags of KServe's Hugging Face
runtime: data in ``data/kubernetes.yaml``, with the documents each was checked against."""

from __future__ import annotations

import functools
from typing import Literal

from linter.catalog.base import Catalogue, Record, SourcedName
from linter.declared import Field, model_validator
from linter.formats.cmdline.arguments import FlagTable
from linter.formats.vocabulary import read_vocabulary

CapacityValue = Literal["spot", "on-demand", "reserved"]


class Label(Record):
    key: str = Field(min_length=1)
    provider: str | None = Field(None, description="The cloud the key belongs to.")
    source: str = Field(min_length=1)


class CapacityLabel(Label):
    values: dict[str, CapacityValue] = Field(min_length=1)
    taint: bool = Field(
        False, description="The cloud taints spot nodes with this key: tolerating it means spot."
    )


class RuntimeTable(FlagTable):
    """A model server's own flags, read before the engine's (KServe's Hugging Face runtime)."""

    formats: list[str] = Field(default_factory=list, description="KServe modelFormat names.")
    images: list[str] = Field(default_factory=list)


class LabelCatalogue(Catalogue):
    gpu_resources: list[SourcedName] = Field(min_length=1)
    accelerator_labels: list[Label] = Field(min_length=1)
    memory_labels: list[Label] = Field(default_factory=list)
    instance_type_labels: list[Label] = Field(min_length=1)
    region_labels: list[Label] = Field(min_length=1)
    capacity_labels: list[CapacityLabel] = Field(min_length=1)
    node_pool_labels: list[Label] = Field(min_length=1)
    queue_labels: list[Label] = Field(min_length=1)
    kserve_huggingface: RuntimeTable

    @model_validator(mode="after")
    def _sources_resolve(self) -> LabelCatalogue:
        known = {source.id for source in self.sources}
        named: list[SourcedName | Label] = [*self.gpu_resources, *self.all_labels()]
        used = {entry.source for entry in named} | {self.kserve_huggingface.source}
        unknown = sorted(used - known)
        if unknown:
            raise ValueError(f"unknown sources: {', '.join(unknown)}")
        return self

    def all_labels(self) -> list[Label]:
        return [
            *self.accelerator_labels,
            *self.memory_labels,
            *self.instance_type_labels,
            *self.region_labels,
            *self.capacity_labels,
            *self.node_pool_labels,
            *self.queue_labels,
        ]


@functools.cache
def catalogue() -> LabelCatalogue:
    """The label tables, read once (packaged and validated by the tests)."""
    return read_vocabulary("kubernetes.yaml", LabelCatalogue)


@functools.cache  # asked for every Kubernetes document, and per container
def gpu_resources() -> tuple[str, ...]:
    """Extended resource names that count GPUs (``nvidia.com/gpu``)."""
    return tuple(entry.name for entry in catalogue().gpu_resources)
