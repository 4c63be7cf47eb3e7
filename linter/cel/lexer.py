"""Tokens of a CEL expression, as the cel-spec language definition writes its lexis.

Where the definition is loose, this follows the Rust backend that evaluates the rules
(linter/cel/backend.py), so that nothing it refuses is accepted here: hexadecimal needs a lowercase
``0x``, a ``.`` needs a digit after it to start a number (``1.`` is not a number), whitespace is
space, tab, newline, carriage return and form feed only, and string escapes are exactly the
definition's, plus the four it also accepts: bell, vertical tab, question mark and backtick.
"""

from __future__ import annotations

import re
from typing import NamedTuple

INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1
KEYWORDS = frozenset({"true", "false", "null", "in"})
OPERATORS = (
    "==", "!=", "<=", ">=", "&&", "||",
    "-", "+", "*", "/", "%", "!", "<", ">", "?", ":", ".", ",", "(", ")", "[", "]", "{", "}",
)  # fmt: skip


def _string_pattern(raw: bool) -> str:
    """A string or bytes literal. A raw one ends at its first closing quote, backslash or not;
    in the others a backslash takes the next character with it (the escape is checked when
    decoding), so an escaped quote does not end them. Three quotes open a triple-quoted string
    only, so that one left open is reported as such."""
    alternatives = []
    for quote in ("'''", '"""', "'", '"'):
        if len(quote) == 3:
            body = ".*?" if raw else r"(?:[^\\]|\\.)*?"
            alternatives.append("(?s:" + quote + body + quote + ")")
        else:
            body = "[^" + quote + r"\n\r]*" if raw else "(?:[^" + quote + r"\\\n\r]|\\[^\n\r])*"
            alternatives.append(quote + "(?!" + quote * 2 + ")" + body + quote)
    return ("[bB]?[rR]" if raw else "[bB]?") + "(?:" + "|".join(alternatives) + ")"


# Every token, tried in this order; the name of the group that matched is the token's kind.
_TOKEN = re.compile(
    "|".join(
        f"(?P<{kind}>{pattern})"
        for kind, pattern in (
            ("skip", r"(?:[\t\n\f\r ]+|//[^\n\r]*)+"),
            ("raw", _string_pattern(raw=True)),
            ("cooked", _string_pattern(raw=False)),
            ("unterminated", "[bB]?[rR]?['\"]"),  # any quote left now opens a string never closed
            ("hex", "0x[0-9a-fA-F]+[uU]?"),
            ("double", r"\d*\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+"),
            ("decimal", r"\d+[uU]?"),
            ("ident", "[_a-zA-Z][_a-zA-Z0-9]*"),
            ("operator", "|".join(re.escape(op) for op in OPERATORS)),
        )
    )
)
_ESCAPE = re.compile(
    r"\\(?:(?P<simple>[abfnrtv\\'\"?`])|[xX](?P<hex>[0-9a-fA-F]{2})|u(?P<u4>[0-9a-fA-F]{4})"
    r"|U(?P<u8>[0-9a-fA-F]{8})|(?P<octal>[0-3][0-7]{2})|(?P<bad>.?))",
    re.S,
)
_SIMPLE_ESCAPES = {
    "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
    "\\": "\\", "'": "'", '"': '"', "?": "?", "`": "`",
}  # fmt: skip

_OCTET_ESCAPES = (("hex", 16), ("octal", 8))  # escape group, base of its digits
_CODE_POINT_ESCAPES = (*_OCTET_ESCAPES, ("u4", 16), ("u8", 16))

LiteralValue = int | float | str | bytes | bool | None


class ExpressionError(ValueError):
    """An expression gpulint refuses; ``offset`` is where in its source the problem is."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message, offset)
        self.message = message
        self.offset = offset

    def __str__(self) -> str:
        return f"{self.message} (at offset {self.offset})"


class CelSyntaxError(ExpressionError):
    """Source that is not a CEL expression."""


class Token(NamedTuple):
    """``kind`` is the operator itself, a keyword, ``ident``, a literal kind (``int``, ``uint``,
    ``double``, ``string``, ``bytes``) or ``end``. ``value`` is the decoded literal or the name."""

    kind: str
    value: LiteralValue
    start: int
    end: int

    def describe(self, source: str) -> str:
        """How an error message names this token."""
        if self.kind == "end":
            return "end of input"
        text = source[self.start : self.end]
        return repr(text if len(text) <= 20 else text[:17] + "...")


def tokenize(source: str) -> list[Token]:
    """Every token of ``source`` and a final ``end`` token; raises CelSyntaxError."""
    tokens: list[Token] = []
    position = 0
    length = len(source)
    match = _TOKEN.match
    while position < length:
        found = match(source, position)
        if found is None:
            raise CelSyntaxError(f"unexpected character {source[position]!r}", position)
        kind = found.lastgroup
        end = found.end()
        if kind == "operator":
            tokens.append(Token(found.group(), None, position, end))
        elif kind == "ident":
            name = found.group()
            tokens.append(Token(name if name in KEYWORDS else "ident", name, position, end))
        elif kind != "skip":
            tokens.append(_literal(str(kind), found.group(), position, end))
        position = end
    tokens.append(Token("end", None, length, length))
    return tokens


def _literal(kind: str, text: str, start: int, end: int) -> Token:
    if kind == "unterminated":
        raise CelSyntaxError("unterminated string literal", start)
    if kind == "double":
        value = float(text)
        if value == float("inf"):
            raise CelSyntaxError("double literal out of range", start)
        return Token("double", value, start, end)
    if kind in ("hex", "decimal"):
        number = int(text.rstrip("uU"), 16 if kind == "hex" else 10)
        if text[-1] not in "uU":  # an int's range depends on a sign before it: the parser checks
            return Token("int", number, start, end)
        if number > UINT64_MAX:
            raise CelSyntaxError("uint literal out of range", start)
        return Token("uint", number, start, end)
    return _string(kind == "raw", text, start, end)


def _string(raw: bool, text: str, start: int, end: int) -> Token:
    opening = len(text) - len(text.lstrip("bBrR"))  # the prefix
    quote = text[opening] * (3 if text[opening : opening + 3] in ("'''", '"""') else 1)
    opening += len(quote)
    body = text[opening : len(text) - len(quote)]
    if text[0] in "bB":
        value: str | bytes = body.encode() if raw else _decode_bytes(body, start + opening)
        return Token("bytes", value, start, end)
    return Token("string", body if raw else _decode_string(body, start + opening), start, end)


def _decode_string(body: str, body_start: int) -> str:
    def escape(match: re.Match[str]) -> str:
        code = _escape_code(match, body_start, text=True)
        if code is None:
            return _SIMPLE_ESCAPES[match.group("simple")]
        if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
            raise CelSyntaxError(
                f"escape {match.group()!r} is not a Unicode scalar value",
                body_start + match.start(),
            )
        return chr(code)

    return _ESCAPE.sub(escape, body) if "\\" in body else body


def _decode_bytes(body: str, body_start: int) -> bytes:
    out = bytearray()
    last = 0
    for match in _ESCAPE.finditer(body):
        out += body[last : match.start()].encode()
        last = match.end()
        code = _escape_code(match, body_start, text=False)
        out += _SIMPLE_ESCAPES[match.group("simple")].encode() if code is None else bytes([code])
    out += body[last:].encode()
    return bytes(out)


def _escape_code(match: re.Match[str], body_start: int, *, text: bool) -> int | None:
    """The code point (string) or octet (bytes) an escape stands for; None for a simple one.
    Bytes have no \\u or \\U escapes."""
    if match.group("simple") is not None:
        return None
    for group, base in _CODE_POINT_ESCAPES if text else _OCTET_ESCAPES:
        digits = match.group(group)
        if digits is not None:
            return int(digits, base)
    raise CelSyntaxError(f"invalid escape sequence {match.group()!r}", body_start + match.start())
