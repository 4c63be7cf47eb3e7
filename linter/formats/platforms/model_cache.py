"""Where a serving engine keeps the model's files (its Hugging Face cache): the environment
variables that move the folder and each engine image's default, from ``data/model_cache.yaml``.
A volume or disk that holds that folder is the model's cache (``model.cacheGib``)."""

from __future__ import annotations

import functools

from linter.catalog.base import Catalogue, Record
from linter.declared import Field
from linter.formats.vocabulary import read_vocabulary


class CacheDefault(Record):
    engine: str = Field(min_length=1)
    image_words: list[str] = Field(default_factory=list)
    path: str = Field(pattern=r"^/")
    source: str = Field(min_length=1)


class CacheTables(Catalogue):
    """``data/model_cache.yaml``."""

    environment: list[str] = Field(min_length=1)
    environment_source: str
    defaults: list[CacheDefault] = Field(min_length=1)


@functools.cache
def tables() -> CacheTables:
    return read_vocabulary("model_cache.yaml", CacheTables)


def moved_by(environment: dict[str, str | None]) -> str | None:
    """The cache folder an environment sets (an absolute path), or None."""
    for name in tables().environment:
        value = environment.get(name)
        if isinstance(value, str) and value.startswith("/"):
            return value
    return None
