"""Source positions: spans and the per-document source map.

This is the one place that knows about line and column numbers. Everything downstream (rules,
facts, config validation) speaks in manifest paths such as ``("spec", "resources", "capacity")``
and asks the source map where that path is.
"""

from __future__ import annotations

import ast
import functools
import re
from typing import Literal, Union

from linter.records import datarecord

PathPart = Union[str, int]  # noqa: UP007 - a runtime alias; `str | int` needs 3.10 at runtime
Path = tuple[PathPart, ...]
ScalarStyle = Literal["plain", "single-quoted", "double-quoted", "literal", "folded"]

# ruamel's event styles (None or "" is plain) -> ScalarStyle
_STYLES: dict[str, ScalarStyle] = {
    "": "plain",
    "'": "single-quoted",
    '"': "double-quoted",
    "|": "literal",
    ">": "folded",
}


@datarecord(slots=True)
class Span:
    """A 1-based, end-exclusive region of a text file."""

    line: int
    column: int
    end_line: int
    end_column: int

    def __reduce__(self) -> tuple[type[Span], tuple[int, int, int, int]]:
        """Pickled as its four numbers: worker results (hundreds of thousands of spans in a
        large run) unpickle about twice as fast as through the generic slots state."""
        return (Span, (self.line, self.column, self.end_line, self.end_column))


@datarecord(slots=True)
class ScalarSpan:
    """Where a string scalar value is written: its region, as character offsets into the text the
    loader parsed (``LoadedFile.text``) and as a span, and its style.

    The region starts at the node's properties when it has any (``&anchor !!str "x"``) and ends
    after the scalar (for block scalars, after its last line break).
    """

    span: Span
    start: int
    end: int
    style: ScalarStyle


def format_path(path: Path) -> str:
    """Render a manifest path the way users write it: ``spec.endpoints[0].region``; a key that
    holds a dot or a bracket is quoted: ``metadata.labels['kueue.x-k8s.io/queue-name']``.

    Remembered: a run renders the same few hundred paths for every finding and record."""
    return _formatted(tuple(path))


@functools.lru_cache(maxsize=16384)
def _formatted(path: Path) -> str:
    parts: list[str] = []
    for part in path:
        if isinstance(part, int):
            parts.append(f"[{part}]")
        elif part.isidentifier() or _plain(part):  # isidentifier: the common case, fast
            parts.append(f".{part}" if parts else part)
        else:
            parts.append(f"[{part!r}]")
    return "".join(parts) or "<document>"


_MARKS = re.compile(r"[.\[\]]")


def _plain(key: str) -> bool:
    return bool(key) and _MARKS.search(key) is None


_INDEX = re.compile(r"\[([0-9]+)\]")
_QUOTED_KEY = re.compile(r"""\[('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\]""")


@functools.lru_cache(maxsize=16384)
def parse_path(text: str) -> Path:
    """Inverse of :func:`format_path`: dotted names, ``[N]`` indices and quoted ``['a.b']`` keys;
    raises ValueError for anything else. Remembered, like :func:`format_path`."""
    parts: list[PathPart] = []
    position = 0
    while True:
        end = position
        while end < len(text) and text[end] not in ".[":
            end += 1
        if end > position:
            parts.append(text[position:end])
        elif end == len(text) or text[end] != "[":
            raise ValueError(f"empty segment in path {text!r}")
        position = end
        while position < len(text) and text[position] == "[":
            match = _INDEX.match(text, position) or _QUOTED_KEY.match(text, position)
            if match is None:
                raise ValueError(f"bad index in path {text!r}")
            key = match.group(1)
            parts.append(int(key) if match.re is _INDEX else str(ast.literal_eval(key)))
            position = match.end()
        if position == len(text):
            return tuple(parts)
        if text[position] != ".":
            raise ValueError(f"bad index in path {text!r}")
        position += 1


class SourceMap:
    """Where each key and value of one document is in its file.

    Mapping members are recorded with the span of their key (findings point at the offending key,
    so GitHub annotates the right line); sequence items with the span of the item. String scalar
    values (of mapping members and sequence items) also keep their own region and style, so an
    offset inside the value can be mapped back to the file (``linter.load.scalar_offsets``).
    Spans are kept as plain tuples: a large run holds one map per document, and worker processes
    send them back pickled, where tuples of ints cost far less than objects.
    """

    __slots__ = ("_scalars", "_spans", "document")

    def __init__(self, document: Span) -> None:
        self.document = document
        self._spans: dict[Path, tuple[int, int, int, int]] = {}
        self._scalars: dict[Path, tuple[int, int, int, int, int, int, str]] = {}

    def record(self, path: Path, span: Span) -> None:
        self.record_raw(path, (span.line, span.column, span.end_line, span.end_column))

    def record_raw(self, path: Path, span: tuple[int, int, int, int]) -> None:
        """:meth:`record` for a span given as its four numbers (the loader's hot path)."""
        self._spans.setdefault(path, span)

    def record_scalar_raw(
        self, path: Path, span: tuple[int, int, int, int], start: int, end: int, style: str
    ) -> None:
        """Record a string scalar value at ``span`` (its four numbers); ``style`` is ruamel's
        event style (None or "" is plain)."""
        if style in _STYLES:
            self._scalars.setdefault(path, (*span, start, end, style))

    def scalar(self, path: Path) -> ScalarSpan | None:
        """The region and style of the string scalar value at ``path``, or None (not a string
        scalar value, or not written at that path: an alias or a merged key)."""
        raw = self._scalars.get(path)
        if raw is None:
            return None
        line, column, end_line, end_column, start, end, style = raw
        return ScalarSpan(Span(line, column, end_line, end_column), start, end, _STYLES[style])

    def exact(self, path: Path) -> Span | None:
        """The span recorded for ``path`` itself, or None."""
        raw = self._spans.get(path)
        return None if raw is None else Span(*raw)

    def items(self, key: str) -> dict[int, SourceMap]:
        """The maps of the items of the sequence at ``(key,)``, each rooted at its item (paths
        below ``(key, N)`` lose that prefix; the item's own span is its document span). One
        pass over this map, so splitting a list of N items costs its entries, not N times."""
        parts: dict[int, SourceMap] = {}

        def part(path: Path) -> SourceMap | None:
            if len(path) < 2 or path[0] != key or not isinstance(path[1], int):
                return None
            found = parts.get(path[1])
            if found is None:
                found = parts[path[1]] = SourceMap(self.exact(path[:2]) or self.document)
            return found

        for path, span in self._spans.items():
            target = part(path)
            if target is not None and len(path) > 2:
                target._spans[path[2:]] = span
        for path, scalar in self._scalars.items():
            target = part(path)
            if target is not None and len(path) > 2:
                target._scalars[path[2:]] = scalar
        return parts

    def locate(self, path: Path) -> Span:
        """The span of ``path`` or of its nearest recorded ancestor (the document itself last)."""
        for end in range(len(path), 0, -1):
            raw = self._spans.get(path[:end])
            if raw is not None:
                return Span(*raw)
        return self.document
