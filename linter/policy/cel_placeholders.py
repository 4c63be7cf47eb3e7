"""What a message placeholder does: read a value, or decide something.

"Message placeholders read values; they never choose" (DESIGN.md): a placeholder that is only a
path can be rendered by looking the value up, without CEL; one that holds a conditional or
builds a string is a decision, which belongs in the rule's ``variables:`` (or in a fact).
"""

from __future__ import annotations

from linter.cel.flat_names import SEPARATOR
from linter.cel.syntax import (
    Binary,
    Call,
    Conditional,
    Ident,
    Index,
    Literal,
    Node,
    Select,
    children,
    parse,
)
from linter.policy.rule_analysis import Lookup


def plain_lookup(expression: str, roots: frozenset[str]) -> Lookup | None:
    """The lookup that reads what ``expression`` evaluates to, once flattened with ``roots``
    (linter/cel/flatten.py: leading field selections from a root become one name); None
    unless the expression is a member chain with literal string keys and non-negative ``int``
    indexes (a computed, negative or ``uint`` index is left to CEL). Raises CelSyntaxError."""
    steps: list[tuple[str | int, bool]] = []  # (key, written as a field selection)
    node = parse(expression)
    while not isinstance(node, Ident):
        if isinstance(node, Select):
            steps.append((node.field, True))
            node = node.operand
            continue
        key = _literal_key(node.index) if isinstance(node, Index) else None
        if key is None or not isinstance(node, Index):
            return None
        steps.append((key, False))
        node = node.operand
    if node.name.startswith("."):
        return None
    steps.reverse()
    name, first = node.name, 0
    if name in roots:
        while first < len(steps) and steps[first][1] and SEPARATOR not in str(steps[first][0]):
            name += SEPARATOR + str(steps[first][0])
            first += 1
    return name, tuple(key for key, _ in steps[first:])


def _literal_key(index: Node) -> str | int | None:
    """A literal string key or non-negative ``int`` index (``1u`` and ``true`` are not)."""
    if isinstance(index, Literal):
        if index.kind == "string" and isinstance(index.value, str):
            return index.value
        if index.kind == "int" and isinstance(index.value, int) and index.value >= 0:
            return index.value
    return None


def decisions(expression: str) -> list[tuple[int, int]]:
    """The spans of the choices an expression makes: each conditional (``c ? a : b``), and each
    chain of ``+`` that is or may be building a string (one of its operands is a string literal
    or a ``string()`` call). Raises CelSyntaxError."""
    found: list[tuple[int, int]] = []
    stack = [parse(expression)]
    while stack:
        node = stack.pop()
        if isinstance(node, Conditional):
            found.append((node.start, node.end))
        if isinstance(node, Binary) and node.op == "+":
            operands = _sum_operands(node)
            if any(_is_text(operand) for operand in operands):
                found.append((node.start, node.end))
            stack.extend(operands)
            continue
        stack.extend(children(node))
    return sorted(found)


def _sum_operands(node: Binary) -> list[Node]:
    """The operands of a chain ``a + b + c``, however it is grouped."""
    operands: list[Node] = []
    pending: list[Node] = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, Binary) and current.op == "+":
            pending += [current.right, current.left]
        else:
            operands.append(current)
    return operands


def _is_text(node: Node) -> bool:
    if isinstance(node, Literal):
        return node.kind == "string"
    return isinstance(node, Call) and node.function == "string" and node.target is None
