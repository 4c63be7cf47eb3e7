"""Hourly on-demand and spot prices of cloud instance types, per region."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from linter import catalog


@dataclass(frozen=True)
class InstancePrice:
    provider: str
    instance_type: str
    region: str
    on_demand_per_hour: float | None
    spot_per_hour: float | None
    source: str
    #: False when no region was asked for and ``region`` is the cheapest listed one instead.
    region_matched: bool = True


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def _type_key(provider: str, instance_type: str) -> str:
    key = instance_type.strip().lower()
    if provider == "azure":
        key = key.removeprefix("standard_")
    return key


def _price(entry: Mapping[str, Any], region_matched: bool) -> InstancePrice:
    return InstancePrice(
        provider=entry["provider"],
        instance_type=entry["instance_type"],
        region=entry["region"],
        on_demand_per_hour=_number(entry.get("on_demand_per_hour")),
        spot_per_hour=_number(entry.get("spot_per_hour")),
        source=entry["source"],
        region_matched=region_matched,
    )


def _cheapest_first(entry: Mapping[str, Any]) -> tuple[bool, float, str]:
    on_demand = entry.get("on_demand_per_hour")
    return (on_demand is None, float(on_demand or 0.0), entry["region"])


@functools.lru_cache(maxsize=4096)
def instance_price(provider: str, instance_type: str, region: str | None) -> InstancePrice | None:
    """The catalogued price of ``instance_type`` in ``region``, or None when not catalogued.

    Provider, instance type and region compare case-insensitively; Azure sizes match with or
    without ``Standard_``. With ``region=None`` the listed region with the lowest on-demand price
    is returned (regions without an on-demand price last) with ``region_matched=False``; a region
    that is given but not catalogued gives None, never another region's price.
    """
    wanted_provider = provider.strip().lower()
    wanted_type = _type_key(wanted_provider, instance_type)
    entries = [
        entry
        for entry in catalog.load("prices")["instances"]
        if entry["provider"] == wanted_provider
        and _type_key(wanted_provider, entry["instance_type"]) == wanted_type
    ]
    if region is None:
        return _price(min(entries, key=_cheapest_first), region_matched=False) if entries else None
    wanted_region = region.strip().lower()
    for entry in entries:
        if entry["region"].lower() == wanted_region:
            return _price(entry, region_matched=True)
    return None
