"""Build plain Python documents and their source maps from YAML parse events.

Why not ruamel's composer or constructor: the C composer recurses (a 100,000-level flow sequence
crashes the interpreter), both expand aliases into trees (an alias bomb is a graph), and neither
reports duplicate keys with both positions. This composer walks the flat event stream with an
explicit stack, so depth, expanded size and duplicates are checked as it goes, and it stops a file
at the first limit it crosses instead of hanging.

JSON is parsed by the same code: it is YAML 1.2 flow syntax.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

from linter.load.positions import Path, SourceMap, Span
from linter.load.scalars import ScalarTagError, resolve, resolve_plain
from linter.load.templates import TemplateAction
from linter.records import datarecord

MERGE_KEY = "<<"
_NOWHERE = Span(1, 1, 1, 2)


@datarecord
class Limits:
    """Bounds that keep hostile input from exhausting time or memory."""

    max_depth: int = 200
    max_nodes: int = 1_000_000  # after alias expansion, per document


@datarecord
class LoadProblem:
    """Something that stops (part of) a file from being read as data."""

    message: str
    span: Span
    template: TemplateAction | None = None  # a template action on the problem's line


@datarecord(frozen=False)
class Document:
    """One YAML/JSON document: its data (plain Python values) and where each part came from."""

    index: int
    data: Any
    source_map: SourceMap


class _Abort(Exception):
    """Stop reading the file: a limit was crossed or the structure cannot be represented."""


Raw = tuple[int, int, int, int]  # a span's four numbers, as the source map keeps them


@datarecord(frozen=False, slots=True)
class _Frame:
    """An open mapping (``keys`` is its dict of key spans) or sequence (``keys`` is None)."""

    container: dict[str, Any] | list[Any]
    keys: dict[str, Raw] | None
    path: Path
    anchor: str | None
    start: Raw
    weight: int = 1
    key: str | None = None
    key_span: Raw | None = None
    key_is_merge: bool = False


class Composer:
    """Consume parse events; collect documents and problems.

    ``lines`` and ``offset`` place the events in a larger text when the parsed text is one part
    of it (one document of a file, re-read after another failed): the lines and characters
    before that part.

    Every file of a run passes through here (about a hundred events for a 40-line manifest), so
    events are dispatched on their type through a table, and positions are kept as the source
    map keeps them, plain tuples (:data:`Raw`): a :class:`Span` is built only for a problem.
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
        self._source_map = SourceMap(_NOWHERE)  # replaced at each document's start
        self._root: Any = None
        self._has_root = False
        self._weight = 0

    def _span(self, event: Any) -> Raw:
        start, end, lines = event.start_mark, event.end_mark, self.lines + 1
        return (start.line + lines, start.column + 1, end.line + lines, end.column + 1)

    def _point(self, event: Any) -> Raw:
        mark = event.start_mark
        line = mark.line + self.lines + 1
        return (line, mark.column + 1, line, mark.column + 2)

    def feed(self, events: Iterable[Any]) -> None:
        """Process every event; stops quietly after a problem that ends the file."""
        handlers = _event_handlers()
        try:
            for event in events:
                handler = handlers.get(type(event))
                if handler is not None:  # stream start and end carry nothing
                    handler(self, event)
        except _Abort:
            return

    def _start_document(self, event: Any) -> None:
        self._source_map = SourceMap(Span(*self._point(event)))
        self._anchors, self._root, self._has_root, self._weight = {}, None, False, 0

    def _end_document(self, event: Any) -> None:
        if self._has_root:
            self.documents.append(Document(len(self.documents), self._root, self._source_map))

    # -- nodes -------------------------------------------------------------------------------

    def _scalar(self, event: Any) -> None:
        stack = self._stack
        top = stack[-1] if stack else None
        if top is not None and top.keys is not None and top.key is None:
            self._set_key(top, event)
            return
        text, style, tag = event.value, event.style, event.ctag
        span = None
        if tag is None:  # the usual case, without the cost of a tag's str() or the try
            value = text if style else resolve_plain(text)
        else:
            try:
                value = resolve(text, str(tag), plain=not style)
            except ScalarTagError as err:
                span = self._span(event)
                self.problems.append(LoadProblem(str(err), Span(*span)))
                value = text
        if event.anchor:
            self._anchors[event.anchor] = (value, 1)
        if top is None:
            self._attach_root(value, 1, span or self._span(event))
            return
        self._count(1, event, span)
        if top.key_is_merge:
            self._merge(top, value, span or self._span(event))
            return
        if top.keys is None:
            path: Path = (*top.path, len(top.container))
            span = span or self._span(event)
            self._source_map.record_raw(path, span)
        else:
            assert top.key is not None and top.key_span is not None
            path = (*top.path, top.key)
            self._source_map.record_raw(path, top.key_span)
        if isinstance(value, str):
            # where a string value is written, so offsets inside it can be located later
            self._source_map.record_scalar_raw(
                path,
                span or self._span(event),
                event.start_mark.index + self.offset,
                event.end_mark.index + self.offset,
                style or "",
            )
        self._put(top, value)

    def _open_mapping(self, event: Any) -> None:
        self._open(event, {}, {})

    def _open_sequence(self, event: Any) -> None:
        self._open(event, [], None)

    def _open(
        self, event: Any, container: dict[str, Any] | list[Any], keys: dict[str, Raw] | None
    ) -> None:
        stack = self._stack
        top = stack[-1] if stack else None
        if top is not None and top.keys is not None and top.key is None:
            self._fail("a mapping or sequence used as a key is not supported", self._span(event))
        if len(stack) >= self.limits.max_depth:
            self._fail(
                f"nesting is deeper than {self.limits.max_depth} levels; the rest of the file "
                "was not read",
                self._point(event),
                limit=True,
            )
        point = self._point(event)
        if top is None:
            self._source_map.document = Span(*point)  # the root node: where "the document" is
            path: Path = ()
        elif top.keys is None:
            path = (*top.path, len(top.container))
            self._source_map.record_raw(path, point)
        else:
            assert top.key is not None and top.key_span is not None
            path = (*top.path, top.key)
            self._source_map.record_raw(path, top.key_span)
        anchor = event.anchor
        if anchor:
            self._anchors[anchor] = None  # started, not finished: an alias to it is a cycle
        stack.append(_Frame(container, keys, path, anchor, point))

    def _close(self, event: Any) -> None:
        stack = self._stack
        frame = stack.pop()
        if frame.anchor:
            self._anchors[frame.anchor] = (frame.container, frame.weight)
        # already counted and recorded: its weight grew with every child
        if not stack:
            self._root, self._has_root = frame.container, True
            return
        top = stack[-1]
        top.weight += frame.weight
        if top.key_is_merge:
            self._merge(top, frame.container, frame.start)
        else:
            self._put(top, frame.container)

    def _alias(self, event: Any) -> None:
        stack = self._stack
        top = stack[-1] if stack else None
        if top is not None and top.keys is not None and top.key is None:
            self._fail("an alias used as a mapping key is not supported", self._span(event))
        target = self._anchors.get(event.anchor, False)
        if target is False:
            self._fail(f"alias *{event.anchor} refers to no anchor", self._span(event))
        if target is None:
            self._fail(f"alias *{event.anchor} refers to itself (a cycle)", self._span(event))
        value, weight = target  # type: ignore[misc]
        span = self._span(event)
        if top is None:
            self._attach_root(value, weight, span)
            return
        self._count(weight, event, span)
        if top.key_is_merge:
            self._merge(top, value, span)  # a merge (<<: *a) too: its weight counts
            return
        if top.keys is None:
            self._source_map.record_raw((*top.path, len(top.container)), span)
        else:
            assert top.key is not None and top.key_span is not None
            self._source_map.record_raw((*top.path, top.key), top.key_span)
        self._put(top, value)

    # -- structure ---------------------------------------------------------------------------

    def _set_key(self, frame: _Frame, event: Any) -> None:
        key, span = str(event.value), self._span(event)
        if key == MERGE_KEY and not event.style:
            frame.key, frame.key_span, frame.key_is_merge = key, span, True
            return
        assert frame.keys is not None
        first = frame.keys.get(key)
        if first is not None:
            message = f"duplicate key {key!r} (first defined on line {first[0]})"
            self.problems.append(LoadProblem(message, Span(*span)))
        else:
            frame.keys[key] = span
        frame.key, frame.key_span = key, span

    def _count(self, weight: int, event: Any, span: Raw | None) -> None:
        """Add a new node's (expanded) weight to the document and its parent; stop the file
        past the limit."""
        self._weight += weight
        if self._weight > self.limits.max_nodes:
            self._fail(
                f"the document expands to more than {self.limits.max_nodes:,} nodes (alias "
                "expansion?); the rest of the file was not read",
                span or self._span(event),
                limit=True,
            )
        self._stack[-1].weight += weight

    def _attach_root(self, value: Any, weight: int, span: Raw) -> None:
        """A scalar or alias as the document's root node."""
        self._weight += weight
        if self._weight > self.limits.max_nodes:
            self._fail(
                f"the document expands to more than {self.limits.max_nodes:,} nodes (alias "
                "expansion?); the rest of the file was not read",
                span,
                limit=True,
            )
        self._root, self._has_root = value, True

    @staticmethod
    def _put(frame: _Frame, value: Any) -> None:
        """Put a finished node into its parent (at the pending key of a mapping)."""
        container = frame.container
        if isinstance(container, list):
            container.append(value)
        else:
            assert frame.key is not None
            container[frame.key] = value
            frame.key = None

    def _merge(self, frame: _Frame, value: Any, span: Raw) -> None:
        """Apply a YAML merge key (``<<: *defaults``): explicit keys win over merged ones.

        The merged value's whole weight has already been counted towards the document and
        ``frame``: merged entries share their values, so a mapping built from merges is as heavy
        as what it holds, however few bytes spell it.
        """
        sources = value if isinstance(value, list) else [value]
        if not all(isinstance(source, dict) for source in sources):
            self.problems.append(
                LoadProblem("a merge key (<<) needs a mapping or list of them", Span(*span))
            )
        assert isinstance(frame.container, dict)
        for source in sources:
            if isinstance(source, dict):
                for key, item in source.items():
                    frame.container.setdefault(key, item)
        frame.key, frame.key_is_merge = None, False

    def _fail(self, message: str, span: Raw, limit: bool = False) -> None:
        self.problems.append(LoadProblem(message, Span(*span)))
        self.limited = limit
        self.stopped = True
        raise _Abort


@functools.cache
def _event_handlers() -> dict[type, Callable[[Composer, Any], None]]:
    """The composer's method for each class of parse event, made once (ruamel is imported then).
    The class's functions, not a composer's bound methods: a composer holding its own bound
    methods is a reference cycle, so it and everything it read stayed in memory until the
    garbage collector found them, a thousand files' worth at a time (issue 31)."""
    from ruamel.yaml import events

    return {
        events.ScalarEvent: Composer._scalar,
        events.MappingStartEvent: Composer._open_mapping,
        events.SequenceStartEvent: Composer._open_sequence,
        events.MappingEndEvent: Composer._close,
        events.SequenceEndEvent: Composer._close,
        events.AliasEvent: Composer._alias,
        events.DocumentStartEvent: Composer._start_document,
        events.DocumentEndEvent: Composer._end_document,
    }
