"""The formats' vocabulary tables, ``linter/formats/data/*.yaml``: the flags of each serving
engine and training launcher with their defaults, the Kubernetes labels and resources that say
where a pod runs, the keys of each launch platform and of production-stack values. They are the
formats' own words, read only by the adapters (each with its typed model beside its reader);
facts about the world (GPUs, models, prices, regions) are the catalogue's, in
``linter/catalog/data``."""

from __future__ import annotations

from pathlib import Path

_FOLDER = Path(__file__).parent / "data"


def vocabulary_file(name: str) -> Path:
    """The path of the vocabulary table ``name`` (``engine_flags.yaml``)."""
    return _FOLDER / name
