"""Parsed data files (rules, catalogues) kept as JSON between runs, so start-up skips YAML parsing.

gpulint parses the same files on every run: its catalogues and rule files. A pre-commit hook
feels that (about 60 ms of its start-up), so the parsed form of a file is kept in the user's
cache directory (linter/cache/store.py), keyed by the hash of the exact bytes that were parsed,
what parsed them and gpulint's code: an edit of any kind, whatever it does to the file's size or
modification time, is a miss. JSON only, never pickle; any problem reading or writing the cache
falls back to parsing.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
from collections.abc import Callable
from typing import Any

from linter.bundled import package_stamp
from linter.cache.store import CacheRoot, CacheStore, user_cache_root

KEEP_ENTRIES = 512
#: A first run after an upgrade writes an entry per rule and catalogue, some 60.
PRUNE_EVERY = 64
MAX_ENTRY_BYTES = 16 * 1024 * 1024


def parsed(kind: str, content: bytes, parse: Callable[[], Any]) -> Any:
    """``parse()``, which parses ``content`` as a ``kind`` file (``rule``, ``catalogue gpus``),
    from the cache when the same bytes were parsed the same way before."""
    root = user_cache_root()
    store = None if root is None else _store(root)
    if store is None:
        return parse()
    key = hashlib.sha256(f"{package_stamp()}\0{kind}\0".encode() + content).hexdigest()
    payload = store.get(key)
    if payload is not None:
        try:
            return json.loads(str(payload, "utf-8"))
        except (ValueError, RecursionError):
            pass
    value = parse()
    with contextlib.suppress(TypeError, ValueError, RecursionError):  # not JSON: parsed each time
        store.put(key, json.dumps(value).encode())
    return value


@functools.lru_cache(maxsize=4)
def _store(root: CacheRoot) -> CacheStore:
    """One store per cache root: a run reads some 60 entries, and a store reads the root's
    secret once and keys its MACs once (its folder is still opened, link by link, on every
    read and write)."""
    return CacheStore(root, ("parsed",), MAX_ENTRY_BYTES, KEEP_ENTRIES, PRUNE_EVERY)
