"""Coarse hint of whether an accelerator or instance type is offered in a region."""

from __future__ import annotations

import functools

from linter.catalog import availability, regions


@functools.lru_cache(maxsize=4096)
def offered_in_region(
    provider: str, region: str, *, instance_type: str | None = None, gpu_type: str | None = None
) -> bool | None:
    """True when an offline snapshot saw the instance type (or, without one, any instance type
    with the GPU) in the region; False only when every matching snapshot entry is complete and
    the snapshot covered the region; None when the catalogue does not know.

    A hint, not a guarantee: offered is not obtainable, and snapshots lag new types and regions.
    """
    cloud = provider.strip().lower()
    code = region.strip().lower()
    if instance_type:
        entries = availability.offerings_of_instance(cloud, instance_type)
    elif gpu_type:
        entries = availability.offerings_of_gpu(cloud, gpu_type)
    else:
        return None
    if any(code in entry.regions for entry in entries):
        return True
    catalogued = any(known.region == code for known in regions.regions_of(cloud))
    covered = catalogued and code not in availability.uncovered_regions(cloud)
    if entries and covered and all(entry.complete for entry in entries):
        return False
    return None
