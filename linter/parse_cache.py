"""Parsed data files kept as JSON between runs, so start-up skips YAML parsing.

gpulint parses the same files on every run: its catalogues and rule files. A pre-commit hook
feels that (about 60 ms of its start-up), so the parsed form of a file is kept in the user cache
directory, keyed by gpulint's version and the file's path, size and modification time. JSON
only, never pickle; any problem reading or writing the cache falls back to parsing.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from linter import __version__


def cache_directory() -> Path | None:
    """``$XDG_CACHE_HOME/gpulint`` (or ``~/.cache/gpulint``); None with GPULINT_NO_CACHE set."""
    if os.environ.get("GPULINT_NO_CACHE"):
        return None
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gpulint" / "derived"


def parsed(path: Path, parse: Callable[[], Any]) -> Any:
    """``parse()`` of the file at ``path``, from the cache when the file has not changed."""
    directory = cache_directory()
    try:
        stat = path.stat()
    except OSError:
        return parse()
    if directory is None:
        return parse()
    stamp = f"{__version__}\0{path.resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}"
    entry = directory / (hashlib.sha256(stamp.encode()).hexdigest() + ".json")
    try:
        return json.loads(entry.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    value = parse()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        temporary = entry.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps(value), encoding="utf-8")
        temporary.replace(entry)
    except (OSError, TypeError, ValueError):
        pass
    return value
