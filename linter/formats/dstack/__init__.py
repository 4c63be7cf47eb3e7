"""dstack configurations (``.dstack.yml``: ``type: task | service | dev-environment | fleet``).

Recognition: ``type`` is one of those four, and either the file is named ``.dstack.yml`` or
``<name>.dstack.yml`` (dstack requires it: a strong hint) or every top-level key is one dstack
knows for that type (``core/models/configurations.py`` and ``fleets.py``; data in
``platforms.yaml``). Gateways, volumes and presets are dstack files but not workloads: not read.
The type values are the byte markers: every recognised document holds one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from linter.formats.base import Adapted, InputFile
from linter.formats.dstack.configuration import FORMAT
from linter.formats.dstack.configuration import adapt as _adapt
from linter.formats.markers import DSTACK
from linter.formats.platforms import platforms
from linter.load import Document

name: str = FORMAT
markers: tuple[bytes, ...] = DSTACK

_TYPE_LINE = re.compile(
    r"^type:\s*[\"']?(task|service|dev-environment|fleet)[\"']?\s*(#.*)?$", re.M
)
_RUN_KEY = re.compile(r"^(commands|resources|nodes|ide|port|image):", re.M)


def recognises(data: Mapping[str, Any], source: InputFile) -> bool:
    vocab = platforms().dstack
    kind = data.get("type")
    if kind not in vocab.types:
        return False
    file_name = source.fs_path.name
    if file_name.endswith((vocab.file_suffix, vocab.file_suffix.replace(".yml", ".yaml"))):
        return True
    keys = vocab.fleet_keys if kind == "fleet" else vocab.run_keys
    return all(isinstance(key, str) and key in keys for key in data)


def claims(text: str) -> bool:
    """A broken file with dstack's top-level ``type:`` line and a run or fleet key."""
    return bool(_TYPE_LINE.search(text) and _RUN_KEY.search(text))


def adapt(document: Document, source: InputFile) -> Adapted:
    return _adapt(document, source)


__all__ = ["adapt", "claims", "markers", "name", "recognises"]
