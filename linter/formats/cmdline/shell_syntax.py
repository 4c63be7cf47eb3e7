"""The shell's lexical layer for ``linter.formats.cmdline.shell``: text that knows where each
character was written, and its words and operators.

Token recognition follows XCU 2.3 of the POSIX Shell Command Language: quoting (2.2), operators,
comments, backslash-newline continuations, ``$`` and backquote constructs found by their closing
character, redirections with their IO numbers, and here-document bodies (skipped).
"""

from __future__ import annotations

from dataclasses import field
from typing import Union

from linter.records import datarecord

_BLANKS = frozenset(" \t")
_OPERATOR_STARTS = frozenset(";&|<>()")
_WORD_ENDS = _BLANKS | _OPERATOR_STARTS | {"\n"}
_EXPANSION_STARTS = frozenset("$`")
_DOUBLE_QUOTED_ESCAPES = frozenset('$`"\\\n')
_OPERATORS = (
    "&>>", "<<-", "<<<", "&&", "||", ";;", ";&", ">>", "<<", ">&", "<&", "<>", ">|", "&>", "|&",
    ";", "&", "|", "<", ">", "(", ")",
)  # fmt: skip
_REDIRECTIONS = frozenset(("&>>", "<<-", "<<<", ">>", "<<", ">&", "<&", "<>", ">|", "&>", "<", ">"))
_HEREDOCS = {"<<": False, "<<-": True}  # operator -> strip leading tabs
_PARAMETER_OPERATORS = (":-", ":=", ":+", ":?", "-", "=", "+", "?")
SPECIAL_PARAMETERS = frozenset("@*#?$!-")
MAX_DEPTH = 8  # nested shells and ${...} defaults


Source = tuple[int, int, int]  # item, start, end


@datarecord(frozen=False, slots=True)
class SourcedText:
    """Text whose every character knows where it was written. A hole is an opaque character of
    an unresolved reference (named), never read as shell syntax."""

    text: list[str] = field(default_factory=list)
    sources: list[Source] = field(default_factory=list)
    holes: list[str | None] = field(default_factory=list)

    @classmethod
    def raw(cls, item: str, index: int) -> SourcedText:
        return cls(list(item), [(index, i, i + 1) for i in range(len(item))], [None] * len(item))

    def add(self, char: str, source: Source, hole: str | None = None) -> None:
        self.text.append(char)
        self.sources.append(source)
        self.holes.append(hole)

    def add_text(self, text: str, source: Source, hole: str | None = None) -> None:
        for char in text:
            self.add(char, source, hole)

    def extend(self, other: SourcedText) -> None:
        self.text.extend(other.text)
        self.sources.extend(other.sources)
        self.holes.extend(other.holes)

    def part(self, start: int, end: int | None = None) -> SourcedText:
        return SourcedText(self.text[start:end], self.sources[start:end], self.holes[start:end])

    def extent(self, start: int, end: int) -> Source:
        """Where ``[start, end)`` is written: within the item of its first character (an empty
        range: where the character at ``start`` begins, or after the last one)."""
        if start >= len(self.sources):
            last = self.sources[-1] if self.sources else (0, 0, 0)
            return (last[0], last[2], last[2])
        item = self.sources[start][0]
        if start >= end:
            return (item, self.sources[start][1], self.sources[start][1])
        inside = [s for s in self.sources[start:end] if s[0] == item]
        return (item, min(s[1] for s in inside), max(s[2] for s in inside))

    def __len__(self) -> int:
        return len(self.text)


@datarecord(frozen=False, slots=True)
class Char:
    """One character of a word, read from text ``[first, last)`` (a backslash escape is two).
    A quoted empty ``char`` marks a quoted string, so ``''`` still makes a word."""

    char: str
    first: int
    last: int
    quoted: bool
    hole: str | None = None


@datarecord(frozen=False, slots=True)
class Parameter:
    """``$name``, ``${name}`` or ``${name<operator>word}`` (``:-`` ``-`` ``:=`` ``=`` ``:+`` ``+``
    ``:?`` ``?``) with the word's pieces."""

    name: str
    first: int
    last: int
    quoted: bool
    operator: str = ""
    default: list[Piece] = field(default_factory=list)


@datarecord(frozen=False, slots=True)
class Substitution:
    """A construct whose value is not modelled: ``$(...)``, backquotes, ``$((...))``, ``${#x}``."""

    first: int
    last: int
    quoted: bool


Piece = Union[Char, Parameter, Substitution]  # noqa: UP007 - a runtime alias


@datarecord(frozen=False, slots=True)
class ShellToken:
    """A word (its pieces) or an operator (``;``, ``&&``, ``>``, newline) at ``[first, last)``."""

    first: int
    last: int
    pieces: list[Piece] = field(default_factory=list)
    operator: str = ""

    def literal(self) -> str | None:
        """The word's text when it is plain unquoted characters, else None."""
        if self.operator or not all(
            isinstance(p, Char) and not p.quoted and p.hole is None for p in self.pieces
        ):
            return None
        return "".join(p.char for p in self.pieces if isinstance(p, Char))


class _Lexer:
    """Split a script into words and operators (XCU 2.3), skipping comments and heredoc bodies."""

    def __init__(self, text: list[str], holes: list[str | None], depth: int) -> None:
        self.text = text
        self.holes = holes
        self.depth = depth
        self.pos = 0
        self.heredocs: list[tuple[str, bool]] = []

    def syntax(self, index: int) -> str:
        """The character at ``index`` when it can be shell syntax (not a hole, not past the end)."""
        if index < len(self.text) and self.holes[index] is None:
            return self.text[index]
        return ""

    def tokens(self) -> list[ShellToken]:
        out: list[ShellToken] = []
        heredoc_next: bool | None = None
        while self.pos < len(self.text):
            ch = self.syntax(self.pos)
            if ch in _BLANKS:
                self.pos += 1
            elif ch == "\\" and self.syntax(self.pos + 1) == "\n":
                self.pos += 2
            elif ch == "#":
                while self.pos < len(self.text) and self.syntax(self.pos) != "\n":
                    self.pos += 1
            elif ch == "\n":
                out.append(ShellToken(self.pos, self.pos + 1, operator="\n"))
                self.pos += 1
                self.skip_heredoc_bodies()
            elif ch in _OPERATOR_STARTS:
                operator = next(op for op in _OPERATORS if self.starts_with(op))
                out.append(ShellToken(self.pos, self.pos + len(operator), operator=operator))
                self.pos += len(operator)
                heredoc_next = _HEREDOCS.get(operator)
            else:
                token = self.word()
                if self.is_io_number(token):
                    continue
                if heredoc_next is not None:
                    delimiter = "".join(p.char for p in token.pieces if isinstance(p, Char))
                    self.heredocs.append((delimiter, heredoc_next))
                    heredoc_next = None
                out.append(token)
        return out

    def starts_with(self, operator: str) -> bool:
        return all(self.syntax(self.pos + i) == ch for i, ch in enumerate(operator))

    def is_io_number(self, token: ShellToken) -> bool:
        """Digits right before ``<`` or ``>`` name a file descriptor (``2>&1``), not a word."""
        text = token.literal() or ""
        following = self.syntax(self.pos)
        return text.isascii() and text.isdigit() and following in ("<", ">")

    def skip_heredoc_bodies(self) -> None:
        for delimiter, strip_tabs in self.heredocs:
            while self.pos < len(self.text):
                end = self.pos
                while end < len(self.text) and self.text[end] != "\n":
                    end += 1
                line = "".join(self.text[self.pos : end])
                self.pos = min(end + 1, len(self.text))
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    break
        self.heredocs.clear()

    # -- words ---------------------------------------------------------------------------------

    def word(self) -> ShellToken:
        token = ShellToken(self.pos, self.pos)
        while self.pos < len(self.text):
            ch = self.syntax(self.pos)
            if not ch:
                self.hole(token.pieces, quoted=False)
            elif ch in _WORD_ENDS:
                break
            elif ch == "\\":
                self.backslash(token.pieces)
            elif ch == "'":
                self.single_quoted(token.pieces)
            elif ch == '"':
                self.double_quoted(token.pieces)
            elif ch in _EXPANSION_STARTS:
                self.dollar_or_backquote(token.pieces, quoted=False)
            else:
                token.pieces.append(Char(ch, self.pos, self.pos + 1, False))
                self.pos += 1
        token.last = self.pos
        return token

    def hole(self, pieces: list[Piece], quoted: bool) -> None:
        pieces.append(
            Char(self.text[self.pos], self.pos, self.pos + 1, quoted, self.holes[self.pos])
        )
        self.pos += 1

    def backslash(self, pieces: list[Piece]) -> None:
        if self.pos + 1 >= len(self.text):
            pieces.append(Char("\\", self.pos, self.pos + 1, True))
            self.pos += 1
        elif self.syntax(self.pos + 1) == "\n":
            self.pos += 2
        else:
            hole = self.holes[self.pos + 1]
            pieces.append(Char(self.text[self.pos + 1], self.pos, self.pos + 2, True, hole))
            self.pos += 2

    def single_quoted(self, pieces: list[Piece]) -> None:
        start = self.pos
        self.pos += 1
        while self.pos < len(self.text) and self.syntax(self.pos) != "'":
            self.hole(pieces, quoted=True)
        self.pos = min(self.pos + 1, len(self.text))
        pieces.append(Char("", start, self.pos, True))

    def double_quoted(self, pieces: list[Piece]) -> None:
        start = self.pos
        self.pos += 1
        while self.pos < len(self.text) and self.syntax(self.pos) != '"':
            ch = self.syntax(self.pos)
            following = self.syntax(self.pos + 1)
            if ch == "\\" and following in _DOUBLE_QUOTED_ESCAPES:
                if following == "\n":
                    self.pos += 2
                else:
                    pieces.append(Char(following, self.pos, self.pos + 2, True))
                    self.pos += 2
            elif ch in _EXPANSION_STARTS:
                self.dollar_or_backquote(pieces, quoted=True)
            else:
                self.hole(pieces, quoted=True)
        self.pos = min(self.pos + 1, len(self.text))
        pieces.append(Char("", start, self.pos, True))

    def dollar_or_backquote(self, pieces: list[Piece], quoted: bool) -> None:
        start, ch, following = self.pos, self.syntax(self.pos), self.syntax(self.pos + 1)
        if ch == "`":
            self.pos = self.closing(start + 1, "`")
            pieces.append(Substitution(start, self.pos, quoted))
        elif following == "(":
            self.pos = self.closing(start + 2, ")")
            pieces.append(Substitution(start, self.pos, quoted))
        elif following == "{":
            self.pos = self.closing(start + 2, "}")
            pieces.append(self.braced(start, self.pos, quoted))
        elif is_name(following):
            end = start + 2
            while _is_name_char(self.syntax(end)):
                end += 1
            self.pos = end
            pieces.append(Parameter("".join(self.text[start + 1 : end]), start, end, quoted))
        elif (following.isascii() and following.isdigit()) or following in SPECIAL_PARAMETERS:
            self.pos = start + 2
            pieces.append(Parameter(following, start, self.pos, quoted))
        elif following == "'" and not quoted:
            self.pos = self.closing(start + 2, "'")
            pieces.append(Substitution(start, self.pos, quoted))
        else:
            pieces.append(Char("$", start, start + 1, quoted))
            self.pos = start + 1

    def closing(self, start: int, closer: str) -> int:
        """The offset after the ``closer`` that ends a construct opened before ``start``, skipping
        quotes, escapes and nested openings; the end of the text when it is never closed."""
        openers = {")": "(", "}": "{"}
        depth, index = 1, start
        while index < len(self.text):
            ch = self.syntax(index)
            if ch == "\\":
                index += 2
                continue
            if ch == closer:
                depth -= 1
                if depth == 0:
                    return index + 1
            elif closer in openers and ch == openers[closer]:
                depth += 1
            elif ch == "'" and closer != "'":
                index = self.quote_end(index + 1, "'")
                continue
            elif ch == '"' and closer != "`":
                index = self.quote_end(index + 1, '"')
                continue
            index += 1
        return len(self.text)

    def quote_end(self, index: int, quote: str) -> int:
        while index < len(self.text) and self.syntax(index) != quote:
            index += 2 if quote == '"' and self.syntax(index) == "\\" else 1
        return index + 1

    def braced(self, first: int, last: int, quoted: bool) -> Char | Parameter | Substitution:
        """``${...}`` from ``first`` to ``last``: a parameter (with an operator or not), or else a
        substitution this layer does not model (``${#x}``, ``${x%y}``, ...)."""
        inner = "".join(self.text[first + 2 : last - 1])
        if last > len(self.text) or self.text[last - 1] != "}" or self.depth >= MAX_DEPTH:
            return Substitution(first, last, quoted)
        name_end = 0
        if inner[:1] in SPECIAL_PARAMETERS:
            name_end = 1
        else:
            while name_end < len(inner) and _is_name_char(inner[name_end]):
                name_end += 1
        name, rest = inner[:name_end], inner[name_end:]
        if not (is_name(name) or name.isdigit() or name in SPECIAL_PARAMETERS):
            return Substitution(first, last, quoted)
        if not rest:
            return Parameter(name, first, last, quoted)
        operator = next((op for op in _PARAMETER_OPERATORS if rest.startswith(op)), None)
        if operator is None:
            return Substitution(first, last, quoted)
        word = _Lexer(self.text[: last - 1], self.holes[: last - 1], self.depth + 1)
        word.pos = first + 2 + name_end + len(operator)
        return Parameter(name, first, last, quoted, operator, word.pieces(quoted))

    def pieces(self, quoted: bool) -> list[Piece]:
        """Pieces of the word inside ``${name:-word}``, to the end of the text: blanks are
        literal, quotes still apply."""
        pieces: list[Piece] = []
        while self.pos < len(self.text):
            ch = self.syntax(self.pos)
            if ch == "\\":
                self.backslash(pieces)
            elif ch == "'" and not quoted:
                self.single_quoted(pieces)
            elif ch == '"':
                self.double_quoted(pieces)
            elif ch in _EXPANSION_STARTS:
                self.dollar_or_backquote(pieces, quoted)
            else:
                self.hole(pieces, quoted)
        return pieces


def is_name(text: str) -> bool:
    """A shell variable name: ASCII letters, digits and underscores, not starting with a digit."""
    return bool(text) and not text[0].isdigit() and all(_is_name_char(ch) for ch in text)


def _is_name_char(ch: str) -> bool:
    return len(ch) == 1 and ch.isascii() and (ch.isalnum() or ch == "_")


def simple_commands(tokens: list[ShellToken]) -> list[list[ShellToken]]:
    """Group word tokens into simple commands at operators, dropping redirections' targets."""
    commands: list[list[ShellToken]] = []
    current: list[ShellToken] = []
    skip_target = False
    for token in tokens:
        if token.operator:
            if token.operator in _REDIRECTIONS:
                skip_target = True
                continue
            if current:
                commands.append(current)
            current, skip_target = [], False
        elif skip_target:
            skip_target = False
        else:
            current.append(token)
    if current:
        commands.append(current)
    return commands


def tokenize(text: SourcedText, depth: int = 0) -> list[ShellToken]:
    """The words and operators of a script; ``depth`` counts the shells around it."""
    return _Lexer(text.text, text.holes, depth).tokens()
