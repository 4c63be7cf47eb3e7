"""Accelerator and managed-API quota arithmetic, and regional availability hints.

Arithmetic and matching over the catalogue's records (:mod:`linter.catalog.quotas`,
``endpoints`` and ``availability``, which answer the lookups); callers pass instance shapes in, so
nothing here depends on the instance-type catalogue.
"""

from __future__ import annotations

from linter.quota.compute import quota_for
from linter.quota.keys import (
    ANY_CAPACITY,
    SPOT,
    ManagedQuotaKey,
    QuotaKey,
    matches,
    units_needed,
)
from linter.quota.managed_throughput import dynamic_shared_quota, endpoint_quota
from linter.quota.region_offer import offered_in_region

__all__ = [
    "ANY_CAPACITY",
    "SPOT",
    "ManagedQuotaKey",
    "QuotaKey",
    "dynamic_shared_quota",
    "endpoint_quota",
    "matches",
    "offered_in_region",
    "quota_for",
    "units_needed",
]
