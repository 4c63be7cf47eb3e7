"""Data residency: where personal data may be processed, resolved to jurisdictions.

Policy over the catalogue's records (:mod:`linter.catalog.regions`, ``jurisdictions`` and
``endpoints``, which answer the lookups); nothing here raises for an unknown region, it answers
None or returns a destination whose place is None.
"""

from __future__ import annotations

from linter.residency.endpoints import endpoint_destinations
from linter.residency.jurisdictions import allowed_countries, unknown_allowed, within
from linter.residency.places import ANYWHERE, Destination, Place, region_place

__all__ = [
    "ANYWHERE",
    "Destination",
    "Place",
    "allowed_countries",
    "endpoint_destinations",
    "region_place",
    "unknown_allowed",
    "within",
]
