"""What a program reads from its environment rather than its flags: the model it loads, named
in variables whose name says so (``MODEL_NAME``, ``MODEL_ID``, ``BASE_MODEL``...), and a
fine-tuning job's LoRA rank, sequence length and micro-batch (``LORA_R``, ``MAX_SEQ_LENGTH``...),
all from ``data/model_env.yaml``. They are read when no engine or launcher flag says them (a
fine-tuning image that reads its settings from env, with the script inside the image).

A name alone does not make a value a model id: the value must have the shape of a Hugging Face
id (``ORG/NAME``: one ``/``, no scheme, not a path, no placeholder) or resolve in the model
catalogue. Anything else (an output name such as ``gemma-2b-sql-finetuned``, ``/models/x``, a
``$(VAR)``) is not read, so an unknown value stays what it is today: no model named."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Literal

from linter.catalog.base import Catalogue, Record, SourcedName
from linter.catalog.models import resolve_model
from linter.declared import Field
from linter.formats.cmdline.launchers import METHOD_FIELD, RANK_FIELD
from linter.formats.vocabulary import read_vocabulary
from linter.records import datarecord

#: ``ORG/NAME`` as the Hub names repositories (letters, digits, ``-``, ``_``, ``.``).
_HUB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*\Z")
_WHOLE = re.compile(r"[1-9][0-9]{0,8}\Z")


class EnvSetting(Record):
    name: str = Field(min_length=1)
    field: Literal["fineTuning.loraRank", "fineTuning.sequenceLength", "fineTuning.microBatchSize"]
    source: str = Field(min_length=1)


class ModelEnvVocabulary(Catalogue):
    """``data/model_env.yaml``."""

    names: list[SourcedName] = Field(min_length=1)
    fine_tuning: list[EnvSetting] = Field(min_length=1)


@functools.cache
def vocabulary() -> ModelEnvVocabulary:
    return read_vocabulary("model_env.yaml", ModelEnvVocabulary)


@datarecord
class EnvValue:
    variable: str  # MODEL_NAME, LORA_R
    field: str  # model.id, fineTuning.loraRank, fineTuning.method
    value: str | int


def model_in_env(environment: Mapping[str, str | None]) -> EnvValue | None:
    """The model id the first model variable of ``environment`` holds, or None."""
    for entry in vocabulary().names:
        value = environment.get(entry.name)
        if isinstance(value, str) and is_model_id(value.strip()):
            return EnvValue(entry.name, "model.id", value.strip())
    return None


def is_model_id(value: str) -> bool:
    """A Hub id's shape, or a name the catalogue resolves (a bare ``gemma-2b``)."""
    if _HUB_ID.match(value):
        return True
    return "/" not in value and ":" not in value and resolve_model(value) is not None


def fine_tuning_in_env(environment: Mapping[str, str | None]) -> list[EnvValue]:
    """The fine-tuning settings ``environment`` gives as whole numbers (the first variable of a
    field wins), and the LoRA method a LoRA rank implies."""
    out: list[EnvValue] = []
    for entry in vocabulary().fine_tuning:
        value = environment.get(entry.name)
        if not isinstance(value, str) or not _WHOLE.match(value.strip()):
            continue
        if all(found.field != entry.field for found in out):
            out.append(EnvValue(entry.name, entry.field, int(value)))
            if entry.field == RANK_FIELD:
                out.append(EnvValue(entry.name, METHOD_FIELD, "lora"))
    return out
