"""The ``names`` fact: what the file being read calls each normalised field, so messages and
fixes speak its vocabulary (``--max-model-len``, ``vllmConfig.maxModelLen``,
``spec.serving.maxContextTokens``)."""

from __future__ import annotations

import functools

from linter.facts.base import Fact, described
from linter.facts.subject import Subject
from linter.load.positions import format_path
from linter.model.fields import FIELDS

NamesFact: type[Fact] = type(  # one field per entry of linter.model.fields.FIELDS
    "NamesFact",
    (Fact,),
    {
        "__module__": __name__,
        "__qualname__": "NamesFact",
        "__doc__": "What the file calls each field.",
        "__annotations__": dict.fromkeys(FIELDS, str),
        **{
            name: described(f"The file's name for {format_path(field.path)}.")
            for name, field in FIELDS.items()
        },
    },
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
    return NamesFact(**names)
