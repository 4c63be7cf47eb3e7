"""Shared pieces of the manifest kinds: the API version, metadata, counts with suffixes."""

import re
from typing import Annotated, Any

from linter.declared import BeforeValidator, CamelRecord, Field, WithJsonSchema

API_GROUP = "gpulint.dev"
API_VERSION = f"{API_GROUP}/v1alpha1"


# The suffix's blanks belong to it: two blank runs around an optional suffix
# (``\s*([KMBT]?)\s*``) made a long run of blanks cost its square in backtracking, here and in
# the published schema's pattern.
_COUNT = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)(?:\s*([KkMmBbTt]))?\s*$")
_SCALE = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "t": 1e12}
#: The longest parameter count read: the expression sees at most this much of a value.
MAX_COUNT_TEXT = 64


def parse_count(value: Any) -> Any:
    """Turn ``70B``, ``1.5T``, ``350M`` or ``7.2e9`` into a number; leave anything else to the
    type check so that it is reported with the value the user wrote."""
    if isinstance(value, str):
        written = value.strip()
        match = _COUNT.match(written) if len(written) <= MAX_COUNT_TEXT else None
        if match:
            return float(match.group(1)) * _SCALE[(match.group(2) or "").lower()]
    return value


ParameterCount = Annotated[
    float,
    BeforeValidator(parse_count),
    Field(gt=0, allow_inf_nan=False),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "number", "exclusiveMinimum": 0},
                {"type": "string", "pattern": _COUNT.pattern},
            ],
            "description": "Parameter count: a number (7.2e9) or a string with a K/M/B/T "
            "suffix (70B).",
        }
    ),
]


# Like a Kubernetes object name (an RFC 1123 subdomain), with underscores allowed: lower-case
# letters, digits, '-', '.' and '_', starting and ending with a letter or digit. Names are shown
# in terminals, CI logs and messages; this keeps control characters and look-alike tricks out.
NAME_PATTERN = r"^[a-z0-9]([a-z0-9._-]*[a-z0-9])?$"


class Metadata(CamelRecord):
    name: str = Field(
        min_length=1,
        max_length=253,
        pattern=NAME_PATTERN,
        description="Name of this document: lower-case letters, digits, '-', '.' and '_', "
        "starting and ending with a letter or digit.",
    )
    namespace: str | None = Field(
        None,
        min_length=1,
        max_length=253,
        description="Kubernetes namespace of the object it was read from (ResourceQuota scope).",
    )
    labels: dict[str, str] = Field(default_factory=dict)
    annotations: dict[str, str] = Field(default_factory=dict)
