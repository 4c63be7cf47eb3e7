"""Typed catalogue records: the shape every data file in ``data/`` is validated against.

Each catalogue module (``gpus``, ``instances``, ``prices``, ...) declares a :class:`Catalogue`
subclass for its file and registers it in :mod:`linter.catalog.schemas`, which generates the
published JSON Schema in ``schemas/catalog/`` from it (a test fails while that file is stale).
Modules expose indexed accessors (``resolve_gpu(name)``) over :func:`validated` data and keep no
arithmetic or policy: that stays in memory/, quota/, residency/ and pricing/.

Every catalogue has ``as_of`` and ``sources`` (each value's ``source`` names one of them, or cites
its document directly); field names are snake_case as in the data files.
"""

import functools
import re
from typing import Annotated, Any, TypeVar, cast

from linter.catalog import CatalogueError, load
from linter.catalog.prevalidated import prevalidated
from linter.declared import AfterValidator, Field, Record

DATE = r"^\d{4}-\d{2}-\d{2}$"

SOURCE_ID = r"^[a-z0-9][a-z0-9.-]*$"

SourceRef = Annotated[str, Field(pattern=SOURCE_ID, description="The id of an entry in `sources`.")]
"""A value's ``source``: the id of one of its catalogue's sources."""

Text = Annotated[str, Field(min_length=1)]


def _compiles(pattern: str) -> str:
    try:
        re.compile(pattern)
    except re.error as err:
        raise ValueError(f"not a regular expression: {err}") from None
    return pattern


Regex = Annotated[str, AfterValidator(_compiles), Field(json_schema_extra={"format": "regex"})]
"""A regular expression (Python syntax) that must compile."""


__all__ = ["Record"]  # the base of every catalogue record: immutable, no unknown keys, no coercion


class Citation(Record):
    id: str = Field(pattern=SOURCE_ID)
    title: str = Field(
        min_length=1, description="The document: page title, repository path and commit."
    )
    retrieved: str | None = Field(None, pattern=DATE)


class SourcedName(Record):
    """A name a vocabulary table lists (a label key, a resource name) and where it was read."""

    name: str = Field(min_length=1)
    source: str = Field(min_length=1)


class Catalogue(Record):
    """Fields every catalogue file has; subclasses add their entries."""

    as_of: str = Field(pattern=DATE, description="When the values were last checked.")
    sources: list[Citation] = Field(min_length=1)

    @classmethod
    def assemble(cls, document: Any) -> Any:
        """What is validated: the parsed ``data/<name>.yaml``. A catalogue that keeps large tables
        in files beside it (CSV parses about 40 times faster than YAML) adds their rows here."""
        return document


C = TypeVar("C", bound=Catalogue)


def validated(name: str, model: type[C]) -> C:
    """``data/<name>.yaml`` as a ``model`` (once per process). Packaged data that the tests
    validate against its model (tests/test_prevalidated.py), so it is built here
    without checking it again (linter/catalog/prevalidated.py); :func:`checked` validates it."""
    return _validated(name, cast(Any, model))  # type: ignore[return-value]


@functools.cache
def _validated(name: str, model: type[Catalogue]) -> Catalogue:
    return prevalidated(model, model.assemble(load(name)))


def checked(name: str, model: type[C]) -> C:
    """``data/<name>.yaml`` validated against ``model``: what the tests hold the data to."""
    from pydantic import ValidationError

    try:
        return model.model_validate(model.assemble(load(name)))
    except ValidationError as err:
        raise CatalogueError(f"catalogue {name}.yaml does not match its schema: {err}") from None
