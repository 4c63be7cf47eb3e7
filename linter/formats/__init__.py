"""The input formats gpulint reads: one explicit registry, in recognition order.

Recognition is decided on parsed data, never on bytes. The byte test below only spares a
repository's other YAML and JSON the cost of parsing, and it is sound: a key or string value
equal to a marker can only be written without the marker's bytes through an escape sequence
(YAML double-quoted ``\\x2E``, JSON ``\\u0065``, an escaped line break), and every escape
contains a backslash; other encodings (UTF-16/32) are decoded before the test. So a document
that parses as one of ours is always parsed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.formats import (
    dstack,
    kubernetes,
    kubernetes_capacity,
    native,
    production_stack,
    skypilot,
)
from linter.formats.base import Adapted, Format, InputFile

FORMATS: tuple[Format, ...] = (
    native,
    kubernetes_capacity,
    production_stack,
    kubernetes,
    dstack,
    skypilot,
)


MARKERS: tuple[bytes, ...] = tuple(marker for f in FORMATS for marker in f.markers)
"""Every format's markers: a file whose text holds none of them, and no backslash, is not parsed
(``linter.load.read``; see the module docstring for why that is sound)."""


def claimed(text: str) -> bool:
    """Does any format claim a file with this text that fails to parse?"""
    return any(candidate.claims(text) for candidate in FORMATS)


def recognise(data: Any, source: InputFile) -> Format | None:
    """The format a parsed document belongs to, or None (not ours: skipped silently)."""
    if not isinstance(data, Mapping):
        return None
    for candidate in FORMATS:
        if candidate.recognises(data, source):
            return candidate
    return None


__all__ = ["FORMATS", "MARKERS", "Adapted", "Format", "InputFile", "claimed", "recognise"]
