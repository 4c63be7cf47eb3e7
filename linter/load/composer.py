"""Build plain Python documents and their source maps from YAML parse events.

Why not ruamel's composer or constructor: the C composer recurses (a 100,000-level flow sequence
crashes the interpreter), both expand aliases into trees (an alias bomb is a graph), and neither
reports duplicate keys with both positions. This composer walks the flat event stream with an
explicit stack, so depth, expanded size and duplicates are checked as it goes, and it stops a file
at the first limit it crosses instead of hanging.

JSON is parsed by the same code: it is YAML 1.2 flow syntax.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from linter.load.positions import Path, SourceMap, Span
from linter.load.scalars import ScalarTagError, resolve

MERGE_KEY = "<<"


@dataclass(frozen=True)
class Limits:
    """Bounds that keep hostile input from exhausting time or memory."""

    max_depth: int = 200
    max_nodes: int = 1_000_000  # after alias expansion, per document


@dataclass(frozen=True)
class LoadProblem:
    """Something that stops (part of) a file from being read as data."""

    message: str
    span: Span


@dataclass
class Document:
    """One YAML/JSON document: its data (plain Python values) and where each part came from."""

    index: int
    data: Any
    source_map: SourceMap


class _Abort(Exception):
    """Stop reading the file: a limit was crossed or the structure cannot be represented."""


@dataclass
class _Frame:
    container: dict[str, Any] | list[Any]
    path: Path
    anchor: str | None
    start: Span
    weight: int = 1
    key: str | None = None
    key_span: Span | None = None
    key_is_merge: bool = False
    keys: dict[str, Span] = field(default_factory=dict)


class Composer:
    """Consume parse events; collect documents and problems.

    ``lines`` and ``offset`` place the events in a larger text when the parsed text is one part
    of it (one document of a file, re-read after another failed): the lines and characters
    before that part.
    """

    def __init__(self, limits: Limits, lines: int = 0, offset: int = 0) -> None:
        self.limits = limits
        self.lines = lines
        self.offset = offset
        #: A problem stopped the file before its end (``stopped``), and whether it was a limit
        #: (depth, expanded size): then the file's other documents are not read either.
        self.stopped = False
        self.limited = False
        self.documents: list[Document] = []
        self.problems: list[LoadProblem] = []
        self._stack: list[_Frame] = []
        self._anchors: dict[str, tuple[Any, int] | None] = {}
        self._source_map: SourceMap | None = None
        self._root: Any = None
        self._has_root = False
        self._weight = 0

    def _span(self, event: Any) -> Span:
        start, end, lines = event.start_mark, event.end_mark, self.lines
        return Span(start.line + lines + 1, start.column + 1, end.line + lines + 1, end.column + 1)

    def _point(self, event: Any) -> Span:
        mark = event.start_mark
        line = mark.line + self.lines + 1
        return Span(line, mark.column + 1, line, mark.column + 2)

    def feed(self, events: Iterable[Any]) -> None:
        """Process every event; stops quietly after a problem that ends the file."""
        try:
            for event in events:
                self._dispatch(event)
        except _Abort:
            return

    def _dispatch(self, event: Any) -> None:
        name = type(event).__name__
        if name == "DocumentStartEvent":
            self._source_map = SourceMap(self._point(event))
            self._anchors, self._root, self._has_root, self._weight = {}, None, False, 0
        elif name == "DocumentEndEvent":
            if self._has_root and self._source_map is not None:
                self.documents.append(Document(len(self.documents), self._root, self._source_map))
        elif name == "ScalarEvent":
            self._scalar(event)
        elif name in ("MappingStartEvent", "SequenceStartEvent"):
            self._open(event, {} if name == "MappingStartEvent" else [])
        elif name in ("MappingEndEvent", "SequenceEndEvent"):
            self._close()
        elif name == "AliasEvent":
            self._alias(event)

    # -- nodes -------------------------------------------------------------------------------

    def _scalar(self, event: Any) -> None:
        top = self._stack[-1] if self._stack else None
        if isinstance(top, _Frame) and isinstance(top.container, dict) and top.key is None:
            self._set_key(top, event)
            return
        try:
            value = resolve(event.value, event.tag, plain=event.style in ("", None))
        except ScalarTagError as err:
            self.problems.append(LoadProblem(str(err), self._span(event)))
            value = event.value
        if event.anchor:
            self._anchors[event.anchor] = (value, 1)
        if isinstance(value, str) and top is not None and not top.key_is_merge:
            self._record_scalar(event)
        self._attach(value, 1, self._span(event))

    def _record_scalar(self, event: Any) -> None:
        """Keep where a string value is written, so offsets inside it can be located later."""
        if self._source_map is not None:
            path, _ = self._child_path(self._span(event))
            start = event.start_mark.index + self.offset
            end = event.end_mark.index + self.offset
            self._source_map.record_scalar(path, self._span(event), start, end, event.style or "")

    def _open(self, event: Any, container: dict[str, Any] | list[Any]) -> None:
        top = self._stack[-1] if self._stack else None
        if top is not None and isinstance(top.container, dict) and top.key is None:
            self._fail("a mapping or sequence used as a key is not supported", self._span(event))
        if len(self._stack) >= self.limits.max_depth:
            self._fail(
                f"nesting is deeper than {self.limits.max_depth} levels; the rest of the file "
                "was not read",
                self._point(event),
                limit=True,
            )
        if not self._stack and self._source_map is not None:
            self._source_map.document = self._point(event)  # the root node: where "the document" is
        path, span = self._child_path(self._point(event))
        if self._source_map is not None and path:
            self._source_map.record(path, span)
        if event.anchor:
            self._anchors[event.anchor] = None  # started, not finished: an alias to it is a cycle
        self._stack.append(_Frame(container, path, event.anchor, self._point(event)))

    def _close(self) -> None:
        frame = self._stack.pop()
        if frame.anchor:
            self._anchors[frame.anchor] = (frame.container, frame.weight)
        self._attach(frame.container, frame.weight, frame.start, recorded=True)

    def _alias(self, event: Any) -> None:
        top = self._stack[-1] if self._stack else None
        if top is not None and isinstance(top.container, dict) and top.key is None:
            self._fail("an alias used as a mapping key is not supported", self._span(event))
        target = self._anchors.get(event.anchor, False)
        if target is False:
            self._fail(f"alias *{event.anchor} refers to no anchor", self._span(event))
        if target is None:
            self._fail(f"alias *{event.anchor} refers to itself (a cycle)", self._span(event))
        value, weight = target  # type: ignore[misc]
        self._attach(value, weight, self._span(event))  # a merge (<<: *a) too: its weight counts

    # -- structure ---------------------------------------------------------------------------

    def _set_key(self, frame: _Frame, event: Any) -> None:
        key, span = str(event.value), self._span(event)
        if key == MERGE_KEY and event.style in ("", None):
            frame.key, frame.key_span, frame.key_is_merge = key, span, True
            return
        first = frame.keys.get(key)
        if first is not None:
            self.problems.append(
                LoadProblem(f"duplicate key {key!r} (first defined on line {first.line})", span)
            )
        else:
            frame.keys[key] = span
        frame.key, frame.key_span, frame.key_is_merge = key, span, False

    def _child_path(self, item_span: Span) -> tuple[Path, Span]:
        if not self._stack:
            return (), item_span
        top = self._stack[-1]
        if isinstance(top.container, list):
            return (*top.path, len(top.container)), item_span
        assert top.key is not None and top.key_span is not None
        return (*top.path, top.key), top.key_span

    def _attach(self, value: Any, weight: int, span: Span | None, recorded: bool = False) -> None:
        """Put a finished node into its parent (or make it the document root)."""
        self._weight += weight if not recorded else 0
        if not recorded and self._weight > self.limits.max_nodes:
            self._fail(
                f"the document expands to more than {self.limits.max_nodes:,} nodes (alias "
                "expansion?); the rest of the file was not read",
                span or (self._source_map.document if self._source_map else Span(1, 1, 1, 2)),
                limit=True,
            )
        if not self._stack:
            self._root, self._has_root = value, True
            return
        top = self._stack[-1]
        top.weight += weight
        if top.key_is_merge:
            self._merge(top, value, span or Span(1, 1, 1, 2))
            return
        path, key_span = self._child_path(span or Span(1, 1, 1, 2))
        if self._source_map is not None and not recorded:
            self._source_map.record(path, key_span)
        if isinstance(top.container, list):
            top.container.append(value)
        else:
            assert top.key is not None
            top.container[top.key] = value
            top.key = None

    def _merge(self, frame: _Frame, value: Any, span: Span) -> None:
        """Apply a YAML merge key (``<<: *defaults``): explicit keys win over merged ones.

        Only reached through :meth:`_attach`, which has already counted the merged value's whole
        weight towards the document and ``frame``: merged entries share their values, so a
        mapping built from merges is as heavy as what it holds, however few bytes spell it.
        """
        sources = value if isinstance(value, list) else [value]
        if not all(isinstance(source, dict) for source in sources):
            self.problems.append(
                LoadProblem("a merge key (<<) needs a mapping or list of them", span)
            )
        assert isinstance(frame.container, dict)
        for source in sources:
            if isinstance(source, dict):
                for key, item in source.items():
                    frame.container.setdefault(key, item)
        frame.key, frame.key_is_merge = None, False

    def _fail(self, message: str, span: Span, limit: bool = False) -> None:
        self.problems.append(LoadProblem(message, span))
        self.limited = limit
        self.stopped = True
        raise _Abort
