"""Limits on what a rule expression may cost: static ones checked when the rule is loaded, and a
bound computed for each document before the expression runs on it.

A rule file is data that anyone with write access to a repository can add, and the CEL backend
has no evaluation budget of its own: comprehensions nested inside each other multiply (a ``map``
over 1,000 labels nested three deep is 10^9 steps), and a string doubled in a chain of ``map``
calls grows exponentially without nesting at all. So:

* at load (``check``): a length limit, at most ``MAX_COMPREHENSION_DEPTH`` nested comprehensions,
  and every comprehension ranging over something whose size is known;
* per document (``over_budget`` of a ``cost_model``): the model's bounds evaluated with the
  sizes of that document's values, refused above ``MAX_COST`` steps or ``MAX_VALUE_SIZE``
  built, before anything runs.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from linter.policy.cel_cost import BudgetError, CostModel, SizeOf
from linter.policy.cel_cost import cost_model as _cost_model
from linter.policy.cel_paths import Path, Segment, Wildcard
from linter.policy.cel_syntax import Comprehension, Node, children, parse

MAX_LENGTH = 4000
MAX_COMPREHENSION_DEPTH = 3
# Per expression (or per rule, for models added up) and document. A step is about 0.1 us of the
# backend's time (two map() nested over 1,000 labels: a bound of 5,000,000, 0.5 s measured), so
# the limit is about 0.1 s. The built-in rules stay under a few thousand of either on every
# example and test manifest (tests/policy/test_budget.py checks that).
MAX_COST = 1_000_000
MAX_VALUE_SIZE = 1_000_000  # characters, elements or entries built in all

__all__ = [
    "MAX_COMPREHENSION_DEPTH",
    "MAX_COST",
    "MAX_LENGTH",
    "MAX_VALUE_SIZE",
    "BudgetError",
    "CostModel",
    "SizeOf",
    "check",
    "cost_bound",
    "cost_model",
    "document_sizes",
    "over_budget",
]


def check(source: str) -> Node:
    """The syntax tree of a rule expression, once the limits checked at load hold; raises
    CelSyntaxError or BudgetError."""
    if len(source) > MAX_LENGTH:
        raise BudgetError(f"expression longer than {MAX_LENGTH} characters", MAX_LENGTH)
    return _analysed(source, None)[0]


def cost_model(expression: str, each: str | None = None) -> CostModel:
    """The cost bounds of an expression, computed once (``each``: of evaluating it for every
    element of a rule's ``each``, bound to ``item``). Models add up: a rule's total is the sum
    of its expressions'."""
    return _analysed(expression, each)[1]


def cost_bound(expression: str, size_of: SizeOf, each: str | None = None) -> int:
    """An upper bound on the steps evaluating ``expression`` takes on the document whose value
    sizes ``size_of`` gives (see ``document_sizes``)."""
    return cost_model(expression, each).bounds(size_of)[0]


def over_budget(model: CostModel, size_of: SizeOf) -> str | None:
    """Why evaluating ``model``'s expressions on this document is refused, or None."""
    work, built = model.bounds(size_of)
    if work > MAX_COST:
        return f"evaluating it could take {work:,} steps on this document (limit {MAX_COST:,})"
    if built > MAX_VALUE_SIZE:
        return (
            f"it could build values of {built:,} elements or characters on this document "
            f"(limit {MAX_VALUE_SIZE:,})"
        )
    return None


def document_sizes(variables: Mapping[str, Any]) -> SizeOf:
    """``size_of`` for an activation (``workload``, ``facts``, ``options``...), memoised: the
    length of the string, list or map at a path (the largest over the elements a wildcard
    stands for), 1 for a scalar, 0 where there is nothing."""
    values: dict[Path, list[Any]] = {(name,): [value] for name, value in variables.items()}
    sizes: dict[Path, int] = {}

    def values_at(path: Path) -> list[Any]:
        found = values.get(path)
        if found is None:
            parent = values_at(path[:-1]) if len(path) > 1 else []
            segment = path[-1]
            if len(parent) == 1 and isinstance(parent[0], Mapping) and isinstance(segment, str):
                found = [parent[0][segment]] if segment in parent[0] else []  # the usual case
            else:
                found = list(_step(parent, segment))
            values[path] = found
        return found

    def size_of(path: Path) -> int:
        size = sizes.get(path)
        if size is None:
            found = values_at(path)
            size = sizes[path] = (
                _size(found[0]) if len(found) == 1 else max(map(_size, found), default=0)
            )
        return size

    return size_of


def _size(value: Any) -> int:
    return len(value) if isinstance(value, (str, bytes, list, tuple, Mapping)) else 1


def _step(values: Iterable[Any], segment: Segment) -> Iterator[Any]:
    """The values one segment further."""
    for value in values:
        if isinstance(value, Mapping):
            if segment is Wildcard.EACH:
                yield from value  # iterating a map yields its keys
            elif segment is Wildcard.ANY:
                yield from value.values()
            elif segment in value:
                yield value[segment]
        elif isinstance(value, (list, tuple)):
            if isinstance(segment, Wildcard):
                yield from value
            elif isinstance(segment, int) and 0 <= segment < len(value):
                yield value[segment]


@functools.lru_cache(maxsize=2048)
def _analysed(source: str, each: str | None) -> tuple[Node, CostModel]:
    tree = parse(source)
    _check_nesting(tree)
    return tree, _cost_model(tree, None if each is None else parse(each))


def _check_nesting(tree: Node) -> None:
    stack: list[tuple[Node, int]] = [(tree, 0)]
    while stack:
        node, enclosing = stack.pop()
        if not isinstance(node, Comprehension):
            stack.extend((child, enclosing) for child in children(node))
            continue
        if enclosing == MAX_COMPREHENSION_DEPTH:
            raise BudgetError(
                f"comprehensions (map, filter, exists, all) nested more than "
                f"{MAX_COMPREHENSION_DEPTH} deep",
                node.start,
            )
        stack.append((node.range, enclosing))
        stack.extend((arg, enclosing + 1) for arg in node.args)
