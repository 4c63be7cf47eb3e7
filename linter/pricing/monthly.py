"""What instances cost per hour and per month: nodes x replicas x the hourly price, at the
capacity they run on."""

from typing import Literal, NamedTuple

from linter.catalog.prices import price_book
from linter.pricing.instances import InstancePrice

Capacity = Literal["on-demand", "spot", "reserved"]


def default_hours_per_month() -> float:
    """The hours in a month when a workload does not say (catalogue data, ``prices.yaml``)."""
    return price_book().hours_per_month


class MonthlyCost(NamedTuple):
    price: InstancePrice
    instances: int
    hours_per_month: float
    #: None when the catalogue has no such price (or, for spot, no market price: see flags).
    on_demand: float | None
    spot: float | None


def monthly_cost(
    price: InstancePrice, *, nodes: int, replicas: int, hours_per_month: float
) -> MonthlyCost:
    """What ``nodes`` x ``replicas`` instances cost for ``hours_per_month`` hours."""
    if nodes < 0 or replicas < 0 or hours_per_month < 0:
        raise ValueError("nodes, replicas and hours must not be negative")
    instances = nodes * replicas

    def month(per_hour: float | None) -> float | None:
        return None if per_hour is None else per_hour * instances * hours_per_month

    return MonthlyCost(
        price=price,
        instances=instances,
        hours_per_month=hours_per_month,
        on_demand=month(price.on_demand_per_hour),
        spot=month(price.market_spot_per_hour),
    )


def fleet_per_hour(
    price: InstancePrice,
    capacity: Capacity,
    *,
    nodes: int,
    replicas: int,
    on_demand_replicas: int = 0,
) -> float | None:
    """What ``replicas`` replicas of ``nodes`` instances cost per hour on ``capacity``.

    On spot, ``on_demand_replicas`` of them (a fallback kept on on-demand) pay the on-demand
    price. Reserved capacity is priced at on-demand: the catalogue has no reserved prices, so
    that is a ceiling. None when a price needed is not catalogued (or, for spot, not a market
    price: see the row's flags).
    """
    if min(nodes, replicas, on_demand_replicas) < 0:
        raise ValueError("nodes and replicas must not be negative")
    on_demand_replicas = min(on_demand_replicas, replicas) if capacity == "spot" else replicas
    spot_replicas = replicas - on_demand_replicas
    total = 0.0
    for count, per_hour in (
        (on_demand_replicas, price.on_demand_per_hour),
        (spot_replicas, price.market_spot_per_hour),
    ):
        if count:
            if per_hour is None:
                return None
            total += per_hour * nodes * count
    return total
