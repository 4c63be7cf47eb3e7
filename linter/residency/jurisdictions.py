"""Residency allow-lists: jurisdiction tags expanded to countries, and the ``within`` test.

Semantics of an allow-list entry (case and punctuation do not matter):

- ``EU``: the 27 EU member states only (not IS/LI/NO, not the UK or Switzerland).
- ``EEA``: the EU plus Iceland, Liechtenstein and Norway.
- ``UK``: the United Kingdom (same as ``GB``).
- ``adequacy``: the EEA plus every country with a whole-jurisdiction EU adequacy decision
  (GDPR Art. 45: e.g. CH, GB, JP, KR, IL, NZ). The partial decisions (Canada: PIPEDA recipients;
  US: Data Privacy Framework certified organisations) are not included: the linter cannot see
  whether a recipient is covered.
- ``adequacy-partial``: ``adequacy`` plus CA and US, for organisations that hold that evidence.
- any other two-letter entry: an ISO 3166-1 country code (``DE``, ``CH``, ``US``).

Anything else matches nothing; :func:`unknown_allowed` lists such entries so they can be
reported. The tags and their members are data (:mod:`linter.catalog.jurisdictions`), not code.
"""

from __future__ import annotations

from collections.abc import Iterable

from linter.residency.places import ANYWHERE, Destination, Place


def _entry_countries(entry: str) -> frozenset[str] | None:
    # the jurisdiction catalogue's models are defined only when an allow-list is read (issue 31)
    from linter.catalog.jurisdictions import countries_of_tag

    text = entry.strip()
    tag = countries_of_tag(text)
    if tag is not None:
        return tag
    if len(text) == 2 and text.isalpha() and text.isascii():
        return frozenset({text.upper()})
    return None


def allowed_countries(allowed: Iterable[str]) -> frozenset[str]:
    """The ISO country codes an allow-list admits."""
    found: set[str] = set()
    for entry in allowed:
        found |= _entry_countries(entry) or frozenset()
    return frozenset(found)


def unknown_allowed(allowed: Iterable[str]) -> list[str]:
    """Allow-list entries that are neither a known tag nor a two-letter country code."""
    return [entry for entry in allowed if _entry_countries(entry) is None]


def within(where: Place | Destination | None, allowed: Iterable[str]) -> bool | None:
    """Whether a place (or a destination's place) lies in the allow-list.

    Returns None when the place is unknown (a region missing from the catalogue, or a destination
    that could not be determined), and False for a destination that may be :data:`ANYWHERE`:
    unbounded routing is never within a list of jurisdictions.
    """
    if isinstance(where, Destination):
        if where.place is None:
            return False if where.region == ANYWHERE else None
        where = where.place
    if where is None:
        return None
    return where.country in allowed_countries(allowed)
