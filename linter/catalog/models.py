"""Model architectures: Hugging Face config values of the models gpulint sizes without a
config.json, and the size of their published checkpoints."""

from __future__ import annotations

import functools
from typing import Any

from pydantic import Field

from linter.catalog.base import Catalogue, Record, validated
from linter.catalog.names import name_key

#: Id suffixes that name the same architecture as the base model.
VARIANT_SUFFIXES = ("-instruct", "-chat", "-it")


class ModelRecord(Record):
    """One model: its config.json values and what its published checkpoint holds."""

    id: str = Field(min_length=1, description="Hugging Face id, e.g. meta-llama/Llama-3.1-8B.")
    aliases: list[str] = Field(default_factory=list)
    checkpoint_bytes: int | None = Field(
        None, gt=0, description="Published model.safetensors.index.json metadata.total_size."
    )
    checkpoint_dtype: str | None = Field(
        None, description="Precision the published weights are stored in (precisions.yaml)."
    )
    config: dict[str, Any] = Field(description="Hugging Face config.json values, unchanged.")
    source: str = Field(min_length=1)


class ModelCatalogue(Catalogue):
    """gpulint model architecture catalogue."""

    models: list[ModelRecord] = Field(min_length=1)


def catalogue() -> ModelCatalogue:
    return validated("models", ModelCatalogue)


def catalogue_key(model_id: str) -> str:
    """``model_id`` lower-cased without an ``-Instruct``/``-Chat``/``-it`` suffix."""
    key = model_id.strip().lower()
    for suffix in VARIANT_SUFFIXES:
        if key.endswith(suffix):
            return key[: -len(suffix)]
    return key


def _keys(model_id: str) -> set[str]:
    return {name_key(model_id), name_key(catalogue_key(model_id))}


@functools.cache
def _index() -> dict[str, ModelRecord]:
    index: dict[str, ModelRecord] = {}
    for record in catalogue().models:
        for name in (record.id, *record.aliases):
            for key in _keys(name):
                index.setdefault(key, record)
    return index


@functools.lru_cache(maxsize=4096)
def find_model(model_id: str) -> ModelRecord | None:
    """The catalogue record for an id or alias (case-insensitive; -Instruct/-Chat/-it variants
    of a base model resolve to it)."""
    index = _index()
    return next((index[k] for k in _keys(model_id) if k in index), None)


def catalogue_entry(model_id: str) -> dict[str, Any] | None:
    """The record of ``model_id`` as a plain mapping (``id``, ``aliases``, ...), or None."""
    record = find_model(model_id)
    return None if record is None else record.model_dump()
