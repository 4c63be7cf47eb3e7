"""Prices of cloud GPU capacity and of managed model APIs, and the self-host vs API break-even.

Pure functions over the price catalogue (``linter.catalog.prices``; no other I/O). Every price
carries the id of its source and the caveat flags of its row; nothing here estimates a price.
"""

from __future__ import annotations

from linter.pricing.allowed import OfferingVerdict, allowed_offerings
from linter.pricing.apis import ManagedOffering, managed_offerings
from linter.pricing.break_even import (
    BreakEven,
    TokenVolume,
    assumed_input_share,
    break_even,
    token_volume,
)
from linter.pricing.compare import (
    Missing,
    OfferingComparison,
    SelfHosted,
    SelfHostingComparison,
    compare_self_hosting,
)
from linter.pricing.hours import HoursBasis, RunningHours, running_hours
from linter.pricing.instances import (
    InstancePrice,
    SpotSaving,
    cheapest_instance_with_gpus,
    instance_price,
    spot_saving,
)
from linter.pricing.monthly import (
    Capacity,
    MonthlyCost,
    default_hours_per_month,
    fleet_per_hour,
    monthly_cost,
)

__all__ = [
    "BreakEven",
    "Capacity",
    "HoursBasis",
    "InstancePrice",
    "ManagedOffering",
    "Missing",
    "MonthlyCost",
    "OfferingComparison",
    "OfferingVerdict",
    "RunningHours",
    "SelfHosted",
    "SelfHostingComparison",
    "SpotSaving",
    "TokenVolume",
    "allowed_offerings",
    "assumed_input_share",
    "break_even",
    "cheapest_instance_with_gpus",
    "compare_self_hosting",
    "default_hours_per_month",
    "fleet_per_hour",
    "instance_price",
    "managed_offerings",
    "monthly_cost",
    "running_hours",
    "spot_saving",
    "token_volume",
]
