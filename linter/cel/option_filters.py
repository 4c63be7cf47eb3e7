"""The names an expression reads only to keep the elements a rule option lists:
``facts__environment__wordList`` in ``facts__environment__wordList.filter(w, w in
options.idleProneWords)``.

What such an expression makes of the name's value depends only on which of its elements the
option lists, in order: two workloads whose words differ, but not in the words the option names,
get the same result. The rule engine remembers a rule's quiet outcomes under the values its
verdict reads (linter/policy/evaluator.py), and a list of a workload's own words, different for
every workload, would make every such key different; under the elements the option keeps it is
shared. Worked out from syntax trees when a rule file is checked; the result is kept in the
start-up cache with the rule's analysis (linter/policy/rule_analysis.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from linter.cel.syntax import Binary, Comprehension, Ident, Node, Scoped, Select, read_elsewhere

#: The macros whose result depends only on which elements pass their predicate, in order:
#: ``filter`` keeps them, ``exists`` asks whether there is one.
_KEEPING = frozenset({"filter", "exists"})


def option_filtered(sources: Iterable[str]) -> dict[str, str]:
    """The free variables the expressions ``sources`` (valid, flattened CEL) read, each mapped
    to the option (``options.KEY``) they are read through, where every reading of the variable
    is ``name.filter(x, x in options.KEY)`` or ``name.exists(x, x in options.KEY)``, all with
    the same KEY."""
    through: dict[str, set[str]] = {}

    def visit(node: Node, bound: frozenset[str]) -> list[Scoped] | None:
        if isinstance(node, Comprehension) and isinstance(node.range, Ident):
            key = _option_membership(node, bound)
            if key is not None:
                through.setdefault(node.range.name, set()).add(key)
                return []
        return None

    other = read_elsewhere(sources, visit)
    return {
        name: next(iter(keys))
        for name, keys in through.items()
        if len(keys) == 1 and name not in other
    }


def _option_membership(node: Comprehension, bound: frozenset[str]) -> str | None:
    """KEY, when ``node`` is ``name.filter(x, x in options.KEY)`` or its ``exists`` (``name``
    and ``options`` free)."""
    if node.macro not in _KEEPING or len(node.args) != 1:
        return None
    if not isinstance(node.range, Ident) or node.range.name in bound:
        return None
    test = node.args[0]
    if not (isinstance(test, Binary) and test.op == "in"):
        return None
    element, option = test.left, test.right
    if not (isinstance(element, Ident) and element.name == node.variable):
        return None
    if not (isinstance(option, Select) and isinstance(option.operand, Ident)):
        return None
    if option.operand.name != "options" or "options" in bound | {node.variable}:
        return None
    return option.field
