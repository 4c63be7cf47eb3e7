"""Which accelerators and instance types an offline snapshot saw in which regions
(``data/availability.yaml``). A hint only: absence is not proof, and offered is not obtainable.

Lookups only: what a match (or its absence) says about a region is decided in
:mod:`linter.quota.region_offer`.
"""

import fnmatch
import functools
from typing import Literal

from linter.catalog.base import Catalogue, Record, SourceRef, Text, validated
from linter.catalog.endpoints import Cloud
from linter.catalog.spelling import name_key
from linter.declared import Field, empty_list


class Coverage(Record):
    """What a provider's snapshot covered."""

    uncovered_regions: list[Text] = Field(
        default_factory=empty_list, description="Regions the snapshot has no rows for at all."
    )
    uncovered_source: SourceRef | None = None
    note: Text | None = None


class Offering(Record):
    provider: Cloud
    instance_types: list[Text] = Field(description="Globs over instance or machine type names.")
    gpus: list[Text] = Field(description="GPU names.")
    regions: list[Text] = Field(description="Where the snapshot saw it.")
    complete: bool = Field(description="The region list is complete for the snapshot.")
    note: Text | None = None
    source: SourceRef


class AvailabilityCatalogue(Catalogue):
    """gpulint accelerator availability hints (offline snapshot; absence is not proof)."""

    hint: Literal[True]
    providers: dict[Cloud, Coverage]
    offerings: list[Offering]


def catalogue() -> AvailabilityCatalogue:
    return validated("availability", AvailabilityCatalogue)


def offerings_of_instance(cloud: str, instance_type: str) -> tuple[Offering, ...]:
    """The snapshot entries of a cloud whose globs match an instance type."""
    name = instance_type.strip().lower()
    return tuple(
        entry
        for entry in catalogue().offerings
        if entry.provider == cloud
        and any(fnmatch.fnmatchcase(name, glob) for glob in entry.instance_types)
    )


def offerings_of_gpu(cloud: str, gpu: str) -> tuple[Offering, ...]:
    """The snapshot entries of a cloud with a GPU (any spelling of a name they list)."""
    wanted = name_key(gpu)
    return tuple(
        entry
        for entry in catalogue().offerings
        if entry.provider == cloud and wanted in {name_key(name) for name in entry.gpus}
    )


@functools.cache
def _coverage() -> dict[str, Coverage]:
    return {cloud: coverage for cloud, coverage in catalogue().providers.items()}


def uncovered_regions(cloud: str) -> frozenset[str]:
    """Regions of ``cloud`` its snapshot has no rows for (none for an unknown cloud)."""
    coverage = _coverage().get(cloud)
    return frozenset(coverage.uncovered_regions) if coverage is not None else frozenset()
