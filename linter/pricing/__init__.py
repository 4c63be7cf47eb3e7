"""Prices of cloud GPU capacity and of managed model APIs, and the self-host vs API break-even.

Pure functions over the packaged catalogue ``linter/catalog/data/prices.yaml`` (no other I/O).
Every price carries the id of the source it was copied from; nothing here estimates a price.
"""

from __future__ import annotations

from linter.pricing.apis import ApiPrice, Offering, api_price, managed_offerings
from linter.pricing.break_even import (
    ASSUMED_INPUT_SHARE,
    HOURS_PER_MONTH,
    BreakEven,
    break_even,
)
from linter.pricing.instances import InstancePrice, instance_price

__all__ = [
    "ASSUMED_INPUT_SHARE",
    "HOURS_PER_MONTH",
    "ApiPrice",
    "BreakEven",
    "InstancePrice",
    "Offering",
    "api_price",
    "break_even",
    "instance_price",
    "managed_offerings",
]
