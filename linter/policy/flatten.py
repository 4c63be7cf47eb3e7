"""Rewrite rule expressions so that deep member chains read small values.

The CEL backend converts every variable an expression reads from Python on each evaluation, so
``workload.spec.resources.capacity`` converts all of ``workload`` every time: tens of
microseconds per expression on a real workload. Rewriting the chain to the single name
``workload__spec__resources__capacity`` and binding that name to the value at that path converts
one scalar. The meaning is unchanged: the same value is read; a path that does not exist is an
evaluation error either way (an undefined name instead of a missing key).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping

from linter.policy.cel_lexer import ExpressionError
from linter.policy.cel_syntax import (
    Comprehension,
    Has,
    Ident,
    Node,
    Select,
    children,
    parse,
)

SEPARATOR = "__"


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
    stack: list[tuple[Node, frozenset[str]]] = [(tree, frozenset())]
    while stack:
        node, bound = stack.pop()
        if isinstance(node, Select):
            flat = _flat_chain(node, roots - bound)
            if flat is not None:
                edits.append(flat)
                continue
        if isinstance(node, Has):  # the selection itself stays; its operand may flatten
            stack.append((node.select.operand, bound))
        elif isinstance(node, Comprehension):
            stack.append((node.range, bound))
            stack.extend((arg, bound | {node.variable}) for arg in node.args)
        else:
            stack.extend((child, bound) for child in children(node))
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


@functools.cache  # asked for every expression the rules compile
def activation_roots() -> frozenset[str]:
    """The variables rules see: the document as ``document`` and under its kind's name, and
    ``facts``. (``options``, ``item`` and ``index`` are small and are not flattened.)"""
    from linter.model import KINDS

    return frozenset({"document", "facts", *(kind_variable(kind) for kind in KINDS)})


def kind_variable(kind: str) -> str:
    """``Workload`` -> ``workload``, ``QuotaLedger`` -> ``quotaLedger``."""
    return kind[0].lower() + kind[1:]


def compile_rule_expression(source: str) -> object:
    """Compile a rule's CEL with member chains flattened (raises cel.CelError, also for source
    that is not CEL or an expression over the evaluation budget)."""
    from linter import cel
    from linter.policy import budget

    try:
        tree = budget.check(source)
    except ExpressionError as err:
        raise cel.CelError(str(err)) from None
    return cel.compile_expression(flatten_tree(source, tree, activation_roots()))


MISSING = object()


def resolve(activation: Mapping[str, object], name: str) -> object:
    """The value a flattened name stands for, or MISSING when the path does not exist (a null
    value is a value: rules compare with ``== null``)."""
    parts = name.split(SEPARATOR)
    value: object = activation.get(parts[0], MISSING)
    for part in parts[1:]:
        value = member(value, part)
    return value


def member(holder: object, key: str) -> object:
    """``holder[key]`` when ``holder`` is a mapping that has ``key``, else MISSING."""
    if type(holder) is dict:  # the usual case, without an abstract class check
        return holder.get(key, MISSING)
    if isinstance(holder, Mapping):
        try:
            return holder[key]
        except KeyError:  # also a fact that is not known yet (a run-wide one, in pass 1)
            return MISSING
    return MISSING
