"""The instance type a launcher picks when a file names accelerators and a cloud but no instance.

SkyPilot's optimizer and dstack's offer list both take the cheapest instance that carries the
accelerators ("Target: minimizing cost" in SkyPilot's optimizer output; dstack lists offers by
price). gpulint's price catalogue is SkyPilot's own instance catalogue (``linter/catalog/data/
prices.yaml`` names it), so the same choice is the cheapest on-demand row for that provider, GPU
and count: in the region when the catalogue prices it there, else in any region. Quota (vCPUs of
the instance family) and cost need the instance; its origin is a default whose note says it was
chosen this way.
"""

from __future__ import annotations

import functools

from linter.catalog.gpus import resolve_gpu
from linter.catalog.prices import InstancePriceRow, instance_table
from linter.catalog.spelling import name_key


@functools.cache
def _offers() -> dict[tuple[str, str, float], tuple[InstancePriceRow, ...]]:
    """(provider, catalogue GPU name, GPUs per instance) -> the priced rows."""
    index: dict[tuple[str, str, float], list[InstancePriceRow]] = {}
    for row in instance_table():
        gpu = resolve_gpu(row.accelerator)
        if gpu is not None and row.on_demand_per_hour is not None:
            key = (name_key(row.provider), gpu.name, row.accelerator_count)
            index.setdefault(key, []).append(row)
    return {key: tuple(rows) for key, rows in index.items()}


def cheapest_instance(provider: str, gpu: str, count: int, region: str | None) -> str | None:
    """The instance type with ``count`` x ``gpu`` a launcher picks on ``provider``, or None when
    the catalogue prices none."""
    spec = resolve_gpu(gpu)
    if spec is None:
        return None
    rows = _offers().get((name_key(provider), spec.name, float(count)), ())
    local = [row for row in rows if region is not None and row.region == region]
    candidates = local or list(rows)
    if not candidates:
        return None
    best = min(candidates, key=lambda row: (row.on_demand_per_hour or 0.0, row.instance_type))
    return best.instance_type
