"""The formats' vocabulary tables, ``linter/formats/data/*.yaml``: the flags of each serving
engine and training launcher with their defaults, the Kubernetes labels and resources that say
where a pod runs, the keys of each launch platform and of production-stack values. They are the
formats' own words, read only by the adapters (each with its typed model beside its reader);
facts about the world (GPUs, models, prices, regions) are the catalogue's, in
``linter/catalog/data``."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from linter.catalog import load_file
from linter.catalog.prevalidated import prevalidated

_FOLDER = Path(__file__).parent / "data"

M = TypeVar("M")  # a declared record class (linter/declared)


def vocabulary_file(name: str) -> Path:
    """The path of the vocabulary table ``name`` (``engine_flags.yaml``)."""
    return _FOLDER / name


def read_vocabulary(name: str, model: type[M]) -> M:
    """The table ``name`` as a ``model``. Packaged data that the tests validate against its model
    (tests/test_prevalidated.py), so it is built without checking it again
    (linter/catalog/prevalidated.py); :func:`checked_vocabulary` validates it."""
    return prevalidated(model, load_file(vocabulary_file(name)))


def checked_vocabulary(name: str, model: type[M]) -> M:
    """The table ``name`` validated against ``model``: what the tests hold it to."""
    return model.model_validate(load_file(vocabulary_file(name)))  # type: ignore[attr-defined,no-any-return]
