"""Map offsets inside a string scalar's value back to line and column in the file.

A finding may point at one argument inside a YAML string: a ``run: |`` script, a quoted
``sh -c "..."`` list item, a folded ``>`` command. The adapters parse the *value* (after YAML
removed quotes, escapes, indentation and folding) and know offsets in it; this module re-reads
the scalar's source, style by style, with the scanning rules of the YAML 1.2 spec as ruamel.yaml
and libyaml apply them (chapters 7 and 8: escapes, ``''``, escaped line breaks, line folding,
block indentation and chomping), and records for every character of the value the region of the
file it came from. A character that folding produced (a space from a line break) maps to that
line break; an escape maps to its whole escape sequence.

Positions count characters and line breaks the way the loader's parser does (``\\r\\n``, ``\\r``,
``\\n``, U+0085, U+2028 and U+2029 each end a line), so they agree with every other span.
"""

from __future__ import annotations

import bisect
import functools

from linter.load.positions import ScalarSpan, Span
from linter.records import datarecord

_BREAKS = frozenset("\r\n\x85\u2028\u2029")
_BLANKS = frozenset(" \t")
# YAML 1.2 double-quoted escapes (spec 5.7) and the hexadecimal ones with their digit counts
_ESCAPES = {
    "0": "\0",
    "a": "\x07",
    "b": "\x08",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\x0b",
    "f": "\x0c",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_PROPERTY_END = frozenset(" \t,[]{}") | _BREAKS
# the quote of each quoted style, and what inside it would make the value differ from its source
_QUOTED = {
    "single-quoted": ("'", _BREAKS | {"'"}),
    "double-quoted": ('"', _BREAKS | {'"', "\\"}),
}


@datarecord(slots=True)
class DecodedScalar:
    """A scalar's value and, per character, the ``[start, end)`` file offsets it was read from."""

    value: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]


class _Unreadable(Exception):
    """The source does not read as the recorded scalar (the text is not the one parsed)."""


def locate(text: str, scalar: ScalarSpan, start: int, end: int) -> Span:
    """The span of the file that holds ``value[start:end]`` of the scalar.

    ``text`` is the text the loader parsed (``LoadedFile.text``). An empty range is a zero-width
    span where that offset is. Offsets outside the value, or a source that does not read back
    (a text other than the one parsed), give the whole scalar's span rather than an error.
    """
    verbatim = _verbatim(text, scalar)
    if verbatim is not None:
        offset, length = verbatim
        if not 0 <= start <= end <= length:
            return scalar.span
        first = offset + start if length else scalar.start
        last = first if start == end else offset + end
        line, column = scalar.span.line, scalar.span.column - scalar.start
        return Span(line, column + first, line, column + last)
    decoded = decode(text, scalar)
    if decoded is None or not 0 <= start <= end <= len(decoded.value):
        return scalar.span
    first = _source_offset(decoded, scalar, start)
    last = first if start == end else decoded.ends[end - 1]
    (line, column), (end_line, end_column) = _positions(text, scalar, first, last)
    return Span(line, column, end_line, end_column)


def _verbatim(text: str, scalar: ScalarSpan) -> tuple[int, int] | None:
    """Where the value starts in the file and its length, when the source is the value itself,
    character for character on one line: a plain or quoted scalar without properties, escapes
    or line breaks (an argument in ``args: ["--model", "x"]``, the common case). Then offsets
    map by addition, as :func:`decode` would map them, without reading the scalar."""
    start, end, style = scalar.start, scalar.end, scalar.style
    if style == "plain":
        source = text[start:end]
        if not source or source[0] in "&!" or source[-1] in _BLANKS:
            return None
        return (start, len(source)) if _BREAKS.isdisjoint(source) else None
    if style not in _QUOTED or end - start < 2:
        return None
    quote, escapes = _QUOTED[style]
    if text[start] != quote or text[end - 1] != quote or text[end : end + 1] == quote:
        return None
    inner = text[start + 1 : end - 1]
    if escapes.isdisjoint(inner):
        return start + 1, len(inner)
    return None


@functools.lru_cache(maxsize=32)
def decode(text: str, scalar: ScalarSpan) -> DecodedScalar | None:
    """Re-read the scalar at ``scalar`` in ``text``; None when the source does not read as one."""
    reader = _OffsetReader(text, scalar.start)
    try:
        reader.skip_properties(scalar.end)
        if scalar.style in ("single-quoted", "double-quoted"):
            reader.quoted(double=scalar.style == "double-quoted")
        elif scalar.style == "plain":
            reader.plain(scalar.end)
        else:
            reader.block(folded=scalar.style == "folded", parent=_parent_indent(text, scalar))
    except (_Unreadable, IndexError):
        return None
    return DecodedScalar("".join(reader.chars), tuple(reader.starts), tuple(reader.ends))


def _source_offset(decoded: DecodedScalar, scalar: ScalarSpan, index: int) -> int:
    """Where value character ``index`` starts; for the end of the value, after its last one."""
    if index < len(decoded.value):
        return decoded.starts[index]
    return decoded.ends[-1] if decoded.value else scalar.start


def _positions(text: str, scalar: ScalarSpan, first: int, last: int) -> tuple[tuple[int, int], ...]:
    """1-based (line, column) of two offsets at or after the scalar's start. The scalar's line
    starts are found once per scalar and looked up by bisection: a script or embedded config
    with thousands of located words is not walked again for each of them."""
    starts = _line_starts(text, scalar)
    return tuple(_position(text, scalar, starts, target) for target in (first, last))


def _position(
    text: str, scalar: ScalarSpan, starts: tuple[int, ...], target: int
) -> tuple[int, int]:
    lines = bisect.bisect_right(starts, target)
    begin, column = (starts[lines - 1], 1) if lines else (scalar.start, scalar.span.column)
    column += target - begin
    # a "\r" that starts a "\r\n" break takes no column
    if target > begin and text[target - 1] == "\r" and text[target : target + 1] == "\n":
        column -= 1
    return scalar.span.line + lines, column


@functools.lru_cache(maxsize=32)
def _line_starts(text: str, scalar: ScalarSpan) -> tuple[int, ...]:
    """The offsets where the lines after the scalar's first begin, up to its end."""
    return breaks_after(text, scalar.start, scalar.end)


def breaks_after(text: str, start: int, end: int) -> tuple[int, ...]:
    """The offset after each line break in ``text[start:end]`` (``\r\n`` is one break)."""
    out = []
    for offset in range(start, min(end, len(text))):
        ch = text[offset]
        if ch in _BREAKS and not (ch == "\r" and text[offset + 1 : offset + 2] == "\n"):
            out.append(offset + 1)
    return tuple(out)


def _parent_indent(text: str, scalar: ScalarSpan) -> int:
    """The indentation of the collection that holds a block scalar, from its header line.

    After ``key: |2`` it is the key's column, after ``- |2`` the dash's, and -1 for a scalar that
    starts its line (a document root). Only an explicit indentation indicator depends on it.
    """
    line_start = max(text.rfind(ch, 0, scalar.start) for ch in _BREAKS) + 1
    offset, parent = line_start, -1
    while offset < scalar.start:
        if text[offset] in _BLANKS:
            offset += 1
        elif text[offset] == "-" and text[offset + 1 : offset + 2] in (" ", "\t"):
            parent = offset - line_start
            offset += 1
        else:
            return offset - line_start
    return parent


class _OffsetReader:
    """Scans one scalar's source, appending each value character with its source region."""

    def __init__(self, text: str, offset: int) -> None:
        self.text = text
        self.pos = offset
        self.line_start = max(text.rfind(ch, 0, offset) for ch in _BREAKS) + 1
        self.chars: list[str] = []
        self.starts: list[int] = []
        self.ends: list[int] = []

    # -- helpers -----------------------------------------------------------------------------

    def emit(self, char: str, start: int, end: int) -> None:
        self.chars.append(char)
        self.starts.append(start)
        self.ends.append(end)

    def peek(self, ahead: int = 0) -> str:
        index = self.pos + ahead
        return self.text[index] if index < len(self.text) else ""

    def line_break(self) -> tuple[str, int, int]:
        """Consume a line break: its value (``\\n`` for CR, LF, CRLF and NEL) and region."""
        start, ch = self.pos, self.peek()
        if ch not in _BREAKS or not ch:
            raise _Unreadable
        self.pos += 2 if self.text.startswith("\r\n", start) else 1
        self.line_start = self.pos
        return ("\n" if ch in "\r\n\x85" else ch), start, self.pos

    def column(self) -> int:
        return self.pos - self.line_start

    def skip_properties(self, limit: int) -> None:
        """Skip ``&anchor`` and ``!tag`` before the scalar, with the space or comments after."""
        while self.pos < limit and self.peek() in ("&", "!"):
            if self.text.startswith("!<", self.pos):
                close = self.text.find(">", self.pos)
                if close < 0:
                    raise _Unreadable
                self.pos = close + 1
            while self.pos < limit and self.peek() not in _PROPERTY_END:
                self.pos += 1
            while self.pos < limit and (self.peek() in _BLANKS or self.peek() in _BREAKS):
                if self.peek() in _BLANKS:
                    self.pos += 1
                else:
                    self.line_break()
                if self.peek() == "#":
                    while self.pos < limit and self.peek() not in _BREAKS:
                        self.pos += 1

    # -- flow scalars (spec 7.3) -------------------------------------------------------------

    def quoted(self, double: bool) -> None:
        quote = '"' if double else "'"
        if self.peek() != quote:
            raise _Unreadable
        self.pos += 1
        while True:
            self.quoted_run(double)
            if self.peek() == quote:
                return
            self.quoted_spaces()

    def quoted_run(self, double: bool) -> None:
        """Characters up to the next blank or line break, with escapes resolved."""
        while True:
            ch = self.peek()
            if not ch:
                raise _Unreadable
            if ch in _BLANKS or ch in _BREAKS:
                return
            if not double and ch == "'":
                if self.peek(1) != "'":
                    return
                self.emit("'", self.pos, self.pos + 2)
                self.pos += 2
            elif double and ch == '"':
                return
            elif double and ch == "\\":
                self.escape()
            else:
                self.emit(ch, self.pos, self.pos + 1)
                self.pos += 1

    def escape(self) -> None:
        start, code = self.pos, self.peek(1)
        if code in _ESCAPES:
            self.pos += 2
            self.emit(_ESCAPES[code], start, self.pos)
        elif code in _HEX_ESCAPES:
            digits = self.text[start + 2 : start + 2 + _HEX_ESCAPES[code]]
            if len(digits) != _HEX_ESCAPES[code] or not set(digits) <= _HEX_DIGITS:
                raise _Unreadable
            self.pos = start + 2 + len(digits)
            self.emit(chr(int(digits, 16)), start, self.pos)
        elif code and code in _BREAKS:
            # an escaped line break joins the lines: nothing of it is kept
            self.pos += 1
            self.line_break()
            for fold in self.flow_breaks():
                self.emit(*fold)
        else:
            raise _Unreadable

    def quoted_spaces(self) -> None:
        """Blanks inside a line are kept; at a line break they go and the break folds."""
        start = self.pos
        while self.peek() in _BLANKS and self.peek():
            self.pos += 1
        if self.peek() and self.peek() in _BREAKS:
            self.fold(*self.line_break())
        else:
            for offset in range(start, self.pos):
                self.emit(self.text[offset], offset, offset + 1)

    def flow_breaks(self) -> list[tuple[str, int, int]]:
        """Empty lines after a folded break, each a line break; leading blanks are skipped."""
        breaks: list[tuple[str, int, int]] = []
        while True:
            while self.peek() and self.peek() in _BLANKS:
                self.pos += 1
            if not self.peek() or self.peek() not in _BREAKS:
                return breaks
            breaks.append(self.line_break())

    def fold(self, value: str, start: int, end: int) -> None:
        """Line folding (spec 6.5): one break is a space, each further empty line a newline."""
        breaks = self.flow_breaks()
        if value != "\n":
            self.emit(value, start, end)
        elif not breaks:
            self.emit(" ", start, end)
        for fold in breaks:
            self.emit(*fold)

    # -- plain scalars (spec 7.3.3) ------------------------------------------------------------

    def plain(self, limit: int) -> None:
        while self.pos < limit:
            ch = self.peek()
            if not ch:
                raise _Unreadable
            if ch in _BLANKS:
                start = self.pos
                while self.pos < limit and self.peek() in _BLANKS:
                    self.pos += 1
                if self.pos < limit and self.peek() not in _BREAKS:
                    for offset in range(start, self.pos):
                        self.emit(self.text[offset], offset, offset + 1)
            elif ch in _BREAKS:
                self.fold(*self.line_break())
            else:
                self.emit(ch, self.pos, self.pos + 1)
                self.pos += 1

    # -- block scalars (spec 8.1) --------------------------------------------------------------

    def block(self, folded: bool, parent: int) -> None:
        chomping, increment = self.block_header()
        least = max(parent + 1, 1)
        if increment is None:
            breaks, deepest = self.block_indentation()
            indent = max(least, deepest)
        else:
            indent = max(parent, 0) + increment
            breaks = self.block_breaks(indent)
        last_break: tuple[str, int, int] | None = None
        while self.column() == indent and self.peek():
            for item in breaks:
                self.emit(*item)
            leading_non_blank = self.peek() not in _BLANKS
            while self.peek() and self.peek() not in _BREAKS:
                self.emit(self.peek(), self.pos, self.pos + 1)
                self.pos += 1
            last_break = self.line_break() if self.peek() else None
            breaks = self.block_breaks(indent)
            if not (self.column() == indent and self.peek()):
                break
            if last_break is None:
                raise _Unreadable
            joined = (
                folded
                and last_break[0] == "\n"
                and leading_non_blank
                and self.peek() not in _BLANKS
            )
            if not joined:
                self.emit(*last_break)
            elif not breaks:
                self.emit(" ", last_break[1], last_break[2])
        if chomping is not False and last_break is not None:
            self.emit(*last_break)
        if chomping is True:
            for item in breaks:
                self.emit(*item)

    def block_header(self) -> tuple[bool | None, int | None]:
        """The indicator line: chomping (True keep, False strip, None clip) and indentation."""
        self.pos += 1  # | or >
        chomping: bool | None = None
        increment: int | None = None
        for _ in range(2):
            ch = self.peek()
            if ch in ("+", "-") and ch and chomping is None:
                chomping = ch == "+"
            elif ch and ch in "123456789" and increment is None:
                increment = int(ch)
            else:
                break
            self.pos += 1
        while self.peek() and self.peek() in _BLANKS:
            self.pos += 1
        if self.peek() == "#":
            while self.peek() and self.peek() not in _BREAKS:
                self.pos += 1
        if self.peek():
            self.line_break()
        return chomping, increment

    def block_indentation(self) -> tuple[list[tuple[str, int, int]], int]:
        """Leading empty lines and the deepest indentation before the first content."""
        breaks: list[tuple[str, int, int]] = []
        deepest = 0
        while self.peek() and (self.peek() == " " or self.peek() in _BREAKS):
            if self.peek() == " ":
                self.pos += 1
                deepest = max(deepest, self.column())
            else:
                breaks.append(self.line_break())
        return breaks, deepest

    def block_breaks(self, indent: int) -> list[tuple[str, int, int]]:
        """Empty lines (at most ``indent`` spaces), each a line break."""
        breaks: list[tuple[str, int, int]] = []
        while self.column() < indent and self.peek() == " ":
            self.pos += 1
        while self.peek() and self.peek() in _BREAKS:
            breaks.append(self.line_break())
            while self.column() < indent and self.peek() == " ":
                self.pos += 1
        return breaks
