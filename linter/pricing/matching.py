"""Which workload at a base revision is which workload now.

In order: the same name in the same file; the same name in another file, when the name is
unique among those left on both sides (the workload moved, or its file was renamed); the same
document of the same file under another name (the workload was renamed). What is left was
added or removed, unless the file it would be compared with could not be read or validated on
the other side: then it is not compared, rather than counted as added or removed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Generic, Literal, Protocol, TypeVar

from linter.records import datarecord

Status = Literal["same", "moved", "renamed", "added", "removed", "not-compared"]


class Identified(Protocol):
    """What a workload is known by: its file (display path), document, part and name."""

    @property
    def file(self) -> str: ...
    @property
    def index(self) -> int: ...
    @property
    def part(self) -> int: ...
    @property
    def name(self) -> str: ...


B = TypeVar("B", bound=Identified)
H = TypeVar("H", bound=Identified)


@datarecord
class Pair(Generic[B, H]):
    base: B | None
    head: H | None
    status: Status
    #: Why a workload is not compared (its file's problem on the other side).
    reason: str | None = None


def _unreadable(file: str, problems: Mapping[str, str]) -> str | None:
    """Why ``file`` (or a folder above it) could not be read or validated, if it could not."""
    for place, reason in problems.items():
        if file == place or file.startswith(place.rstrip("/") + "/"):
            return reason
    return None


def _take(
    base: list[B], head: list[H], key: Callable[[Identified], Hashable], unique: bool
) -> list[tuple[B, H]]:
    """Pair the ``base`` and ``head`` workloads that share a key, in order (with ``unique``,
    only keys that occur once on each side); paired ones are removed from both lists."""
    waiting: dict[Hashable, list[H]] = {}
    for theirs in head:
        waiting.setdefault(key(theirs), []).append(theirs)
    counts = Counter(key(ours) for ours in base)
    pairs: list[tuple[B, H]] = []
    for ours in base:
        candidates = waiting.get(key(ours))
        if not candidates or (unique and (counts[key(ours)] > 1 or len(candidates) > 1)):
            continue
        pairs.append((ours, candidates.pop(0)))
    taken = {id(item) for pair in pairs for item in pair}
    base[:] = [ours for ours in base if id(ours) not in taken]
    head[:] = [theirs for theirs in head if id(theirs) not in taken]
    return pairs


_STEPS: tuple[tuple[Status, Callable[[Identified], Hashable], bool], ...] = (
    ("same", lambda w: (w.file, w.name), False),
    ("moved", lambda w: w.name, True),
    ("renamed", lambda w: (w.file, w.index, w.part), True),
)


def pair_workloads(
    base: Iterable[B],
    head: Iterable[H],
    base_problems: Mapping[str, str] | None = None,
    head_problems: Mapping[str, str] | None = None,
) -> list[Pair[B, H]]:
    """Every base and head workload, paired where they are the same workload (see the module
    doc). ``*_problems`` map a file or folder that could not be read or validated on that side
    to why."""
    left, right = list(base), list(head)
    pairs: list[Pair[B, H]] = []
    for status, key, unique in _STEPS:
        pairs += [Pair(ours, theirs, status) for ours, theirs in _take(left, right, key, unique)]
    for ours in left:
        reason = _unreadable(ours.file, head_problems or {})
        pairs.append(Pair(ours, None, "not-compared" if reason else "removed", reason))
    for theirs in right:
        reason = _unreadable(theirs.file, base_problems or {})
        pairs.append(Pair(None, theirs, "not-compared" if reason else "added", reason))
    return pairs


def by_head(pairs: Sequence[Pair[B, H]]) -> dict[tuple[str, int, int, str], Pair[B, H]]:
    """Pairs keyed by their head workload's (file, document, part, name)."""
    return {(p.head.file, p.head.index, p.head.part, p.head.name): p for p in pairs if p.head}
