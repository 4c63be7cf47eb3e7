"""Rewrite rule expressions so that deep member chains read small values.

The CEL backend converts every variable an expression reads from Python on each evaluation, so
``workload.spec.resources.capacity`` converts all of ``workload`` every time: tens of
microseconds per expression on a real workload. Rewriting the chain to the single name
``workload__spec__resources__capacity`` and binding that name to the value at that path converts
one scalar. The meaning is unchanged: the same value is read; a path that does not exist is an
evaluation error either way (an undefined name instead of a missing key). A run binds the names
as linter/cel/flat_names.py resolves them; the rewriting happens when a rule file is checked, and
its result is kept in the start-up cache with the rule (linter/policy/rule_analysis.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from linter.cel import backend as cel
from linter.cel import work_limits
from linter.cel.flat_names import SEPARATOR, activation_roots
from linter.cel.lexer import ExpressionError
from linter.cel.syntax import Has, Ident, Node, Scoped, Select, parse, walk_scoped


def flatten(source: str, roots: Iterable[str]) -> str:
    """Replace each chain ``root.a.b.c`` by the single name ``root__a__b__c``, for chains that
    start at one of ``roots`` (raises CelSyntaxError).

    The chains are found on the syntax tree, so strings and comments are never rewritten and a
    comprehension variable that shadows a root is left alone. A method call on a chain stays a
    call on the flattened receiver (``a__b.map(...)``); inside ``has(...)`` the last field stays a
    selection, as ``has`` needs (``has(a__b.c)``); an index ends the chain (``a__b[0].c``).
    """
    return flatten_tree(source, parse(source), frozenset(roots))


def flatten_tree(source: str, tree: Node, roots: frozenset[str]) -> str:
    """``flatten`` of a tree already parsed from ``source``."""
    edits: list[tuple[int, int, str]] = []

    def visit(node: Node, bound: frozenset[str]) -> list[Scoped] | None:
        if isinstance(node, Select):
            flat = _flat_chain(node, roots - bound)
            if flat is not None:
                edits.append(flat)
                return []
        if isinstance(node, Has):  # the selection itself stays; its operand may flatten
            return [(node.select.operand, bound)]
        return None

    walk_scoped(tree, visit)
    out: list[str] = []
    last = 0
    for start, end, text in sorted(edits):
        out += [source[last:start], text]
        last = end
    out.append(source[last:])
    return "".join(out)


def _flat_chain(node: Select, roots: frozenset[str]) -> tuple[int, int, str] | None:
    """The edit flattening the chain of selections ``node`` ends, if it starts at a root. A field
    whose name holds the separator ends what can be flattened (``resolve`` splits at it)."""
    selections: list[Select] = []
    operand: Node = node
    while isinstance(operand, Select):
        selections.append(operand)
        operand = operand.operand
    if not isinstance(operand, Ident) or operand.name not in roots:
        return None
    fields = [selection.field for selection in reversed(selections)]
    usable = next((i for i, name in enumerate(fields) if SEPARATOR in name), len(fields))
    if usable == 0:
        return None
    prefix = selections[len(fields) - usable]
    return prefix.start, prefix.end, SEPARATOR.join([operand.name, *fields[:usable]])


def flattened(source: str) -> str:
    """A rule's CEL with member chains flattened from the activation's roots, once the limits
    checked at load hold (raises cel.CelError, also for source that is not CEL or an expression
    over the evaluation budget)."""
    try:
        tree = work_limits.check(source)
    except ExpressionError as err:
        raise cel.CelError(str(err)) from None
    return flatten_tree(source, tree, activation_roots())
