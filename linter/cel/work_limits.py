"""Limits on what a rule expression may cost: static ones checked when the rule is loaded, and a
bound computed for each document before the expression runs on it (linter/cel/work.py).

A rule file is data that anyone with write access to a repository can add, and the CEL backend
has no evaluation budget of its own: comprehensions nested inside each other multiply (a ``map``
over 1,000 labels nested three deep is 10^9 steps), and a string doubled in a chain of ``map``
calls grows exponentially without nesting at all. So:

* at load (``check``): a length limit, at most ``MAX_COMPREHENSION_DEPTH`` nested comprehensions,
  and every comprehension ranging over something whose size is known;
* per document (``over_work_limit`` of a ``work_model``, in linter/cel/work.py): the
  model's bounds evaluated with the sizes of that document's values, refused above ``MAX_WORK``
  steps or ``MAX_VALUE_SIZE`` built, before anything runs.

This module parses: a run whose rules come from the start-up cache never imports it.
"""

from __future__ import annotations

import functools

from linter.cel.syntax import Comprehension, Node, children, parse
from linter.cel.work import SizeOf, WorkModel
from linter.cel.work_bounds import WorkLimitError
from linter.cel.work_bounds import work_model as _cost_model

MAX_LENGTH = 4000
MAX_COMPREHENSION_DEPTH = 3
__all__ = [
    "MAX_COMPREHENSION_DEPTH",
    "MAX_LENGTH",
    "SizeOf",
    "WorkLimitError",
    "WorkModel",
    "check",
    "work_bound",
    "work_model",
]


def check(source: str) -> Node:
    """The syntax tree of a rule expression, once the limits checked at load hold; raises
    CelSyntaxError or WorkLimitError."""
    if len(source) > MAX_LENGTH:
        raise WorkLimitError(f"expression longer than {MAX_LENGTH} characters", MAX_LENGTH)
    return _analysed(source, None)[0]


def work_model(expression: str, each: str | None = None) -> WorkModel:
    """The cost bounds of an expression, computed once (``each``: of evaluating it for every
    element of a rule's ``each``, bound to ``item``). Models add up: a rule's total is the sum
    of its expressions'."""
    return _analysed(expression, each)[1]


def work_bound(expression: str, size_of: SizeOf, each: str | None = None) -> int:
    """An upper bound on the steps evaluating ``expression`` takes on the document whose value
    sizes ``size_of`` gives (see ``document_sizes``)."""
    return work_model(expression, each).bounds(size_of)[0]


@functools.lru_cache(maxsize=2048)
def _analysed(source: str, each: str | None) -> tuple[Node, WorkModel]:
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
            raise WorkLimitError(
                f"comprehensions (map, filter, exists, all) nested more than "
                f"{MAX_COMPREHENSION_DEPTH} deep",
                node.start,
            )
        stack.append((node.range, enclosing))
        stack.extend((arg, enclosing + 1) for arg in node.args)
