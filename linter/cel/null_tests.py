"""The names an expression reads only to compare with null: ``facts__memory__inference`` in
``facts__memory__inference != null && facts__memory__inference__kvKnown``.

Such a name's value matters to the expression only as null or not: the rule engine converts a
stand-in for a large map or list into the CEL context (each string converted costs about as much
as evaluating a small expression) and remembers outcomes under its fields, not the whole value
(linter/policy/evaluator.py). Worked out from syntax trees when a rule file is checked; the
result is kept in the start-up cache with the rule's analysis (linter/policy/rule_analysis.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from linter.cel.syntax import Binary, Ident, Literal, Node, Scoped, read_elsewhere


def null_tested(sources: Iterable[str]) -> frozenset[str]:
    """The free variables the expressions ``sources`` (valid CEL) read, and read only as a whole
    operand of ``== null`` or ``!= null``."""
    tested: set[str] = set()

    def visit(node: Node, bound: frozenset[str]) -> list[Scoped] | None:
        if not (isinstance(node, Binary) and node.op in ("==", "!=")):
            return None
        rest = []
        for side, opposite in ((node.left, node.right), (node.right, node.left)):
            if _is_null(opposite) and isinstance(side, Ident) and side.name not in bound:
                tested.add(side.name)
            else:
                rest.append((side, bound))
        return rest

    other = read_elsewhere(sources, visit)
    return frozenset(tested - other)


def _is_null(node: Node) -> bool:
    return isinstance(node, Literal) and node.kind == "null"
