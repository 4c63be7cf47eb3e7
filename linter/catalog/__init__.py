"""Versioned catalogue data (GPUs, instance types, models, regions, quotas, prices).

Each data file in ``data/`` is YAML with a top-level ``as_of`` and ``sources`` and per-entry
``source`` where a value came from a specific document. Files are parsed on first use only, so
commands that never consult the catalogue do not pay for it; they go through the same loader as
manifests (faster than ruamel's constructor, and with positions in any error).
"""

import functools
from pathlib import Path
from typing import Any

from linter.cache.parse_cache import parsed
from linter.load import load_text


class CatalogueError(Exception):
    """A packaged data file that does not parse: a packaging bug, reported with its position."""


@functools.cache
def load(name: str) -> Any:
    """Return the parsed contents of ``data/<name>.yaml`` (cached for the process, and parsed
    only once per change of the file across runs)."""
    return load_file(Path(__file__).resolve().parent / "data" / f"{name}.yaml")


def load_file(path: Path) -> Any:
    """The parsed contents of a packaged YAML data file, the catalogue's or another module's
    (parsed only once per change of the file across runs)."""
    content = path.read_bytes()  # packaged with gpulint: trusted, and small
    return parsed(f"data file {path.name}", content, lambda: _parse(path, content.decode("utf-8")))


def _parse(path: Path, text: str) -> Any:
    loaded = load_text(text)
    if loaded.problems or len(loaded.documents) != 1:
        where = loaded.problems[0] if loaded.problems else None
        detail = (
            f"{where.span.line}:{where.span.column}: {where.message}"
            if where
            else "not one document"
        )
        raise CatalogueError(f"data file {path.name}: {detail}")
    return loaded.documents[0].data
