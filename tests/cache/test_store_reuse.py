"""A store written and read many times in one process: its secret read once, its folder
pruned at the first write and then every ``prune_every``-th."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from linter.cache import parse_cache, store
from linter.cache.store import CacheRoot, CacheStore


@pytest.fixture
def root(tmp_path: Path) -> CacheRoot:
    return CacheRoot(tmp_path / "cache", ())


def _entries(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


def test_the_folder_is_pruned_at_the_first_write_and_every_nth(root: CacheRoot) -> None:
    cache = CacheStore(root, ("parsed",), max_bytes=100, keep=2, prune_every=3)
    folder = root.base / "parsed"
    for number in range(6):
        key = f"{number:064x}"
        cache.put(key, b"payload")
        os.utime(folder / f"entry-{key}.bin", (number, number))
    # pruned at writes 0 and 3 (keeping the two newest then: 2 and 3), not at 4 and 5
    assert _entries(folder) == [f"entry-{n:064x}.bin" for n in (2, 3, 4, 5)]
    cache.put(f"{6:064x}", b"payload")  # the 7th write prunes again
    assert len(_entries(folder)) == 2


def test_a_store_reads_its_secret_once(root: CacheRoot, monkeypatch: pytest.MonkeyPatch) -> None:
    CacheStore(root, ("other",), max_bytes=100, keep=8).put("f" * 64, b"")  # makes the secret
    reads: list[int] = []
    read_secret = store._read_secret
    monkeypatch.setattr(store, "_read_secret", lambda fd: reads.append(fd) or read_secret(fd))
    cache = CacheStore(root, ("parsed",), max_bytes=100, keep=8)
    for number in range(3):
        cache.put(f"{number:064x}", b"payload %d" % number)
    assert [cache.get(f"{n:064x}") for n in range(3)] == [b"payload 0", b"payload 1", b"payload 2"]
    assert len(reads) == 1


def test_parsed_files_share_one_store_per_cache_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GPULINT_NO_CACHE", raising=False)
    stores = []
    for name in ("a", "a", "b"):
        monkeypatch.setenv("GPULINT_CACHE_DIR", str(tmp_path / name))
        root = store.user_cache_root()
        assert root is not None
        stores.append(parse_cache._store(root))
    assert stores[0] is stores[1] and stores[1] is not stores[2]
    first = parse_cache.parsed("rule", b"x: 1\n", lambda: {"x": 1})
    second = parse_cache.parsed("rule", b"x: 1\n", lambda: {"x": 2})
    assert (first, second) == ({"x": 1}, {"x": 1})  # the second from the store


def test_the_cache_root_follows_every_variable_it_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Worked out once per value: a variable changed between two calls changes the root."""
    for name in ("GPULINT_NO_CACHE", "GPULINT_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert store.user_cache_root() == CacheRoot(tmp_path / "home" / ".cache", ("gpulint",))
    monkeypatch.setenv("HOME", str(tmp_path / "other"))
    assert store.user_cache_root() == CacheRoot(tmp_path / "other" / ".cache", ("gpulint",))
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")  # invalid: ignored
    assert store.user_cache_root() == CacheRoot(tmp_path / "other" / ".cache", ("gpulint",))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert store.user_cache_root() == CacheRoot(tmp_path / "xdg", ("gpulint",))
    monkeypatch.setenv("GPULINT_CACHE_DIR", str(tmp_path / "mine"))
    assert store.user_cache_root() == CacheRoot(tmp_path / "mine", ())
    monkeypatch.setenv("GPULINT_NO_CACHE", "1")
    assert store.user_cache_root() is None
    monkeypatch.delenv("GPULINT_NO_CACHE")
    assert store.user_cache_root() == CacheRoot(tmp_path / "mine", ())
