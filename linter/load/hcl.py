"""A bounded reader for HCL native syntax (Terraform ``.tf`` and ``.tfvars`` files): bodies,
attributes, blocks and expressions, every node with its span, and the comments.

Why our own reader rather than a library: gpulint lints pull requests, so every ``.tf`` file is
hostile input, and the two maintained Python options fail on small crafted files. Measured on the
development VM (issue 32's research notes, each case in its own process under a 60 s limit):

- python-hcl2 8.1.4: ``loads`` raises ``RecursionError`` on 5,000 nested brackets, parentheses,
  objects, blocks or templates and on a 50,000-term ``1 + 1 + ...`` chain; it takes 26-50 s and
  630-930 MiB on a 3.5 MB file of node pools; it reports no positions through its API (only the
  raw lark tree has them) and gives values as strings to parse again (``'"${var.region}"'``).
- tree-sitter-hcl 1.2.0: quadratic on line breaks inside parentheses (200,000 blank lines in
  ``( )``, 195 KB, did not finish in 60 s: 5k lines 0.1 s, 40k 7 s), a compiled wheel per
  platform, and a syntax tree without values.
- This reader: one linear scan, recursion bounded, every one of 722 real ``.tf``/``.tfvars``
  files of 29 public repositories read (1.5 ms a file), each hostile case above an error with its
  position or a result in under a second (the 200,000-line case: 0.4 s).

Bounds: the text is at most ``MAX_CHARS`` characters and ``MAX_TOKENS`` tokens; blocks and
expressions nest at most ``MAX_DEPTH`` levels (the deepest real file reaches 23), so the Python
stack is never at risk; a left-deep operator chain is built in a loop. A file that does not parse
gives one :class:`HclError` at the position of its cause, never a traceback and never a hang.

What is read (hashicorp/hcl ``hclsyntax/spec.md``): ``Body = (Attribute | Block |
OneLineBlock)*``; literals, quoted templates with ``${}`` interpolations and ``%{}`` directives,
heredocs (``<<EOT``, ``<<-EOT``), tuples, objects, ``for`` expressions, function calls
(``provider::ns::fn`` included), traversals (``.attr``, ``[index]``, ``.*``, ``[*]``, legacy
``.0``), unary and binary operators, conditionals, parentheses. Newlines end an attribute except
inside ``(``, ``[`` and ``${ }``. Values are not computed here (``linter.load.terraform`` does):
a ``for`` expression and a template directive are kept as syntax only.

Spans are 1-based and end-exclusive (``linter.load.positions.Span``); ``start``/``end`` are
character offsets into the text.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import field

from linter.load.positions import Span
from linter.records import datarecord

#: Deepest nesting of blocks and expressions read; deeper input is an error at its position.
MAX_DEPTH = 64
#: Largest text read, in characters (gpulint reads at most 10 MiB a file anyway).
MAX_CHARS = 10 * 1024 * 1024
#: Most tokens read from one file (about 100 bytes of memory each).
MAX_TOKENS = 1_000_000
#: Longest number literal read (Python refuses to convert more than 4,300 digits).
MAX_NUMBER_CHARS = 100


class HclError(Exception):
    """The text is not HCL native syntax, or is beyond the reader's bounds."""

    def __init__(self, message: str, span: Span) -> None:
        super().__init__(f"{span.line}:{span.column}: {message}")
        self.message = message
        self.span = span


# -- positions ----------------------------------------------------------------------------------


class Lines:
    """Offset -> (line, column), by bisecting the offsets of line starts."""

    def __init__(self, text: str) -> None:
        self.starts = [0, *(match.end() for match in re.finditer("\n", text))]

    def at(self, offset: int) -> tuple[int, int]:
        index = bisect_right(self.starts, offset) - 1
        return index + 1, offset - self.starts[index] + 1

    def span(self, start: int, end: int) -> Span:
        line, column = self.at(start)
        end_line, end_column = self.at(end)
        return Span(line, column, end_line, end_column)


# -- tokens -------------------------------------------------------------------------------------


@datarecord(slots=True)
class HclToken:
    #: IDENT NUMBER PUNCT OQUOTE CQUOTE LIT INTERP CONTROL SEAL HOPEN HCLOSE NL EOF
    kind: str
    text: str  # as written (LIT: the literal text with escapes decoded)
    start: int
    end: int


@datarecord(slots=True)
class Comment:
    """A ``#``, ``//`` or ``/* */`` comment: its offsets and text (markers included)."""

    start: int
    end: int
    text: str


@datarecord(frozen=False, slots=True)
class _Mode:
    """One level of the tokenizer's mode stack: ``normal``, ``interp`` (``${ }`` or ``%{ }``,
    with the depth of ``{`` inside it), ``quoted`` or ``heredoc``."""

    kind: str
    start: int = 0
    braces: int = 0
    marker: str = ""


_MASTER = re.compile(
    r"(?P<space>[ \t\r]+)|(?P<nl>\n)|(?P<comment>(?:#|//)[^\n]*)"
    r"|(?P<ident>[^\W\d][\w-]*)|(?P<number>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)"
)
_BLOCK_COMMENT_END = re.compile(r"\*/")
_PUNCT = re.compile(r"==|!=|<=|>=|&&|\|\||=>|::|\.\.\.|[-+*/%<>!=?:,.()\[\]{}]")
_HEREDOC = re.compile(r"<<(-?)([^\W\d][\w-]*)\r?\n")
_QUOTED_LIT = re.compile(r"[^\"\\$%\n]+|\$(?!\{)|%(?!\{)")
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}
_UNICODE_ESCAPE = re.compile(r"u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})")


class _Tokenizer:
    """All tokens of a text in one pass. Modes (quoted template, heredoc, interpolation) are on
    an explicit stack, so nesting costs no Python recursion."""

    def __init__(self, text: str, lines: Lines) -> None:
        self.text = text
        self.lines = lines
        self.tokens: list[HclToken] = []
        self.comments: list[Comment] = []
        self.stack = [_Mode("normal")]

    def fail(self, message: str, at: int) -> HclError:
        return HclError(message, self.lines.span(at, min(at + 1, len(self.text))))

    def add(self, kind: str, text: str, start: int, end: int) -> None:
        if len(self.tokens) >= MAX_TOKENS:
            raise self.fail(f"more than {MAX_TOKENS:,} tokens: not read", start)
        self.tokens.append(HclToken(kind, text, start, end))

    def run(self) -> list[HclToken]:
        pos, n = 0, len(self.text)
        while True:
            mode = self.stack[-1]
            if mode.kind in ("normal", "interp"):
                if pos >= n:
                    if mode.kind == "interp":
                        raise self.fail("unterminated template interpolation", mode.start)
                    self.add("EOF", "", n, n)
                    return self.tokens
                pos = self._code(pos, mode)
            elif mode.kind == "quoted":
                if pos >= n or self.text[pos] == "\n":
                    message = "unterminated string (a quoted string ends on its line)"
                    raise self.fail(message, mode.start)
                pos = self._template_piece(pos, quoted=True)
            else:
                pos = self._heredoc(pos, mode)

    def _code(self, pos: int, mode: _Mode) -> int:
        text = self.text
        match = _MASTER.match(text, pos)
        if match:
            group = match.lastgroup
            if group == "ident":
                self.add("IDENT", match.group(), pos, match.end())
            elif group == "number":
                self.add("NUMBER", match.group(), pos, match.end())
            elif group == "nl":
                self.add("NL", "\n", pos, match.end())
            elif group == "comment":
                self.comments.append(Comment(pos, match.end(), match.group()))
            return match.end()
        ch = text[pos]
        if text.startswith("/*", pos):
            end = _BLOCK_COMMENT_END.search(text, pos + 2)
            if end is None:
                raise self.fail("unterminated comment", pos)
            self.comments.append(Comment(pos, end.end(), text[pos : end.end()]))
            if "\n" in text[pos : end.start()]:
                self.add("NL", "\n", pos, end.end())
            return end.end()
        if ch == '"':
            self.add("OQUOTE", '"', pos, pos + 1)
            self.stack.append(_Mode("quoted", pos))
            return pos + 1
        heredoc = _HEREDOC.match(text, pos)
        if heredoc:
            self.add("HOPEN", heredoc.group(0), pos, heredoc.end())
            self.stack.append(_Mode("heredoc", pos, marker=heredoc.group(2)))
            return heredoc.end()
        if mode.kind == "interp" and mode.braces == 0:
            if ch == "}":
                self.add("SEAL", "}", pos, pos + 1)
                self.stack.pop()
                return pos + 1
            if ch == "~" and text.startswith("}", pos + 1):
                return pos + 1  # the strip marker before the seal
        punct = _PUNCT.match(text, pos)
        if punct is None:
            raise self.fail(f"unexpected character {ch!r}", pos)
        if mode.kind == "interp" and punct.group() in "{}":
            mode.braces += 1 if punct.group() == "{" else -1
        self.add("PUNCT", punct.group(), pos, punct.end())
        return punct.end()

    def _heredoc(self, pos: int, mode: _Mode) -> int:
        text, n = self.text, len(self.text)
        if pos >= n:
            raise self.fail(f"heredoc <<{mode.marker} is never closed", mode.start)
        if text[pos - 1] == "\n":  # the closing marker is looked for at line starts only
            line_end = text.find("\n", pos)
            line_end = n if line_end < 0 else line_end
            if text[pos:line_end].strip(" \t\r") == mode.marker:
                self.add("HCLOSE", mode.marker, pos, line_end)
                self.stack.pop()
                return line_end
        return self._template_piece(pos, quoted=False)

    def _template_piece(self, pos: int, *, quoted: bool) -> int:
        """One piece of a template: a literal run, an escape, the closing quote, or the start of
        an interpolation or directive. Heredoc literals run to the end of their line (the closing
        marker is looked for at each line start)."""
        text, n = self.text, len(self.text)
        ch = text[pos]
        if quoted and ch == '"':
            self.add("CQUOTE", '"', pos, pos + 1)
            self.stack.pop()
            return pos + 1
        if text.startswith(("$${", "%%{"), pos):
            self.add("LIT", text[pos + 1 : pos + 3], pos, pos + 3)
            return pos + 3
        if text.startswith(("${", "%{"), pos):
            self.add("INTERP" if ch == "$" else "CONTROL", text[pos : pos + 2], pos, pos + 2)
            pos += 2
            if text.startswith("~", pos):
                pos += 1
            self.stack.append(_Mode("interp", pos))
            return pos
        if quoted and ch == "\\":
            return self._escape(pos)
        if quoted:
            match = _QUOTED_LIT.match(text, pos)
            assert match is not None  # every other first character was handled above
            self.add("LIT", match.group(), pos, match.end())
            return match.end()
        line_end = text.find("\n", pos)
        stop = n if line_end < 0 else line_end + 1
        for opener in ("${", "%{"):
            found = text.find(opener, pos, stop)
            if found >= 0:
                if found > pos and text[found - 1] == opener[0]:
                    found -= 1  # $${ or %%{: an escape, read as the next piece
                stop = min(stop, found)
        self.add("LIT", text[pos:stop], pos, stop)
        return stop

    def _escape(self, pos: int) -> int:
        text = self.text
        following = text[pos + 1 : pos + 2]
        if following in _ESCAPES:
            self.add("LIT", _ESCAPES[following], pos, pos + 2)
            return pos + 2
        match = _UNICODE_ESCAPE.match(text, pos + 1)
        if match:
            code = int(match.group(1) or match.group(2), 16)
            if code > 0x10FFFF or 0xD800 <= code < 0xE000:
                raise HclError("invalid unicode escape", self.lines.span(pos, match.end()))
            self.add("LIT", chr(code), pos, match.end())
            return match.end()
        raise HclError("invalid escape sequence", self.lines.span(pos, pos + 2))


# -- syntax tree --------------------------------------------------------------------------------


@datarecord(frozen=False, slots=True)
class HclNode:
    span: Span
    start: int
    end: int


@datarecord(frozen=False, slots=True)
class HclLiteral(HclNode):
    value: str | int | float | bool | None


@datarecord(frozen=False, slots=True)
class HclTemplate(HclNode):
    """A quoted string or heredoc: literal strings and interpolated expressions. ``directive``:
    it holds ``%{if}``/``%{for}``, whose value is not computed."""

    parts: list[str | Expr]
    directive: bool = False
    heredoc: bool = False


@datarecord(frozen=False, slots=True)
class Traversal(HclNode):
    """``root.step[...]...``: ``steps`` hold attribute names, index expressions, or ``"*"`` for
    a splat."""

    root: str
    steps: list[str | Expr]


@datarecord(frozen=False, slots=True)
class HclCall(HclNode):
    name: str
    args: list[Expr]
    expand: bool = False  # the last argument is followed by ...


@datarecord(frozen=False, slots=True)
class TupleExpr(HclNode):
    items: list[Expr]


@datarecord(frozen=False, slots=True)
class ObjectExpr(HclNode):
    items: list[tuple[Expr, Expr]]


@datarecord(frozen=False, slots=True)
class Operation(HclNode):
    op: str  # a binary operator, "!" or "neg" (unary), "?:" (a conditional)
    operands: list[Expr]


@datarecord(frozen=False, slots=True)
class Postfix(HclNode):
    """An index or attribute of something that is not a plain variable: ``f(x)[0]``."""

    target: Expr
    steps: list[str | Expr]


@datarecord(frozen=False, slots=True)
class ForExpr(HclNode):
    """A ``for`` expression (kept as syntax: its value is not computed)."""


Expr = (
    HclLiteral
    | HclTemplate
    | Traversal
    | HclCall
    | TupleExpr
    | ObjectExpr
    | Operation
    | Postfix
    | ForExpr
)


@datarecord(frozen=False, slots=True)
class Attribute:
    name: str
    name_span: Span
    expr: Expr


@datarecord(frozen=False, slots=True)
class Block:
    type: str
    labels: list[str]
    type_span: Span
    span: Span  # type to closing brace
    body: Body
    start: int  # offset of the type


@datarecord(frozen=False, slots=True)
class Body:
    attributes: dict[str, Attribute] = field(default_factory=dict)
    blocks: list[Block] = field(default_factory=list)


@datarecord(frozen=False, slots=True)
class File:
    """One parsed file: its body, comments, and problems that did not stop reading (an
    attribute written twice)."""

    body: Body
    comments: list[Comment]
    problems: list[HclError]
    lines: Lines


# -- parser -------------------------------------------------------------------------------------

_BINARY = {
    "||": 1,
    "&&": 2,
    "==": 3,
    "!=": 3,
    "<": 4,
    ">": 4,
    "<=": 4,
    ">=": 4,
    "+": 5,
    "-": 5,
    "*": 6,
    "/": 6,
    "%": 6,
}
_KEYWORDS: dict[str, bool | None] = {"true": True, "false": False, "null": None}


class _HclParser:
    def __init__(self, tokens: list[HclToken], lines: Lines) -> None:
        self.tokens = tokens
        self.lines = lines
        self.i = 0
        self.depth = 0
        self.problems: list[HclError] = []

    # -- helpers
    def peek(self, skip_nl: bool = False) -> HclToken:
        i = self.i
        if skip_nl:
            while self.tokens[i].kind == "NL":
                i += 1
        return self.tokens[i]

    def next(self) -> HclToken:
        token = self.tokens[self.i]
        if token.kind != "EOF":
            self.i += 1
        return token

    def skip_nl(self) -> None:
        while self.tokens[self.i].kind == "NL":
            self.i += 1

    def span(self, start: int, end: int) -> Span:
        return self.lines.span(start, end)

    def error(self, message: str, token: HclToken) -> HclError:
        return HclError(message, self.span(token.start, max(token.end, token.start + 1)))

    def expect(self, kind: str, text: str | None = None) -> HclToken:
        token = self.next()
        if token.kind != kind or (text is not None and token.text != text):
            got = "end of file" if token.kind == "EOF" else repr(token.text)
            raise self.error(f"expected {text or kind.lower()!r}, found {got}", token)
        return token

    def is_punct(self, text: str, skip_nl: bool = False) -> bool:
        token = self.peek(skip_nl)
        return token.kind == "PUNCT" and token.text == text

    def enter(self, token: HclToken) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(f"nested more than {MAX_DEPTH} levels deep: not read", token)

    def leave(self) -> None:
        self.depth -= 1

    # -- bodies
    def body(self, closing: bool) -> Body:
        body = Body()
        while True:
            self.skip_nl()
            token = self.peek()
            if token.kind == "EOF":
                if closing:
                    raise self.error("expected '}' to close the block, found end of file", token)
                return body
            if closing and token.kind == "PUNCT" and token.text == "}":
                return body
            self.item(body, one_line=False)

    def item(self, body: Body, one_line: bool) -> None:
        name = self.next()
        if name.kind != "IDENT":
            raise self.error(f"expected an attribute or block name, found {name.text!r}", name)
        if self.is_punct("="):
            self.next()
            self.attribute(body, name)
        else:
            self.block(body, name)
        if not one_line:
            self.end_of_item()

    def attribute(self, body: Body, name: HclToken) -> None:
        attribute = Attribute(name.text, self.span(name.start, name.end), self.expression())
        first = body.attributes.get(name.text)
        if first is not None:
            message = f"attribute {name.text!r} is already set at line {first.name_span.line}"
            self.problems.append(HclError(message, attribute.name_span))
        else:
            body.attributes[name.text] = attribute

    def block(self, body: Body, name: HclToken) -> None:
        labels: list[str] = []
        while True:
            token = self.peek()
            if token.kind == "IDENT":
                self.next()
                labels.append(token.text)
            elif token.kind == "OQUOTE":
                label = self.template()
                if label.directive or not all(isinstance(p, str) for p in label.parts):
                    raise HclError("a block label is a literal string", label.span)
                labels.append("".join(p for p in label.parts if isinstance(p, str)))
            else:
                break
        opening = self.expect("PUNCT", "{")
        self.enter(opening)
        if self.peek().kind == "NL":
            inner = self.body(closing=True)
        else:  # a one-line block: { } or { name = expr }
            inner = Body()
            if not self.is_punct("}"):
                self.item(inner, one_line=True)
        closing = self.expect("PUNCT", "}")
        self.leave()
        name_span = self.span(name.start, name.end)
        whole = self.span(name.start, closing.end)
        body.blocks.append(Block(name.text, labels, name_span, whole, inner, name.start))

    def end_of_item(self) -> None:
        token = self.peek()
        if token.kind == "NL":
            self.next()
        elif token.kind != "EOF" and not (token.kind == "PUNCT" and token.text == "}"):
            raise self.error(f"expected a newline, found {token.text!r}", token)

    # -- expressions
    def expression(self, nl_ok: bool = False) -> Expr:
        """``nl_ok``: inside ``(``, ``[`` or an interpolation, where newlines do not count."""
        self.enter(self.peek(nl_ok))
        condition = self.binary(0, nl_ok)
        if self.is_punct("?", nl_ok):
            if nl_ok:
                self.skip_nl()
            self.next()
            yes = self.expression(nl_ok)
            if nl_ok:
                self.skip_nl()
            self.expect("PUNCT", ":")
            no = self.expression(nl_ok)
            span = self.span(condition.start, no.end)
            condition = Operation(span, condition.start, no.end, "?:", [condition, yes, no])
        self.leave()
        return condition

    def binary(self, min_precedence: int, nl_ok: bool) -> Expr:
        left = self.unary(nl_ok)
        while True:  # a left-deep chain (a + a + ...) is built here, not by recursion
            token = self.peek(nl_ok)
            precedence = _BINARY.get(token.text, 0) if token.kind == "PUNCT" else 0
            if precedence == 0 or precedence < min_precedence:
                return left
            if nl_ok:
                self.skip_nl()
            self.next()
            right = self.binary(precedence + 1, nl_ok)
            span = self.span(left.start, right.end)
            left = Operation(span, left.start, right.end, token.text, [left, right])

    def unary(self, nl_ok: bool) -> Expr:
        operators: list[HclToken] = []
        while True:
            token = self.peek(nl_ok)
            if token.kind != "PUNCT" or token.text not in ("!", "-"):
                break
            if nl_ok:
                self.skip_nl()
            operators.append(self.next())
            if len(operators) > MAX_DEPTH:
                raise self.error(f"more than {MAX_DEPTH} unary operators in a row", token)
        expr = self.postfix(nl_ok)
        for token in reversed(operators):
            op = "!" if token.text == "!" else "neg"
            expr = Operation(self.span(token.start, expr.end), token.start, expr.end, op, [expr])
        return expr

    def postfix(self, nl_ok: bool) -> Expr:
        if nl_ok:
            self.skip_nl()
        term = self.term()
        steps: list[str | Expr] = []
        end = term.end
        while True:
            token = self.peek()
            if token.kind == "PUNCT" and token.text == ".":
                self.next()
                attribute = self.next()
                if attribute.kind in ("IDENT", "NUMBER"):
                    steps.append(attribute.text)
                elif attribute.kind == "PUNCT" and attribute.text == "*":
                    steps.append("*")
                else:
                    raise self.error("expected an attribute name after '.'", attribute)
                end = attribute.end
            elif token.kind == "PUNCT" and token.text == "[":
                self.next()
                if self.is_punct("*"):
                    self.next()
                    steps.append("*")
                else:
                    steps.append(self.expression(nl_ok=True))
                    self.skip_nl()
                end = self.expect("PUNCT", "]").end
            else:
                break
        if not steps:
            return term
        if isinstance(term, Traversal):
            term.steps.extend(steps)
            term.end, term.span = end, self.span(term.start, end)
            return term
        return Postfix(self.span(term.start, end), term.start, end, term, steps)

    def term(self) -> Expr:
        token = self.peek()
        if token.kind == "NUMBER":
            self.next()
            if len(token.text) > MAX_NUMBER_CHARS:
                raise self.error(f"a number of more than {MAX_NUMBER_CHARS} characters", token)
            number = float(token.text) if any(c in token.text for c in ".eE") else int(token.text)
            return HclLiteral(self.span(token.start, token.end), token.start, token.end, number)
        if token.kind in ("OQUOTE", "HOPEN"):
            return self.template()
        if token.kind == "IDENT":
            return self.name(token)
        if token.kind == "PUNCT" and token.text == "(":
            self.next()
            self.enter(token)
            inner = self.expression(nl_ok=True)
            self.skip_nl()
            close = self.expect("PUNCT", ")")
            self.leave()
            # the parentheses keep the inner node; its span widens to them
            inner.span, inner.start, inner.end = (
                self.span(token.start, close.end),
                token.start,
                close.end,
            )
            return inner
        if token.kind == "PUNCT" and token.text == "[":
            return self.tuple_or_for()
        if token.kind == "PUNCT" and token.text == "{":
            return self.object_or_for()
        got = "end of file" if token.kind == "EOF" else repr(token.text)
        raise self.error(f"expected an expression, found {got}", token)

    def name(self, token: HclToken) -> Expr:
        self.next()
        if token.text in _KEYWORDS and not self.is_punct("("):
            value = _KEYWORDS[token.text]
            return HclLiteral(self.span(token.start, token.end), token.start, token.end, value)
        name, end = token.text, token.end
        while self.is_punct("::"):  # provider::aws::arn_parse
            self.next()
            part = self.expect("IDENT")
            name, end = f"{name}::{part.text}", part.end
        if self.is_punct("("):
            return self.call(token, name)
        return Traversal(self.span(token.start, end), token.start, end, name, [])

    def call(self, name_token: HclToken, name: str) -> Expr:
        opening = self.next()
        self.enter(opening)
        args: list[Expr] = []
        expand = False
        self.skip_nl()
        while not self.is_punct(")"):
            args.append(self.expression(nl_ok=True))
            self.skip_nl()
            if self.is_punct("..."):
                self.next()
                expand = True
                self.skip_nl()
            if self.is_punct(","):
                self.next()
                self.skip_nl()
            elif not self.is_punct(")"):
                raise self.error("expected ',' or ')' in the argument list", self.peek())
        close = self.next()
        self.leave()
        span = self.span(name_token.start, close.end)
        return HclCall(span, name_token.start, close.end, name, args, expand)

    def tuple_or_for(self) -> Expr:
        opening = self.next()
        self.enter(opening)
        self.skip_nl()
        if self.peek().kind == "IDENT" and self.peek().text == "for":
            close = self.skip_for("]")
            self.leave()
            return ForExpr(self.span(opening.start, close.end), opening.start, close.end)
        items: list[Expr] = []
        while not self.is_punct("]"):
            items.append(self.expression(nl_ok=True))
            self.skip_nl()
            if self.is_punct(","):
                self.next()
                self.skip_nl()
            elif not self.is_punct("]"):
                raise self.error("expected ',' or ']' in the list", self.peek())
        close = self.next()
        self.leave()
        return TupleExpr(self.span(opening.start, close.end), opening.start, close.end, items)

    def object_or_for(self) -> Expr:
        opening = self.next()
        self.enter(opening)
        self.skip_nl()
        if self.peek().kind == "IDENT" and self.peek().text == "for":
            close = self.skip_for("}")
            self.leave()
            return ForExpr(self.span(opening.start, close.end), opening.start, close.end)
        items: list[tuple[Expr, Expr]] = []
        while not self.is_punct("}"):
            key = self.expression()
            separator = self.next()
            if separator.kind != "PUNCT" or separator.text not in ("=", ":"):
                raise self.error("expected '=' or ':' after an object key", separator)
            items.append((key, self.expression()))
            token = self.peek()
            if token.kind == "PUNCT" and token.text == ",":
                self.next()
            elif token.kind != "NL" and not (token.kind == "PUNCT" and token.text == "}"):
                raise self.error("expected a newline, ',' or '}' after an object item", token)
            self.skip_nl()
        close = self.next()
        self.leave()
        return ObjectExpr(self.span(opening.start, close.end), opening.start, close.end, items)

    def skip_for(self, closer: str) -> HclToken:
        """A ``for`` expression's parts, read for their syntax only."""
        self.next()  # for
        self.expect("IDENT")
        if self.is_punct(","):
            self.next()
            self.expect("IDENT")
        word = self.expect("IDENT")
        if word.text != "in":
            raise self.error("expected 'in' in a for expression", word)
        self.expression(nl_ok=True)
        self.skip_nl()
        self.expect("PUNCT", ":")
        self.expression(nl_ok=True)
        self.skip_nl()
        if closer == "}":
            self.expect("PUNCT", "=>")
            self.expression(nl_ok=True)
            self.skip_nl()
            if self.is_punct("..."):
                self.next()
                self.skip_nl()
        if self.peek().kind == "IDENT" and self.peek().text == "if":
            self.next()
            self.expression(nl_ok=True)
            self.skip_nl()
        return self.expect("PUNCT", closer)

    def template(self) -> HclTemplate:
        opening = self.next()
        heredoc = opening.kind == "HOPEN"
        closer = "HCLOSE" if heredoc else "CQUOTE"
        self.enter(opening)
        parts: list[str | Expr] = []
        directive = False
        while True:
            token = self.next()
            if token.kind == closer:
                break
            if token.kind == "LIT":
                if parts and isinstance(parts[-1], str):
                    parts[-1] += token.text
                else:
                    parts.append(token.text)
            elif token.kind == "INTERP":
                parts.append(self.expression(nl_ok=True))
                self.skip_nl()
                self.expect("SEAL")
            elif token.kind == "CONTROL":
                directive = True
                self.skip_directive()
            else:
                raise self.error("unexpected token in a template", token)
        self.leave()
        span = self.span(opening.start, token.end)
        template = HclTemplate(span, opening.start, token.end, parts, directive, heredoc)
        if heredoc and opening.text.startswith("<<-"):
            _trim_heredoc(template)
        return template

    def skip_directive(self) -> None:
        """``%{ if cond }``, ``%{ else }``, ``%{ endif }``, ``%{ for x in y }``: skipped to the
        seal (quoted strings inside are read as templates, so their seals do not count)."""
        while self.peek().kind not in ("SEAL", "EOF"):
            if self.peek().kind in ("OQUOTE", "HOPEN"):
                self.template()
            else:
                self.next()
        self.expect("SEAL")


def _trim_heredoc(template: HclTemplate) -> None:
    """``<<-``: the smallest indentation of the literal lines is removed (computed on the literal
    parts, an approximation where an interpolation starts a line)."""
    lines = [
        line
        for part in template.parts
        if isinstance(part, str)
        for line in part.split("\n")
        if line.strip()
    ]
    indent = min((len(line) - len(line.lstrip(" \t")) for line in lines), default=0)
    if indent == 0:
        return
    template.parts = [
        "\n".join(line[indent:] if not line[:indent].strip() else line for line in part.split("\n"))
        if isinstance(part, str)
        else part
        for part in template.parts
    ]


def parse(text: str) -> File:
    """The body of one HCL file; raises :class:`HclError` when it is not HCL native syntax or is
    beyond the reader's bounds."""
    if len(text) > MAX_CHARS:
        raise HclError(f"more than {MAX_CHARS:,} characters: not read", Span(1, 1, 1, 2))
    if text.startswith("\ufeff"):
        text = " " + text[1:]
    lines = Lines(text)
    tokenizer = _Tokenizer(text, lines)
    parser = _HclParser(tokenizer.run(), lines)
    body = parser.body(closing=False)
    return File(body, tokenizer.comments, parser.problems, lines)


def comment_starts(text: str) -> list[int]:
    """The offsets where the comments of ``text`` start (none when it cannot be read: its
    comments cannot be told from its strings)."""
    if len(text) > MAX_CHARS:
        return []
    tokenizer = _Tokenizer(text, Lines(text))
    try:
        tokenizer.run()
    except HclError:
        return []
    return [comment.start for comment in tokenizer.comments]
