"""Jurisdiction tags of residency allow-lists and the GDPR adequacy decisions behind them
(``data/jurisdictions.yaml``).

A tag expands to ISO 3166-1 alpha-2 country codes: its own ``countries``, the countries of the
tags it ``includes``, and the countries whose adequacy decision has one of its ``adequacy``
scopes. What an allow-list entry that is not a tag means is decided in :mod:`linter.residency`.
"""

import functools
from typing import Literal

from linter.catalog.base import DATE, Catalogue, Record, SourceRef, Text, validated
from linter.catalog.regions import Country
from linter.catalog.spelling import name_key
from linter.declared import Field, empty_list, model_validator

Scope = Literal["full", "partial"]


class Tag(Record):
    description: Text
    countries: list[Country] = Field(default_factory=empty_list)
    includes: list[Text] = Field(
        default_factory=empty_list, description="Tags whose countries it has."
    )
    adequacy: list[Scope] = Field(
        default_factory=empty_list,
        description="Adds the countries of adequacy decisions of these scopes.",
    )
    source: SourceRef


class AdequacyDecision(Record):
    """An EU adequacy decision (GDPR Art. 45): ``full`` covers the whole jurisdiction,
    ``partial`` only some recipients (Canada: PIPEDA; US: Data Privacy Framework)."""

    country: Country
    name: Text
    scope: Scope
    note: Text | None = None
    valid_until: str | None = Field(None, pattern=DATE)
    source: SourceRef


class JurisdictionCatalogue(Catalogue):
    """gpulint jurisdiction tags and GDPR adequacy decisions."""

    tags: dict[str, Tag] = Field(min_length=1)
    adequacy_decisions: list[AdequacyDecision]

    @model_validator(mode="after")
    def _includes_are_tags(self) -> "JurisdictionCatalogue":
        unknown = sorted(
            {name for tag in self.tags.values() for name in tag.includes} - set(self.tags)
        )
        if unknown:
            raise ValueError(f"tags include undefined tags: {', '.join(unknown)}")
        return self


def catalogue() -> JurisdictionCatalogue:
    return validated("jurisdictions", JurisdictionCatalogue)


def adequacy_decisions() -> tuple[AdequacyDecision, ...]:
    return tuple(catalogue().adequacy_decisions)


@functools.cache
def tag_countries() -> dict[str, frozenset[str]]:
    """Every tag (as written in the catalogue: ``EU``, ``adequacy``) -> its countries."""
    tags = catalogue().tags
    by_scope: dict[str, set[str]] = {}
    for decision in adequacy_decisions():
        by_scope.setdefault(decision.scope, set()).add(decision.country)

    def expand(name: str, seen: frozenset[str]) -> frozenset[str]:
        tag = tags[name]
        found = set(tag.countries)
        for scope in tag.adequacy:
            found |= by_scope.get(scope, set())
        for included in tag.includes:
            if included not in seen:
                found |= expand(included, seen | {included})
        return frozenset(found)

    return {name: expand(name, frozenset({name})) for name in tags}


@functools.cache
def _by_key() -> dict[str, frozenset[str]]:
    return {name_key(name): countries for name, countries in tag_countries().items()}


def countries_of_tag(name: str) -> frozenset[str] | None:
    """The countries of a jurisdiction tag (``eu``, ``Adequacy-Partial``); None when ``name`` is
    not a tag."""
    return _by_key().get(name_key(name))
