"""The ``names`` fact: what the file being read calls each normalised field, so messages and
fixes speak its vocabulary (``--max-model-len``, ``vllmConfig.maxModelLen``,
``spec.serving.maxContextTokens``)."""

from __future__ import annotations

import functools
from typing import Any

from pydantic import Field, create_model

from linter.facts.base import Fact
from linter.facts.subject import Subject
from linter.load.positions import format_path
from linter.model.fields import FIELDS

_definitions: dict[str, Any] = {
    name: (str, Field(description=f"The file's name for {format_path(field.path)}."))
    for name, field in FIELDS.items()
}
NamesFact = create_model(  # one field per entry of linter.model.fields.FIELDS
    "NamesFact", __base__=Fact, __doc__="What the file calls each field.", **_definitions
)


def compute(subject: Subject) -> Fact:
    provenance = subject.manifest.provenance
    if not provenance.names:  # gpulint's own format: every field is named by its path
        return _own_names()
    return _fact({name: provenance.name(field.path) for name, field in FIELDS.items()})


@functools.cache
def _own_names() -> Fact:
    return _fact({name: format_path(field.path) for name, field in FIELDS.items()})


def _fact(names: dict[str, str]) -> Fact:
    fact: Fact = NamesFact.model_validate(names)
    return fact
