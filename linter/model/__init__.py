"""Typed models of the manifest kinds; the one registry of kinds lives here.

Only ``Workload`` is imported with the package: the other kinds' models are defined when a run
first meets one (:func:`kind_model`), as most runs hold Workloads alone and defining the nine
records of the others costs start-up time (issue 31)."""

import functools
import importlib

from linter.declared import Record
from linter.model.base import API_GROUP, API_VERSION
from linter.model.workload import Workload

#: Each manifest kind and the module that defines its model (the class is named as the kind).
KIND_MODULES: dict[str, str] = {
    "Workload": "linter.model.workload",
    "QuotaLedger": "linter.model.quota_ledger",
    "CapacityLimit": "linter.model.capacity_limit",
    "Autoscaler": "linter.model.autoscaler",
}
#: The manifest kinds, in the order the schemas list them.
KINDS: tuple[str, ...] = tuple(KIND_MODULES)


@functools.cache  # asked for each manifest a reader builds
def kind_model(kind: str) -> type[Record]:
    """The record class of a manifest kind (KeyError for a kind that is not gpulint's)."""
    model: type[Record] = getattr(importlib.import_module(KIND_MODULES[kind]), kind)
    return model


__all__ = ["API_GROUP", "API_VERSION", "KINDS", "KIND_MODULES", "Workload", "kind_model"]
