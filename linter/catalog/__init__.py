"""Versioned catalogue data (GPUs, instance types, models, regions, quotas).

Each data file in ``data/`` is YAML with a top-level ``as_of`` and ``sources`` and per-entry
``source`` where a value came from a specific document. Files are parsed on first use only, so
commands that never consult the catalogue do not pay for it.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Any

from ruamel.yaml import YAML


@functools.lru_cache(maxsize=None)
def load(name: str) -> Any:
    """Return the parsed contents of ``data/<name>.yaml`` (cached for the process)."""
    text = resources.files(__package__).joinpath("data").joinpath(f"{name}.yaml").read_text("utf-8")
    return YAML(typ="safe", pure=False).load(text)
