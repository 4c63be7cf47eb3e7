"""The base of gpulint's strict camelCase models: manifests, ``.gpulint.yaml`` and rule files."""

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


def empty_list() -> list[Any]:
    """A new empty list: the ``default_factory`` of gpulint's list fields, in place of ``list``.

    pydantic reads the signature of every field's factory (to learn whether it takes the
    validated data), once when the model is defined and once when its validator is built; for
    ``list`` that means parsing its C text signature (~0.3 ms each), for this function nothing
    (issue 31: about 24 times in a one-file run)."""
    return []


class Strict(BaseModel):
    """Files' spelling (camelCase), no coercion, no extra keys, immutable.

    Strict typing is deliberate: ``count: "8"`` is a mistake a linter should report, not fix.

    Every gpulint model defers building its validator to its first use (``defer_build``): a run
    over one manifest uses about 30 of the 120 models (manifest, facts, catalogue, rule and
    configuration models), and building the others at import cost start-up time.
    """

    model_config = ConfigDict(
        defer_build=True,
        strict=True,
        extra="forbid",
        frozen=True,
        alias_generator=to_camel,
        populate_by_name=True,
    )
