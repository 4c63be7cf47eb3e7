"""Cloud regions as places to judge residency by: country, jurisdiction tags, GDPR adequacy."""

from __future__ import annotations

import functools

from linter.catalog import regions
from linter.catalog.regions import Region
from linter.records import datarecord

ANYWHERE = "*"
"""``Destination.region`` for routing that may reach any region of the provider."""


@datarecord
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


@datarecord
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
def _place(region: Region) -> Place:
    """The place of a catalogued region."""
    return Place(
        provider=region.provider,
        region=region.region,
        country=region.country,
        jurisdictions=region.jurisdictions,
        name=region.name,
        adequacy=region.adequacy,
        geography=region.geography,
    )


def region_place(provider: str, region: str) -> Place | None:
    """The place of ``region`` (zones such as ``us-east-1a`` or ``us-central1-a`` resolve to
    their region); None when the provider or region is not in the catalogue. ``provider`` may
    also be a managed-service name (``bedrock``)."""
    found = regions.region(provider, region)
    return _place(found) if found is not None else None


def places_in(cloud: str, jurisdiction: str) -> list[Place]:
    """The places of every region of ``cloud`` carrying a jurisdiction tag or country code."""
    return [_place(found) for found in regions.regions_in(cloud, jurisdiction)]


def provider_places(cloud: str) -> list[Place]:
    """Every catalogued region of a cloud, in catalogue order."""
    return [_place(found) for found in regions.regions_of(cloud)]
