"""Cloud regions resolved to places: country, jurisdiction tags, GDPR adequacy status."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from linter import catalog
from linter.residency.names import cloud_of

ANYWHERE = "*"
"""``Destination.region`` for routing that may reach any region of the provider."""

# Zone -> region: AWS us-east-1a, GCP us-central1-a.
_ZONE_SUFFIX = (re.compile(r"^(.*\d)[a-z]$"), re.compile(r"^(.*\d)-[a-z]$"))


@dataclass(frozen=True)
class Place:
    """Where a cloud region is. ``jurisdictions`` holds the ISO country code and the geographic
    tags containing it (``EU``, ``EEA``, ``UK``); ``adequacy`` is the GDPR Art. 45 status of the
    country: ``EEA``, ``adequate``, ``partial-CA``, ``partial-US-DPF`` or ``none``."""

    provider: str
    region: str
    country: str
    jurisdictions: frozenset[str]
    name: str
    adequacy: str
    geography: str | None = None  # Azure geography, which bounds regional Azure OpenAI routing

    def label(self) -> str:
        return f"{self.region} ({self.name}, {self.country})"


@dataclass(frozen=True)
class Destination:
    """A place data sent to an endpoint may be processed, and why.

    ``region`` is a region code, :data:`ANYWHERE` (any region of ``provider``), or None when the
    destination cannot be determined; ``place`` is None unless the catalogue knows the region.
    """

    provider: str
    region: str | None
    place: Place | None
    reason: str


@functools.cache
def _places() -> dict[tuple[str, str], Place]:
    return {
        (row["provider"], row["region"]): Place(
            provider=row["provider"],
            region=row["region"],
            country=row["country"],
            jurisdictions=frozenset(row["jurisdictions"]),
            name=row["name"],
            adequacy=row["adequacy"],
            geography=row.get("geography"),
        )
        for row in catalog.load("regions")["regions"]
    }


@functools.lru_cache(maxsize=4096)
def region_place(provider: str, region: str) -> Place | None:
    """The place of ``region`` (zones such as ``us-east-1a`` or ``us-central1-a`` resolve to
    their region); None when the provider or region is not in the catalogue. ``provider`` may
    also be a managed-service name (``bedrock``)."""
    cloud = cloud_of(provider)
    if cloud is None:
        return None
    code = region.strip().lower()
    place = _places().get((cloud, code))
    if place is None:
        for pattern in _ZONE_SUFFIX:
            match = pattern.match(code)
            if match:
                return _places().get((cloud, match.group(1)))
    return place


def provider_places(provider: str) -> list[Place]:
    """Every catalogued region of a cloud, in catalogue order."""
    return [place for (cloud, _), place in _places().items() if cloud == provider]
