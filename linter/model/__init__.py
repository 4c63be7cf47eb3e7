"""Typed models of the manifest kinds; the one registry of kinds lives here."""

from pydantic import BaseModel

from linter.model.autoscaler import Autoscaler
from linter.model.base import API_GROUP, API_VERSION
from linter.model.capacity_limit import CapacityLimit
from linter.model.quota_ledger import QuotaLedger
from linter.model.workload import Workload

KINDS: dict[str, type[BaseModel]] = {
    "Workload": Workload,
    "QuotaLedger": QuotaLedger,
    "CapacityLimit": CapacityLimit,
    "Autoscaler": Autoscaler,
}

__all__ = [
    "API_GROUP",
    "API_VERSION",
    "KINDS",
    "Autoscaler",
    "CapacityLimit",
    "QuotaLedger",
    "Workload",
]
