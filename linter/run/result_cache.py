"""The result cache: a run over unchanged inputs is answered from the user's cache directory.

Entries are JSON objects under a key the caller computes (linter/run/result_key.py: everything a
run's result depends on). They are kept per repository (a folder named by the hash of its root's
real path) in the store of linter/cache/store.py, so nothing a repository contains, a committed
``.gpulint_cache`` included, is ever read or written as a cache. What :meth:`ResultCache.get`
returns is authentic (written by this user's gpulint) but still only a candidate: the caller
validates it against the run before using it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from linter.cache.store import CacheStore

KEEP_ENTRIES = 12  # per repository: a run keeps up to three (linter/run/reuse.py, report_cache.py)
MAX_ENTRY_BYTES = 64 * 1024 * 1024  # an entry read whole (JSON)
#: An entry read in pieces: the report of a 20,000-file run is about 84 MB.
MAX_LARGE_ENTRY_BYTES = 1024 * 1024 * 1024


class ResultCache:
    """Entries of one repository's runs: JSON objects, or large bytes read in pieces."""

    def __init__(self, store: CacheStore) -> None:
        self._store = store

    @classmethod
    def for_repository(cls, root: Path) -> ResultCache | None:
        """The cache for the repository at ``root``; None when caching is off or unsupported."""
        name = hashlib.sha256(os.fsencode(os.path.realpath(root))).hexdigest()[:32]
        store = CacheStore.for_user(("runs", name), MAX_ENTRY_BYTES, KEEP_ENTRIES)
        return None if store is None else cls(store)

    def get(self, key: str) -> dict[str, Any] | None:
        """The entry stored under ``key``; None on a miss or anything doubtful."""
        payload = self._store.get(key)
        if payload is None:
            return None
        try:
            entry = json.loads(str(payload, "utf-8"))
        except (ValueError, RecursionError):
            return None
        return entry if isinstance(entry, dict) else None

    def put(self, key: str, pieces: Sequence[bytes]) -> None:
        """Store a JSON object given as the pieces of its text, never joined (``get`` reads it
        whole: a run's entry is written one file at a time, linter/run/reuse.py)."""
        self._store.put(key, pieces)

    def open_large(self, key: str, inspect: Callable[[bytes], object]) -> BinaryIO | None:
        """The authentic bytes stored under ``key`` as an open file, checked in pieces by
        ``inspect`` first (linter/commands/kept_report.py keeps reports of any size this way)."""
        return self._store.open_payload(key, MAX_LARGE_ENTRY_BYTES, inspect)

    def put_large(self, key: str, pieces: Sequence[bytes]) -> None:
        """Store the ``pieces`` of a large entry (never joined: each may be tens of MB)."""
        self._store.put(key, pieces, MAX_LARGE_ENTRY_BYTES)
