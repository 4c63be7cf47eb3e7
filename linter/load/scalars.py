"""Resolve YAML scalars to Python values under the YAML 1.2 core schema.

The loader never constructs arbitrary objects: a scalar becomes ``None``, ``bool``, ``int``,
``float`` or ``str``, whatever tag it carries. Only the standard ``!!str``/``!!int``/``!!float``/
``!!bool``/``!!null`` tags change the resolution; any other tag is ignored (and so can never run
code, unlike ``!!python/object`` under an unsafe loader).
"""

from __future__ import annotations

import math
import re
from typing import Union

Scalar = Union[None, bool, int, float, str]  # noqa: UP007 - a runtime alias (see positions.py)

_STANDARD = "tag:yaml.org,2002:"
_NULL = {"", "~", "null", "Null", "NULL"}
_TRUE = {"true", "True", "TRUE"}
_FALSE = {"false", "False", "FALSE"}
_INT_DEC = re.compile(r"[-+]?[0-9]+\Z")
_INT_OCT = re.compile(r"0o[0-7]+\Z")
_INT_HEX = re.compile(r"0x[0-9a-fA-F]+\Z")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_INF = re.compile(r"[-+]?\.(?:inf|Inf|INF)\Z")
_NAN = {".nan", ".NaN", ".NAN"}
# The first characters the number patterns above accept.
_NUMBER_STARTS = tuple("+-.0123456789")


class ScalarTagError(ValueError):
    """A scalar explicitly tagged with a standard type that its text does not match."""


def resolve_plain(text: str) -> Scalar:
    """Resolve an untagged plain (unquoted) scalar."""
    if text in _NULL:
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    if not text.startswith(_NUMBER_STARTS):  # most text: no number can start so
        return text
    number = _number(text)
    return text if number is None else number


def _number(text: str) -> int | float | None:
    try:
        return _parse_number(text)
    except ValueError:  # an integer of more digits than Python converts (4,300): keep the text
        return None


def _parse_number(text: str) -> int | float | None:
    if _INT_DEC.match(text):
        return int(text)
    if _INT_OCT.match(text):
        return int(text[2:], 8)
    if _INT_HEX.match(text):
        return int(text[2:], 16)
    if _FLOAT.match(text):
        return float(text)
    if _INF.match(text):
        return -math.inf if text.startswith("-") else math.inf
    if text in _NAN:
        return math.nan
    return None


def resolve(text: str, tag: str | None, plain: bool) -> Scalar:
    """Resolve a scalar given its tag (None when untagged) and whether it was plain."""
    if tag is None or not tag.startswith(_STANDARD):
        return resolve_plain(text) if plain else text
    kind = tag[len(_STANDARD) :]
    if kind == "str":
        return text
    if kind == "null" and text in _NULL:
        return None
    if kind == "bool" and (text in _TRUE or text in _FALSE):
        return text in _TRUE
    number = _number(text) if kind in ("int", "float") else None
    if kind == "int" and isinstance(number, int):
        return number
    if kind == "float" and number is not None:
        return float(number)
    if kind in ("null", "bool", "int", "float"):
        raise ScalarTagError(f"{text!r} is not a valid !!{kind}")
    return resolve_plain(text) if plain else text
