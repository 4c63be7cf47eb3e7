"""Plain data a run holds for every file, kept compressed so that memory stays flat as runs grow.

The second pass needs something of every file at once (its records, its wide parts), but
as Python objects that is several KiB a file: 20,000 files would hold more than everything else
in the run together. Kept in chunks of consecutive items, pickled and compressed, it is about a
hundred bytes a file (workloads repeat most of each other's keys and values), and each chunk is
unpacked when it is read, in run order, and let go again.

Chunks are made and read by this process and the worker processes it forks, never stored: the
result cache keeps its own JSON form (linter/run/reuse.py), so nothing unpickled here was ever
outside the run.
"""

from __future__ import annotations

import functools
import pickle
import zlib
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

T = TypeVar("T")

#: Items per chunk: large enough for compression to find the repetition between workloads,
#: small enough that unpacking one to read one item stays cheap.
CHUNK_ITEMS = 64
#: zlib's fastest level: the repetition is plain, and packing runs once per file in pass 1.
_LEVEL = 1


class Chunk:
    """Some items, pickled and compressed together."""

    __slots__ = ("blob",)

    def __init__(self, items: Sequence[Any]) -> None:
        self.blob = zlib.compress(pickle.dumps(list(items), pickle.HIGHEST_PROTOCOL), _LEVEL)

    def items(self) -> list[Any]:
        """The items, unpacked; the last few chunks read stay unpacked, since the items of one
        chunk are read one after another."""
        return _unpacked(self)


@functools.lru_cache(maxsize=8)
def _unpacked(chunk: Chunk) -> list[Any]:
    return _unpack(chunk.blob)


def _unpack(blob: bytes) -> list[Any]:
    return pickle.loads(zlib.decompress(blob))  # type: ignore[no-any-return]


def pack(
    items: Sequence[Any], make: Callable[[Sequence[Any]], Chunk] = Chunk
) -> list[tuple[Chunk, int]]:
    """Where each of ``items`` is once packed: its chunk (``make`` of the items in it) and its
    number in it."""
    out: list[tuple[Chunk, int]] = []
    for start in range(0, len(items), CHUNK_ITEMS):
        chunk = make(items[start : start + CHUNK_ITEMS])
        out.extend((chunk, number) for number in range(min(CHUNK_ITEMS, len(items) - start)))
    return out


class PackedList(Collection[T], Generic[T]):
    """An append-only list of plain data, packed in chunks; read in order, as often as needed."""

    def __init__(self, items: Iterable[T] = ()) -> None:
        self._chunks: list[Chunk] = []
        self._open: list[T] = []
        self._length = 0
        for item in items:
            self.append(item)

    def append(self, item: T) -> None:
        self._open.append(item)
        self._length += 1
        if len(self._open) == CHUNK_ITEMS:
            self._chunks.append(Chunk(self._open))
            self._open = []

    def extend_packed(self, chunk: Chunk, count: int) -> None:
        """Append the ``count`` items packed in ``chunk``, after those appended so far."""
        if self._open:
            self._chunks.append(Chunk(self._open))
            self._open = []
        self._chunks.append(chunk)
        self._length += count

    def __iter__(self) -> Iterator[T]:
        for chunk in self._chunks:
            yield from _unpack(chunk.blob)
        yield from list(self._open)

    def __len__(self) -> int:
        return self._length

    def __contains__(self, item: object) -> bool:
        return any(own == item for own in self)
