"""Cloud regions (``data/regions.yaml``): country, jurisdiction tags and GDPR adequacy status of
each region, and how zone names are written.

Lookups only: whether a region lies within an allow-list is decided in :mod:`linter.residency`.
"""

import functools
import re
from typing import Annotated, Literal

from linter.catalog.base import Catalogue, Record, Regex, SourceRef, Text, validated
from linter.catalog.endpoints import Cloud, cloud_of
from linter.catalog.spelling import name_key
from linter.declared import Field

Adequacy = Literal["EEA", "adequate", "partial-CA", "partial-US-DPF", "none"]
Partition = Literal["aws", "aws-cn", "aws-us-gov", "aws-eusc"]
Country = Annotated[str, Field(pattern=r"^[A-Z]{2}$", description="ISO 3166-1 alpha-2.")]


class Region(Record):
    """Where a cloud region is."""

    provider: Cloud
    region: str = Field(pattern=r"^[a-z0-9-]+$", description="The provider's region code.")
    name: Text = Field(description="City or area.")
    country: Country
    jurisdictions: frozenset[Annotated[str, Field(pattern=r"^[A-Z]{2,3}$")]] = Field(
        min_length=1,
        strict=False,  # written as a YAML list
        description="The country code and the jurisdictions.yaml tags containing it (EU, EEA, UK).",
    )
    adequacy: Adequacy = Field(description="GDPR Art. 45 status of the country.")
    description: Text | None = None
    partition: Partition | None = None
    geography: Text | None = Field(
        None, description="Azure geography, which bounds regional Azure OpenAI routing."
    )
    note: Text | None = None
    source: SourceRef


class ZoneName(Record):
    """How a zone is named after its region (``us-east-1a``, ``europe-west4-a``)."""

    pattern: Regex = Field(description="Matches a zone name; group 1 is the region code.")
    example: Text
    source: SourceRef


class RegionCatalogue(Catalogue):
    """gpulint region catalogue: cloud region -> country, jurisdiction tags, GDPR adequacy."""

    zones: list[ZoneName]
    regions: list[Region] = Field(min_length=1)


def catalogue() -> RegionCatalogue:
    return validated("regions", RegionCatalogue)


@functools.cache
def _index() -> dict[tuple[str, str], Region]:
    return {(entry.provider, name_key(entry.region)): entry for entry in catalogue().regions}


@functools.cache
def _zone_names() -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(zone.pattern) for zone in catalogue().zones)


@functools.lru_cache(maxsize=4096)
def region(provider: str, code: str) -> Region | None:
    """The catalogued region ``code`` of ``provider`` (a cloud or a managed-service name such as
    ``bedrock``); a zone (``us-east-1a``, ``us-central1-a``) answers its region. None when the
    provider or the region is not catalogued."""
    cloud = cloud_of(provider)
    if cloud is None:
        return None
    code = code.strip().lower()
    found = _index().get((cloud, name_key(code)))
    if found is None:
        for zone in _zone_names():
            match = zone.match(code)
            if match:
                return _index().get((cloud, name_key(match.group(1))))
    return found


def regions_of(cloud: str) -> tuple[Region, ...]:
    """Every catalogued region of a cloud, in catalogue order."""
    return tuple(entry for entry in catalogue().regions if entry.provider == cloud)


def regions_in(cloud: str, jurisdiction: str) -> tuple[Region, ...]:
    """The regions of a cloud whose ``jurisdictions`` carry a tag or country code (``EU``,
    ``US``), in catalogue order."""
    return tuple(entry for entry in regions_of(cloud) if jurisdiction in entry.jurisdictions)


@functools.cache
def clouds() -> tuple[Cloud, ...]:
    """The clouds whose regions are catalogued, in catalogue order."""
    return tuple(dict.fromkeys(entry.provider for entry in catalogue().regions))
