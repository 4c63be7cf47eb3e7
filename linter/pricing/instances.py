"""Hourly on-demand and spot prices of cloud instance types, per region.

When the region asked for has no price, the price of another region is used and the result says
which and why (``basis``): the cheapest priced region in the same country, else the cheapest
sharing a jurisdiction tag with it (EU, EEA, ...), else the cheapest anywhere. Prices within one
country or jurisdiction are usually close; the cheapest anywhere is a lower bound, and says so.
"""

import functools
from collections.abc import Sequence
from typing import Literal, NamedTuple

from linter.catalog import regions
from linter.catalog.gpus import resolve_gpu
from linter.catalog.prices import InstancePriceRow, flag, instance_rows, instance_table
from linter.catalog.regions import Region
from linter.catalog.spelling import name_key

#: Where a price comes from: the region asked for, the cheapest priced region in its country,
#: sharing one of its jurisdiction tags, anywhere, or the cheapest when no region was given.
Basis = Literal["region", "same-country", "same-jurisdiction", "any-region", "no-region-given"]


class InstancePrice(NamedTuple):
    provider: str
    instance_type: str
    accelerator: str
    accelerator_count: float
    #: The region whose price this is (see ``basis`` and ``asked_region``).
    region: str
    on_demand_per_hour: float | None
    spot_per_hour: float | None
    source: str
    #: Caveat flag ids of the catalogue row (``linter.catalog.prices.flag`` describes each).
    flags: tuple[str, ...]
    basis: Basis
    asked_region: str | None

    @property
    def region_matched(self) -> bool:
        return self.basis == "region"

    @property
    def market_spot_per_hour(self) -> float | None:
        """The spot price, unless a flag says it is not a market price (placeholder, no discount,
        above on-demand): such a value is never used for a cost or a saving."""
        return None if self.spot_withheld_because() else self.spot_per_hour

    def spot_withheld_because(self) -> tuple[str, ...]:
        """Descriptions of the flags that keep this row's spot price out of saving claims."""
        return tuple(
            flag(flag_id).description
            for flag_id in self.flags
            if flag(flag_id).effect == "no-spot-saving"
        )

    def warnings(self) -> tuple[str, ...]:
        """Descriptions of the flags a price shown from this row must carry."""
        return tuple(flag(flag_id).description for flag_id in self.flags)

    def basis_note(self) -> str | None:
        """Why another region's price is used; None when it is the region's own."""
        cheapest = f"{self.region} is the cheapest priced region"
        notes = {
            "region": None,
            "same-country": f"no price in {self.asked_region}; {cheapest} in the same country",
            "same-jurisdiction": f"no price in {self.asked_region}; {cheapest} sharing its"
            " jurisdiction",
            "any-region": f"no price in {self.asked_region} or near it; {cheapest} of any",
            "no-region-given": f"no region given; {cheapest}",
        }
        return notes[self.basis]


def _cheapest(rows: Sequence[InstancePriceRow]) -> InstancePriceRow:
    """Lowest on-demand price first (rows without one last), then region name."""
    return min(
        rows,
        key=lambda row: (row.on_demand_per_hour is None, row.on_demand_per_hour or 0.0, row.region),
    )


def _price(row: InstancePriceRow, basis: Basis, asked: str | None) -> InstancePrice:
    return InstancePrice(
        provider=row.provider,
        instance_type=row.instance_type,
        accelerator=row.accelerator,
        accelerator_count=row.accelerator_count,
        region=row.region,
        on_demand_per_hour=row.on_demand_per_hour,
        spot_per_hour=row.spot_per_hour,
        source=row.source,
        flags=row.flags,
        basis=basis,
        asked_region=asked,
    )


def _nearest(
    rows: Sequence[InstancePriceRow], home: Region | None
) -> tuple[InstancePriceRow, Basis]:
    if home is not None:
        places = {row.region: regions.region(row.provider, row.region) for row in rows}
        shared_tags = home.jurisdictions - {home.country}
        tiers: tuple[tuple[Basis, set[str]], ...] = (
            ("same-country", {home.country}),
            ("same-jurisdiction", set(shared_tags)),
        )
        for basis, wanted in tiers:
            near = [
                row
                for row in rows
                if (place := places[row.region]) is not None
                and wanted & (place.jurisdictions | {place.country})
            ]
            if near:
                return _cheapest(near), basis
    return _cheapest(rows), "any-region"


@functools.lru_cache(maxsize=4096)
def instance_price(
    provider: str, instance_type: str, region: str | None, accelerator: str | None = None
) -> InstancePrice | None:
    """The catalogued price of ``instance_type`` in ``region`` (another region's when it has
    none: see the module doc and ``basis``); None when the type is not priced anywhere.

    Names compare through ``name_key``; zones (``us-east-1a``) resolve to their region; Azure
    sizes match with or without ``Standard_``. ``accelerator`` picks among the GPUs a host type
    is priced with (GCP N1 machines); when a type is priced with several and none is named, the
    answer is None: the price depends on the GPU.
    """
    rows = instance_rows(provider, instance_type)
    if accelerator is not None:
        rows = tuple(row for row in rows if name_key(row.accelerator) == name_key(accelerator))
    if len({(name_key(row.accelerator), row.accelerator_count) for row in rows}) != 1:
        return None
    if region is None:
        return _price(_cheapest(rows), "no-region-given", None)
    home = regions.region(provider, region)
    wanted = {name_key(region)} | ({name_key(home.region)} if home else set())
    exact = [row for row in rows if name_key(row.region) in wanted]
    if exact:
        return _price(exact[0], "region", region)
    row, basis = _nearest(rows, home)
    return _price(row, basis, region)


@functools.lru_cache(maxsize=1024)
def cheapest_instance_with_gpus(
    gpu: str, gpus_per_node: float, provider: str | None, region: str | None
) -> InstancePrice | None:
    """The cheapest catalogued instance (on-demand) that holds ``gpus_per_node`` GPUs of the
    ``gpu`` type, of ``provider`` when one is given: what a workload that names its GPUs but no
    instance type costs at least. In ``region`` when it has one priced there, else the nearest
    priced region as :func:`instance_price` finds it (``basis``). None when no catalogued
    instance of that GPU type holds that many."""
    wanted = resolve_gpu(gpu)
    if wanted is None:
        return None
    rows = [
        row
        for row in instance_table()
        if row.on_demand_per_hour is not None
        and row.accelerator_count >= gpus_per_node
        and (provider is None or name_key(row.provider) == name_key(provider))
        and (spec := resolve_gpu(row.accelerator)) is not None
        and spec.name == wanted.name
    ]
    if not rows:
        return None
    if region is None:
        return _price(_cheapest(rows), "no-region-given", None)
    clouds = [provider] if provider is not None else sorted({row.provider for row in rows})
    home = next((found for c in clouds if (found := regions.region(c, region))), None)
    wanted_regions = {name_key(region)} | ({name_key(home.region)} if home else set())
    exact = [row for row in rows if name_key(row.region) in wanted_regions]
    if exact:
        return _price(_cheapest(exact), "region", region)
    row, basis = _nearest(rows, home)
    return _price(row, basis, region)


class SpotSaving(NamedTuple):
    """What spot capacity saves against on-demand for one price, or why no saving is claimed."""

    price: InstancePrice
    #: 1 - spot / on-demand; None when ``withheld`` says why no claim is made.
    fraction: float | None
    per_hour: float | None
    withheld: tuple[str, ...]


def spot_saving(price: InstancePrice) -> SpotSaving:
    """The spot saving of a catalogued price, honouring its caveat flags."""
    withheld = price.spot_withheld_because()
    if price.spot_per_hour is None:
        withheld += (
            f"the catalogue has no spot price for {price.instance_type} in {price.region}",
        )
    if price.on_demand_per_hour is None:
        withheld += (
            f"the catalogue has no on-demand price for {price.instance_type} in {price.region}",
        )
    on_demand, spot = price.on_demand_per_hour, price.spot_per_hour
    if withheld or on_demand is None or spot is None or on_demand == 0:
        return SpotSaving(price, None, None, withheld)
    return SpotSaving(price, 1 - spot / on_demand, on_demand - spot, ())
