"""The result cache: a run over unchanged inputs is answered from the user's cache directory.

Entries are JSON objects under a key the caller computes (linter/run_record.py: everything a run's
result depends on). They are kept per repository (a folder named by the hash of its root's real
path) in the store of linter/cache_store.py, so nothing a repository contains, a committed
``.gpulint_cache`` included, is ever read or written as a cache. What :meth:`ResultCache.get`
returns is authentic (written by this user's gpulint) but still only a candidate: the caller
validates it against the run before using it.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from linter.cache_store import CacheStore

KEEP_ENTRIES = 12  # per repository: a run keeps up to three (linter/run_cache.py, report_cache.py)
MAX_ENTRY_BYTES = 64 * 1024 * 1024


class ResultCache:
    """Entries of one repository's runs: JSON objects, or bytes."""

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
        payload = self.get_bytes(key)
        if payload is None:
            return None
        try:
            entry = json.loads(str(payload, "utf-8"))
        except (ValueError, RecursionError):
            return None
        return entry if isinstance(entry, dict) else None

    def put(self, key: str, entry: dict[str, Any]) -> None:
        self.put_bytes(key, json.dumps(entry, separators=(",", ":")).encode())

    def get_bytes(self, key: str) -> memoryview | None:
        """The authentic bytes stored under ``key`` (linter/report_cache.py keeps text)."""
        return self._store.get(key)

    def has(self, key: str) -> bool:
        """Whether something is stored under ``key`` (``get`` still checks it)."""
        return self._store.has(key)

    def put_bytes(self, key: str, payload: bytes) -> None:
        self._store.put(key, payload)
