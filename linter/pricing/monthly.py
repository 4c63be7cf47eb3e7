"""Monthly cost of instances: nodes x replicas x hours per month x the hourly price."""

from __future__ import annotations

from dataclasses import dataclass

from linter.catalog.prices import prices
from linter.pricing.instances import InstancePrice


def default_hours_per_month() -> float:
    """The hours in a month when a workload does not say (catalogue data, ``prices.yaml``)."""
    return prices().hours_per_month


@dataclass(frozen=True)
class MonthlyCost:
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
