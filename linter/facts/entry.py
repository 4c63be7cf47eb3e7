"""The shape of ``gpulint facts`` output, from which ``schemas/facts.schema.json`` is generated:
per workload, where it came from, the normalised workload, and every fact.

Facts are records (:mod:`linter.facts.base`); the schema is pydantic's, generated from a twin
model of each fact class with the same name, docstring, fields, descriptions and keys. Only the
schema command and the schema tests import this module.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from typing import Any, Union

from pydantic import BaseModel, ConfigDict, Field, create_model

from linter.declared import camel_case
from linter.facts import PROVIDERS
from linter.facts.base import Fact

_TWINS: dict[type[Fact], type[BaseModel]] = {}


def twin(fact: type[Fact]) -> type[BaseModel]:
    """The pydantic model a fact class describes, for its JSON Schema (one per class)."""
    if fact not in _TWINS:
        _TWINS[fact] = _make_twin(fact)
    return _TWINS[fact]


def _make_twin(fact: type[Fact]) -> type[BaseModel]:
    hints = typing.get_type_hints(fact)
    fields: dict[str, Any] = {}
    for field in dataclasses.fields(fact):  # type: ignore[arg-type]
        description = field.metadata.get("description")
        info = Field(description=description) if description is not None else ...
        fields[field.name] = (_twin_type(hints[field.name]), info)
    model: type[BaseModel] = create_model(
        fact.__name__,
        __config__=_config(fact.key_of),
        __doc__=fact.__doc__,
        __module__=fact.__module__,
        **fields,
    )
    return model


def _twin_type(annotation: Any) -> Any:
    """The annotation with every fact class in it replaced by its twin."""
    if isinstance(annotation, type) and issubclass(annotation, Fact):
        return twin(annotation)
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (Union, types.UnionType):
        return functools.reduce(lambda a, b: a | b, (_twin_type(arg) for arg in args))
    if origin in (list, dict):
        return origin[tuple(_twin_type(arg) for arg in args)]
    return annotation


def _config(key_of: Any) -> ConfigDict:
    return ConfigDict(frozen=True, extra="forbid", alias_generator=key_of, populate_by_name=True)


FactsModel = create_model(  # one field per registered provider
    "Facts",
    __config__=_config(camel_case),
    __doc__="Every fact of one workload, as rules read them under `facts`.",
    **{  # type: ignore[call-overload]
        name: (twin(provider.model), ...)
        for name, provider in PROVIDERS.items()
        if "Workload" in provider.kinds
    },
)


class FactsEntry(BaseModel):
    """One workload of ``gpulint facts``."""

    model_config = _config(camel_case)

    file: str = Field(description="The file, as reports show it.")
    document: int = Field(description="Document number in the file, from 0.")
    part: int = Field(
        description="Which workload of that document (a values file may hold several)."
    )
    name: str = Field(description="metadata.name of the normalised workload.")
    format: str = Field(description="The input format it was read as: gpulint, kubernetes, ...")
    source_kind: str | None = Field(description="The original kind: Deployment, SkyPilot task, ...")
    workload: dict[str, Any] = Field(
        description="The normalised gpulint.dev/v1alpha1 Workload (see workload.schema.json)."
    )
    facts: FactsModel
