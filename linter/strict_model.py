"""The base of gpulint's strict camelCase models: manifests, ``.gpulint.yaml`` and rule files."""

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


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
