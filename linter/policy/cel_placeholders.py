"""What a message placeholder does: read a value, or decide something.

"Message placeholders read values; they never choose" (DESIGN.md): a placeholder that is only a
path can be rendered by looking the value up, without CEL; one that holds a conditional or
builds a string is a decision, which belongs in a fact.
"""

from __future__ import annotations

from linter.policy.cel_paths import chain
from linter.policy.cel_syntax import Binary, Call, Conditional, Literal, Node, children, parse


def is_plain_path(expression: str) -> tuple[str | int, ...] | None:
    """The path of an expression that is only a member chain from a variable, with literal
    indexes (``facts.memory.reason``, ``item.quotas[0]``, ``labels["team"]``); else None.
    Raises CelSyntaxError."""
    found = chain(parse(expression))
    if found is None:
        return None
    variable, segments = found
    path: list[str | int] = [variable.name]
    for segment, _, _ in segments:
        if not isinstance(segment, (str, int)):
            return None  # a computed index
        path.append(segment)
    return tuple(path)


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
