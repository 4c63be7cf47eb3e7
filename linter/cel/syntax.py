"""A CEL parser: source text to a syntax tree whose every node knows its span in the source.

Rule files are untrusted: the parser is recursive descent with its nesting bounded
(``MAX_DEPTH``), so no input reaches Python's recursion limit, and everything the Rust backend
refuses as syntax is refused here too (with a message and an offset instead of its diagram). The
grammar is the cel-spec language definition's; the macros the backend expands while parsing
(``has(e.f)``, ``e.all(x, p)``, ``e.exists(x, p)``, ``e.exists_one(x, p)``, ``e.filter(x, p)``,
``e.map(x, t)``, ``e.map(x, p, t)``) become their own nodes, checked as the backend checks them.

Spans are ``[start, end)`` offsets. A parenthesised expression's span includes its parentheses,
so replacing a node's span never leaves one of them behind. Spans take no part in node equality:
two trees are equal when they mean the same.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import field, replace
from typing import Literal as TypingLiteral
from typing import NoReturn, TypeVar, cast

from linter.cel.lexer import INT64_MAX, CelSyntaxError, LiteralValue, Token, tokenize
from linter.records import datarecord

__all__ = [
    "BINARY_PRECEDENCE",
    "MACROS",
    "MAX_DEPTH",
    "RESERVED",
    "Binary",
    "Call",
    "CelSyntaxError",
    "Comprehension",
    "Conditional",
    "Has",
    "Ident",
    "Index",
    "ListLit",
    "Literal",
    "MapLit",
    "Message",
    "Node",
    "Select",
    "Unary",
    "children",
    "parse",
    "read_elsewhere",
    "walk_scoped",
]

# The backend stops at 95 levels of brackets; staying under it keeps the two in agreement and
# Python's recursion (parser and tree walkers alike) far from its limit.
MAX_DEPTH = 90
RESERVED = frozenset(
    {
        "as", "break", "const", "continue", "else", "for", "function", "if", "import", "let",
        "loop", "package", "namespace", "return", "var", "void", "while",
    }
)  # fmt: skip
MACROS: dict[str, tuple[int, ...]] = {  # receiver macro -> argument counts that expand it
    "all": (2,),
    "exists": (2,),
    "exists_one": (2,),
    "filter": (2,),
    "map": (2, 3),
}
BINARY_PRECEDENCE = {
    "||": 1, "&&": 2,
    "==": 3, "!=": 3, "<": 3, "<=": 3, ">": 3, ">=": 3, "in": 3,
    "+": 4, "-": 4,
    "*": 5, "/": 5, "%": 5,
}  # fmt: skip

LiteralKind = TypingLiteral["int", "uint", "double", "string", "bytes", "bool", "null"]
_LITERAL_TOKENS = frozenset({"int", "uint", "double", "string", "bytes", "true", "false", "null"})
_Item = TypeVar("_Item")


@datarecord(slots=True, kw_only=True)
class Node:
    start: int = field(default=0, compare=False)  # a node made by code, not parsed, has no span
    end: int = field(default=0, compare=False)


@datarecord(slots=True)
class Literal(Node):
    value: LiteralValue
    kind: LiteralKind  # 1 and 1u (and true and 1) are equal in Python, not in CEL


@datarecord(slots=True)
class Ident(Node):
    name: str  # ``.a`` (resolved from the root scope) keeps its dot


@datarecord(slots=True)
class Select(Node):
    operand: Node
    field: str


@datarecord(slots=True)
class Index(Node):
    operand: Node
    index: Node


@datarecord(slots=True)
class Call(Node):
    function: str  # a global function may have a leading dot: ``.f(x)``
    args: tuple[Node, ...]
    target: Node | None = None  # the receiver of ``target.function(args)``


@datarecord(slots=True)
class Has(Node):
    """``has(operand.field)``: whether the field is present."""

    select: Select


@datarecord(slots=True)
class Comprehension(Node):
    """``range.macro(variable, *args)``: ``args`` is ``(predicate,)``, ``(transform,)`` or, for
    the three-argument map, ``(filter, transform)``."""

    macro: str
    range: Node
    variable: str
    args: tuple[Node, ...]


@datarecord(slots=True)
class Unary(Node):
    op: str  # ! or -
    operand: Node


@datarecord(slots=True)
class Binary(Node):
    op: str
    left: Node
    right: Node


@datarecord(slots=True)
class Conditional(Node):
    condition: Node
    then: Node
    otherwise: Node


@datarecord(slots=True)
class ListLit(Node):
    elements: tuple[Node, ...]


@datarecord(slots=True)
class MapLit(Node):
    entries: tuple[tuple[Node, Node], ...]


@datarecord(slots=True)
class Message(Node):
    """``name{field: value, ...}``; ``name`` is qualified (``a.b.M``) and may have a leading dot."""

    name: str
    fields: tuple[tuple[str, Node], ...]


def children(node: Node) -> tuple[Node, ...]:
    """The direct subexpressions of ``node``, in source order."""
    if isinstance(node, (Literal, Ident)):
        return ()
    if isinstance(node, (Select, Unary)):
        return (node.operand,)
    if isinstance(node, Index):
        return (node.operand, node.index)
    if isinstance(node, Call):
        return node.args if node.target is None else (node.target, *node.args)
    if isinstance(node, Has):
        return (node.select,)
    if isinstance(node, Comprehension):
        return (node.range, *node.args)
    if isinstance(node, Binary):
        return (node.left, node.right)
    if isinstance(node, Conditional):
        return (node.condition, node.then, node.otherwise)
    if isinstance(node, ListLit):
        return node.elements
    if isinstance(node, MapLit):
        return tuple(part for entry in node.entries for part in entry)
    if isinstance(node, Message):
        return tuple(value for _, value in node.fields)
    raise TypeError(f"not a CEL node: {node!r}")


#: A node, and the comprehension variables in scope where it is.
Scoped = tuple[Node, frozenset[str]]
#: What a walk does at a node: None to go on into its subexpressions, else the subexpressions
#: (each with its scope) to go on into instead.
Visit = Callable[[Node, frozenset[str]], Iterable[Scoped] | None]


def walk_scoped(root: Node, visit: Visit) -> None:
    """Call ``visit`` on ``root`` and on the subexpressions it goes on into, each with the
    comprehension variables bound there (a comprehension binds its variable in its arguments,
    not in its range). A loop, not a recursion: trees are as deep as ``MAX_DEPTH``."""
    stack: list[Scoped] = [(root, frozenset())]
    while stack:
        node, bound = stack.pop()
        chosen = visit(node, bound)
        if chosen is not None:
            stack.extend(chosen)
        elif isinstance(node, Comprehension):
            stack.append((node.range, bound))
            stack.extend((arg, bound | {node.variable}) for arg in node.args)
        else:
            stack.extend((child, bound) for child in children(node))


def read_elsewhere(sources: Iterable[str], visit: Visit) -> set[str]:
    """The free variables the expressions ``sources`` read outside the nodes ``visit`` answers
    for (:func:`walk_scoped`): what an analysis of how names are read must leave out."""
    other: set[str] = set()

    def walk(node: Node, bound: frozenset[str]) -> Iterable[Scoped] | None:
        if isinstance(node, Ident):
            if node.name not in bound:
                other.add(node.name)
            return ()
        return visit(node, bound)

    for source in sources:
        walk_scoped(parse(source), walk)
    return other


@functools.lru_cache(maxsize=2048)
def parse(source: str) -> Node:
    """The syntax tree of ``source``; raises CelSyntaxError. Remembered (trees are immutable):
    loading the rules reads each expression several times (budget check, flattening, message
    placeholders), and parsing them all again is a tenth of start-up."""
    parser = _Parser(source)
    tree = parser.parse()
    if len(parser.tokens) - 1 > MAX_DEPTH:  # else too few tokens to nest deeper: each node has one
        _check_depth(tree)
    return tree


def _check_depth(tree: Node) -> None:
    """Operator chains (``a || b || ...``, ``!!!x``, ``a.b.c...``) nest the tree without nesting
    the parser; bound them too, so that walking a tree never recurses deeper than MAX_DEPTH."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise CelSyntaxError(f"expression nested more than {MAX_DEPTH} levels deep", node.start)
        stack.extend((child, depth + 1) for child in children(node))


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source
        self.tokens = tokenize(source)
        self.position = 0
        self.depth = 0

    @property
    def token(self) -> Token:
        return self.tokens[self.position]

    def peek(self, ahead: int = 1) -> Token:
        return self.tokens[min(self.position + ahead, len(self.tokens) - 1)]

    def advance(self) -> Token:
        token = self.tokens[self.position]
        self.position += 1
        return token

    def expect(self, kind: str) -> Token:
        if self.token.kind != kind:
            self.fail(f"expected {kind!r}")
        return self.advance()

    def fail(self, expected: str) -> NoReturn:
        token = self.token
        raise CelSyntaxError(f"{expected}, found {token.describe(self.source)}", token.start)

    def parse(self) -> Node:
        tree = self.expression()
        if self.token.kind != "end":
            self.fail("expected an operator or the end of the expression")
        return tree

    def expression(self) -> Node:
        """Expr: every nested expression comes through here, so this is where depth is kept."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise CelSyntaxError(
                f"expression nested more than {MAX_DEPTH} levels deep", self.token.start
            )
        condition = self.binary()
        if self.token.kind == "?":
            self.advance()
            then = self.binary()  # the grammar's ConditionalOr: no unparenthesised ?: here
            self.expect(":")
            otherwise = self.expression()
            condition = Conditional(
                condition, then, otherwise, start=condition.start, end=otherwise.end
            )
        self.depth -= 1
        return condition

    def binary(self) -> Node:
        """The binary operators by precedence, all left-associative, without recursion."""
        operands = [self.unary()]
        operators: list[str] = []

        def reduce() -> None:
            right, left = operands.pop(), operands.pop()
            operands.append(Binary(operators.pop(), left, right, start=left.start, end=right.end))

        while self.token.kind in BINARY_PRECEDENCE:
            precedence = BINARY_PRECEDENCE[self.token.kind]
            while operators and BINARY_PRECEDENCE[operators[-1]] >= precedence:
                reduce()
            operators.append(self.advance().kind)
            operands.append(self.unary())
        while operators:
            reduce()
        return operands[0]

    def unary(self) -> Node:
        """``!`` and ``-`` repeat but do not mix (``!-x`` is not CEL). A single ``-`` before a
        number is part of the literal (``-9223372036854775808`` is an int), as in the backend."""
        kind = self.token.kind
        if kind not in ("!", "-") or (kind == "-" and self._signed_number()):
            return self.member()
        operators: list[Token] = []
        while self.token.kind == kind:
            operators.append(self.advance())
        node = self.member()
        for operator in reversed(operators):
            node = Unary(kind, node, start=operator.start, end=node.end)
        return node

    def _signed_number(self) -> bool:
        return self.token.kind == "-" and self.peek().kind in ("int", "double")

    def member(self) -> Node:
        node, is_name = self.primary()
        while True:
            kind = self.token.kind
            if kind == ".":
                self.advance()
                name = self.expect_name("a field name")
                if self.token.kind == "(":
                    args, end = self.arguments()
                    node = self.call(str(name.value), args, node, node.start, end)
                    is_name = False
                else:
                    node = Select(node, str(name.value), start=node.start, end=name.end)
            elif kind == "[":
                self.advance()
                index = self.expression()
                end = self.expect("]").end
                node = Index(node, index, start=node.start, end=end)
                is_name = False
            elif kind == "{" and is_name:
                node = self.message(node)
                is_name = False
            else:
                return node

    def primary(self) -> tuple[Node, bool]:
        """A primary expression, and whether it is a plain (qualified) name, which a message
        construction may follow."""
        token = self.token
        kind = token.kind
        if kind in ("ident", "."):
            return self.name_or_call()
        if kind == "(":
            self.advance()
            inner = self.expression()
            end = self.expect(")").end
            return replace(inner, start=token.start, end=end), False
        if kind == "[":
            self.advance()
            elements, end = self.sequence("]", self.expression)
            return ListLit(tuple(elements), start=token.start, end=end), False
        if kind == "{":
            self.advance()
            entries, end = self.sequence("}", self.map_entry)
            return MapLit(tuple(entries), start=token.start, end=end), False
        return self.literal(), False

    def name_or_call(self) -> tuple[Node, bool]:
        start = self.token.start
        dot = "." if self.token.kind == "." else ""
        if dot:
            self.advance()
        name = self.expect_name("a name")
        text = str(name.value)
        if text in RESERVED:
            raise CelSyntaxError(f"{text!r} is a reserved word", name.start)
        if self.token.kind == "(":
            args, end = self.arguments()
            return self.call(dot + text, args, None, start, end), False
        return Ident(dot + text, start=start, end=name.end), True

    def expect_name(self, what: str) -> Token:
        if self.token.kind != "ident":
            self.fail(f"expected {what}")
        return self.advance()

    def arguments(self) -> tuple[list[Node], int]:
        self.expect("(")
        args: list[Node] = []
        if self.token.kind != ")":
            args.append(self.expression())
            while self.token.kind == ",":
                self.advance()
                args.append(self.expression())
        return args, self.expect(")").end

    def sequence(self, close: str, item: Callable[[], _Item]) -> tuple[list[_Item], int]:
        """Comma-separated items up to ``close``; a trailing comma is allowed after an item."""
        items: list[_Item] = []
        while self.token.kind != close:
            items.append(item())
            if self.token.kind != ",":
                break
            self.advance()
        return items, self.expect(close).end

    def map_entry(self) -> tuple[Node, Node]:
        key = self.expression()
        self.expect(":")
        return key, self.expression()

    def message(self, name: Node) -> Message:
        self.expect("{")

        def initializer() -> tuple[str, Node]:
            field_name = str(self.expect_name("a field name").value)
            self.expect(":")
            return field_name, self.expression()

        fields, end = self.sequence("}", initializer)
        return Message(_qualified_name(name), tuple(fields), start=name.start, end=end)

    def call(
        self, function: str, args: list[Node], target: Node | None, start: int, end: int
    ) -> Node:
        """A call, or the macro it spells."""
        if target is None and function == "has" and len(args) == 1:
            select = args[0]
            if not isinstance(select, Select):
                raise CelSyntaxError(
                    "has() needs a field selection, such as has(a.b)", select.start
                )
            return Has(select, start=start, end=end)
        if target is not None and len(args) in MACROS.get(function, ()):
            variable = args[0]
            if not isinstance(variable, Ident):
                raise CelSyntaxError(
                    f"the first argument of {function}() must be a simple name", variable.start
                )
            return Comprehension(
                function, target, variable.name, tuple(args[1:]), start=start, end=end
            )
        return Call(function, tuple(args), target, start=start, end=end)

    def literal(self) -> Node:
        start = self.token.start
        negative = self._signed_number()
        if negative:
            self.advance()
        token = self.token
        if token.kind not in _LITERAL_TOKENS:
            self.fail("expected an expression")
        self.advance()
        value = token.value
        kind = token.kind
        if isinstance(value, (int, float)) and kind in ("int", "double"):
            value = -value if negative else value
            if kind == "int" and not -INT64_MAX - 1 <= value <= INT64_MAX:
                raise CelSyntaxError("int literal out of range", start)
        elif kind in ("true", "false", "null"):
            value = None if kind == "null" else kind == "true"
            kind = "null" if kind == "null" else "bool"
        return Literal(value, cast(LiteralKind, kind), start=start, end=token.end)


def _qualified_name(node: Node) -> str:
    if isinstance(node, Select):
        return f"{_qualified_name(node.operand)}.{node.field}"
    assert isinstance(node, Ident)
    return node.name
