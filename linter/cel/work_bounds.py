"""Upper bounds on how much work evaluating a CEL expression takes, as polynomials in the sizes of
the values it reads.

The analysis runs once per expression, on its syntax tree: every value gets a *shape* (a bound
on its size and on the shapes of its parts) and every node a *work* bound. Sizes of document
values are unknowns named by their path (``facts.pool.conflicts``, ``workload.metadata.labels
[*]``), so the result is a pair of polynomials whose evaluation on one document is a few size
lookups, multiplications and additions. The bounds follow the cel-spec's complexity section: a
comprehension multiplies the work of its body by the size of its range, ``in`` and substring
search multiply the sizes of their operands, ``+`` on strings and lists builds a value as large
as both, ``map`` a list of its results; ``size``, arithmetic and logic are constant. A maximum
is bounded by a sum: coarser, never smaller.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from linter.cel.lexer import ExpressionError
from linter.cel.read_paths import chain
from linter.cel.syntax import (
    Binary,
    Call,
    Comprehension,
    Conditional,
    Has,
    Ident,
    Index,
    ListLit,
    Literal,
    MapLit,
    Message,
    Node,
    Select,
    Unary,
)
from linter.cel.value_paths import Path, Segment, Wildcard
from linter.cel.work import ONE, ZERO, Poly, WorkModel
from linter.records import datarecord

MAX_TERMS = 500  # beyond this an expression is refused as too complex to bound
TEXT_OF_SCALAR = 32  # characters string() may write for a number, a bool, a timestamp...
_TEXT_SEARCH = frozenset({"contains", "startsWith", "endsWith", "matches"})


class WorkLimitError(ExpressionError):
    """An expression that could cost too much to evaluate, or whose cost cannot be bounded."""


def _sum(polys: Iterable[Poly]) -> Poly:
    total = ZERO
    for poly in polys:
        total = total + poly
    return total


class Shape:
    """A bound on a value: ``size`` is its length (characters, elements, entries; 1 for a
    scalar), ``each`` what iterating it yields, ``any`` what indexing it with a computed key
    yields, ``part`` what a field or literal index yields, ``total`` its size with its parts'."""

    size: Poly = ONE

    def each(self) -> Shape:
        return SCALAR

    def any(self) -> Shape:
        return SCALAR

    def part(self, segment: Segment) -> Shape:
        return SCALAR

    def total(self) -> Poly:
        return self.size


SCALAR = Shape()


class PathShape(Shape):
    """A value of the document (or options), read at ``path``: its sizes are the document's."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.size = Poly.size(path)

    def each(self) -> Shape:
        return PathShape((*self.path, Wildcard.EACH))

    def any(self) -> Shape:
        return PathShape((*self.path, Wildcard.ANY))

    def part(self, segment: Segment) -> Shape:
        return PathShape((*self.path, segment))


class BuiltShape(Shape):
    """A value the expression builds: ``size`` elements (or characters), each bounded by
    ``element`` (keys and values alike, for a map). Only a ``map`` result owns its elements
    (built for it); a concatenation or a literal refers to values that exist already."""

    def __init__(self, size: Poly, element: Shape = SCALAR, owns_elements: bool = False) -> None:
        self.size = size
        self.element = element
        self.owns_elements = owns_elements

    def each(self) -> Shape:
        return self.element

    def any(self) -> Shape:
        return self.element

    def part(self, segment: Segment) -> Shape:
        return self.element

    def total(self) -> Poly:
        if not self.owns_elements:
            return self.size
        return self.size + self.size * self.element.total()


class JoinShape(Shape):
    """Either of two shapes (the branches of a conditional, the elements of a list)."""

    def __init__(self, first: Shape, second: Shape) -> None:
        self.first = first
        self.second = second
        self.size = first.size + second.size

    def each(self) -> Shape:
        return join(self.first.each(), self.second.each())

    def any(self) -> Shape:
        return join(self.first.any(), self.second.any())

    def part(self, segment: Segment) -> Shape:
        return join(self.first.part(segment), self.second.part(segment))

    def total(self) -> Poly:
        return self.first.total() + self.second.total()


def join(first: Shape, second: Shape) -> Shape:
    if first is second:
        return first
    return JoinShape(first, second)


def join_all(shapes: Iterable[Shape]) -> Shape | None:
    joined: Shape | None = None
    for shape in shapes:
        joined = shape if joined is None else join(joined, shape)
    return joined


@datarecord
class _Result:
    work: Poly
    shape: Shape


def work_model(tree: Node, each: Node | None = None) -> WorkModel:
    """The cost of ``tree``; with ``each``, of evaluating it once per element of ``each``, bound
    to ``item`` (and its position to ``index``). Raises WorkLimitError."""
    analysis = _Analysis()
    if each is None:
        return WorkModel(analysis.visit(tree, {}).work, analysis.values)
    analysis.require_bounded(each, "each")
    items = analysis.visit(each, {})
    variables = {"item": items.shape.each(), "index": SCALAR}
    work, _ = analysis.iterate(each, items, variables, [tree], returned=True)
    return WorkModel(work, analysis.values)


class _Analysis:
    """Work linear in the size of what is read (comparing, converting, copying a string) is
    counted only where it repeats: in a comprehension body, on values other than the current
    element's. Once, or once per element of a document list, it adds up to no more than the
    expression's length times the document's size, both limited. What multiplies (iterations,
    ``in``, substring search) and what is built (``values``) is always counted."""

    def __init__(self) -> None:
        self.values = ZERO  # the sizes of what is built, added up
        self.loops: list[Path | None] = []  # per enclosing body: the path of its element

    def linear(self, poly: Poly) -> Poly:
        if not self.loops:
            return ZERO
        element = self.loops[-1]
        if element is None:
            return poly
        return Poly(
            {
                monomial: coefficient
                for monomial, coefficient in poly.terms.items()
                if len(monomial) != 1 or monomial[0][: len(element)] != element
            }
        )

    def built(self, shape: Shape, node: Node) -> Shape:
        self.values = self.values + self.bounded(shape.total(), node)
        return shape

    def visit(self, node: Node, scope: Mapping[str, Shape]) -> _Result:
        if isinstance(node, Literal):
            size = len(node.value) if isinstance(node.value, (str, bytes)) else 1
            return _Result(ONE, BuiltShape(Poly.constant(size)))
        if isinstance(node, Ident):
            bound = scope.get(node.name)
            if bound is not None:
                return _Result(ONE, bound)
            shape = PathShape((node.name,))  # the backend converts what a variable holds
            return _Result(ONE + self.linear(shape.size), shape)
        if isinstance(node, Select):
            path = _document_path(node, scope)
            if path is not None:  # the backend converts the value at the end of the chain
                shape = PathShape(path)
                return _Result(ONE + self.linear(shape.size), shape)
            operand = self.visit(node.operand, scope)
            return _Result(ONE + operand.work, operand.shape.part(node.field))
        if isinstance(node, Index):
            return self.index(node, scope)
        if isinstance(node, Has):
            return _Result(ONE + self.visit(node.select.operand, scope).work, SCALAR)
        if isinstance(node, Comprehension):
            return self.comprehension(node, scope)
        if isinstance(node, Call):
            return self.call(node, scope)
        if isinstance(node, Unary):
            return _Result(ONE + self.visit(node.operand, scope).work, SCALAR)
        if isinstance(node, Binary):
            return self.binary(node, scope)
        if isinstance(node, Conditional):
            parts = [
                self.visit(part, scope) for part in (node.condition, node.then, node.otherwise)
            ]
            return _Result(ONE + _sum(p.work for p in parts), join(parts[1].shape, parts[2].shape))
        return self.literal(node, scope)

    def index(self, node: Index, scope: Mapping[str, Shape]) -> _Result:
        operand = self.visit(node.operand, scope)
        key = node.index
        if isinstance(key, Literal) and isinstance(key.value, (str, int)) and key.kind != "bool":
            return _Result(ONE + operand.work, operand.shape.part(key.value))
        index = self.visit(key, scope)
        return _Result(ONE + operand.work + index.work, operand.shape.any())

    def literal(self, node: Node, scope: Mapping[str, Shape]) -> _Result:
        """A list, map or message literal."""
        if isinstance(node, ListLit):
            parts = list(node.elements)
        elif isinstance(node, MapLit):
            parts = [part for entry in node.entries for part in entry]
        else:
            assert isinstance(node, Message)
            parts = [value for _, value in node.fields]
        results = [self.visit(part, scope) for part in parts]
        element = join_all(result.shape for result in results) or SCALAR
        count = Poly.constant(max(len(parts), 1))
        shape = self.built(BuiltShape(count, element), node)
        return _Result(count + _sum(result.work for result in results), shape)

    def binary(self, node: Binary, scope: Mapping[str, Shape]) -> _Result:
        left, right = self.visit(node.left, scope), self.visit(node.right, scope)
        work = ONE + left.work + right.work
        size = left.shape.size + right.shape.size
        if node.op == "+":  # strings and lists are copied into a new value
            shape = BuiltShape(size, join(left.shape.each(), right.shape.each()))
            return _Result(work + self.linear(size), self.built(shape, node))
        if node.op == "in":
            return _Result(work + self.search(left.shape.size, right.shape.size, node), SCALAR)
        if node.op in ("==", "!=", "<", "<=", ">", ">="):
            return _Result(work + self.linear(size), SCALAR)
        return _Result(work, SCALAR)

    def call(self, node: Call, scope: Mapping[str, Shape]) -> _Result:
        operands = [] if node.target is None else [node.target]
        results = [self.visit(part, scope) for part in (*operands, *node.args)]
        work = ONE + _sum(result.work for result in results)
        sizes = [result.shape.size for result in results]
        if node.function == "dyn" and len(results) == 1:
            return _Result(work, results[0].shape)
        if node.function in _TEXT_SEARCH and len(results) == 2:
            return _Result(work + self.search(sizes[0], sizes[1], node), SCALAR)
        if node.function in ("string", "bytes") and len(results) == 1:
            expansion = Poly.constant(1 if node.function == "string" else 4)  # UTF-8
            text = expansion * sizes[0] + Poly.constant(TEXT_OF_SCALAR)
            return _Result(work + self.linear(text), self.built(BuiltShape(text), node))
        # size(), conversions, timestamps and functions the backend does not have: the result
        # is a scalar (or an error) and computing it reads the arguments at most
        return _Result(work + self.linear(_sum(sizes)), SCALAR)

    def comprehension(self, node: Comprehension, scope: Mapping[str, Shape]) -> _Result:
        self.require_bounded(node.range, f"{node.macro}()")
        items = self.visit(node.range, scope)
        variables = {**scope, node.variable: items.shape.each()}
        work, body = self.iterate(node, items, variables, node.args)
        if node.macro == "map":  # the last argument is the transform
            shape = BuiltShape(items.shape.size, body[-1].shape, owns_elements=True)
            return _Result(work, self.built(shape, node))
        if node.macro == "filter":
            shape = BuiltShape(items.shape.size, items.shape.each())
            return _Result(work, self.built(shape, node))
        return _Result(work, SCALAR)

    def iterate(
        self,
        node: Node,
        items: _Result,
        scope: Mapping[str, Shape],
        body: Iterable[Node],
        returned: bool = False,
    ) -> tuple[Poly, list[_Result]]:
        """The work of evaluating ``body`` once per element of ``items`` (``returned``: and of
        converting each result for the caller), and the results."""
        element = items.shape.each()
        self.loops.append(element.path if isinstance(element, PathShape) else None)
        results = [self.visit(part, scope) for part in body]
        per_item = ONE + _sum(result.work for result in results)
        if returned:
            per_item = per_item + self.linear(_sum(result.shape.total() for result in results))
        self.loops.pop()
        return ONE + items.work + self.product(items.shape.size, per_item, node), results

    def search(self, needle: Poly, haystack: Poly, node: Node) -> Poly:
        """``in`` and substring search: the product of the sizes, which is linear when either
        is a constant (``x in ["a", "b"]``)."""
        product = self.product(needle, haystack, node)
        return product if needle.depends and haystack.depends else self.linear(product)

    def product(self, first: Poly, second: Poly, node: Node) -> Poly:
        return self.bounded(first * second, node)

    def bounded(self, poly: Poly, node: Node) -> Poly:
        if len(poly.terms) > MAX_TERMS:
            raise WorkLimitError("expression too complex to bound its cost", node.start)
        return poly

    def require_bounded(self, node: Node, what: str) -> None:
        """A comprehension range must be something whose size is known: a path, a literal,
        another comprehension, or ``+``, ``?:`` and ``dyn()`` of those."""
        if not _bounded(node):
            raise WorkLimitError(
                f"the range of {what} must be a path, a literal, a comprehension or a "
                "concatenation of those: its size cannot be bounded",
                node.start,
            )


def _document_path(node: Node, scope: Mapping[str, Shape]) -> Path | None:
    """The path of a chain of selections and literal indexes from a variable of the document
    (not one a comprehension binds)."""
    found = chain(node)
    if found is None or found[0].name in scope:
        return None
    variable, segments = found
    if any(isinstance(segment, Wildcard) for segment, _, _ in segments):
        return None
    return (variable.name, *(segment for segment, _, _ in segments))


def _bounded(node: Node) -> bool:
    if isinstance(node, (Ident, Literal, ListLit, MapLit, Message, Comprehension)):
        return True
    if isinstance(node, (Select, Index)):
        return _bounded(node.operand)
    if isinstance(node, Binary):
        return node.op == "+" and _bounded(node.left) and _bounded(node.right)
    if isinstance(node, Conditional):
        return _bounded(node.then) and _bounded(node.otherwise)
    if isinstance(node, Call):
        return node.function == "dyn" and len(node.args) == 1 and _bounded(node.args[0])
    return False
