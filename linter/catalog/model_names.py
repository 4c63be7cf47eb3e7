"""How people write the names of catalogued models (``data/model_names.yaml``).

Rules, not models: which name endings select a tuned variant of the same weights' architecture,
which organisations republish another organisation's repositories, which endings name a
quantised release of a model (and the precision it stores weights in), and which distilled models
keep their base model's architecture. :mod:`linter.catalog.models` applies them.
"""

from linter.catalog.base import Catalogue, Record, SourceRef, Text, validated
from linter.declared import Field

Suffix = Field(pattern=r"^-[A-Za-z0-9][A-Za-z0-9._-]*$", description="Starts with '-'.")


class VariantSuffix(Record):
    """An ending that names a tuned variant with the base model's config.json shape."""

    suffix: str = Suffix
    source: SourceRef


class Mirror(Record):
    """An organisation whose repositories republish other organisations' models: its
    ``ORG/NAME`` is looked up as ``NAME``."""

    org: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    note: Text
    source: SourceRef


class PrecisionSuffix(Record):
    """An ending that names a quantised release of a model: the base architecture, with its
    weights stored in ``precision`` (a precisions.yaml name)."""

    suffix: str = Suffix
    precision: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    note: Text
    source: SourceRef


class Distill(Record):
    """A distilled model whose published config.json has its base model's shape."""

    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
    base: str = Field(min_length=1, description="A models.yaml id.")
    source: SourceRef


class ModelNamesCatalogue(Catalogue):
    """gpulint model naming rules."""

    variant_suffixes: list[VariantSuffix] = Field(min_length=1)
    mirrors: list[Mirror]
    precision_suffixes: list[PrecisionSuffix]
    distills: list[Distill]


def catalogue() -> ModelNamesCatalogue:
    return validated("model_names", ModelNamesCatalogue)
