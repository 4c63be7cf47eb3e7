"""Coarse hint of whether an accelerator or instance type is offered in a region."""

from __future__ import annotations

import fnmatch
import functools

from linter import catalog
from linter.residency.names import squash
from linter.residency.places import provider_places


@functools.lru_cache(maxsize=4096)
def offered_in_region(
    provider: str, region: str, *, instance_type: str | None = None, gpu_type: str | None = None
) -> bool | None:
    """True when an offline snapshot saw the instance type (or, without one, any instance type
    with the GPU) in the region; False only when every matching snapshot entry is complete and
    the snapshot covered the region; None when the catalogue does not know.

    A hint, not a guarantee: offered is not obtainable, and snapshots lag new types and regions.
    """
    data = catalog.load("availability")
    cloud = provider.strip().lower()
    code = region.strip().lower()
    if instance_type:
        name = instance_type.strip().lower()
        entries = [
            e
            for e in data["offerings"]
            if e["provider"] == cloud
            and any(fnmatch.fnmatchcase(name, g) for g in e["instance_types"])
        ]
    elif gpu_type:
        wanted = squash(gpu_type)
        entries = [
            e
            for e in data["offerings"]
            if e["provider"] == cloud and wanted in {squash(g) for g in e["gpus"]}
        ]
    else:
        return None
    if any(code in e["regions"] for e in entries):
        return True
    coverage = data["providers"].get(cloud, {})
    covered = code in {p.region for p in provider_places(cloud)} and code not in coverage.get(
        "uncovered_regions", []
    )
    if entries and covered and all(e["complete"] for e in entries):
        return False
    return None
