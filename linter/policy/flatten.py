"""Rewrite rule expressions so that deep member chains read small values.

The CEL backend converts every variable an expression reads from Python on each evaluation, so
``workload.spec.resources.capacity`` converts all of ``workload`` every time: tens of
microseconds per expression on a real workload. Rewriting the chain to the single name
``workload__spec__resources__capacity`` and binding that name to the value at that path converts
one scalar. The meaning is unchanged: the same value is read; a path that does not exist is an
evaluation error either way (an undefined name instead of a missing key).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

SEPARATOR = "__"
_TOKEN = re.compile(
    r"""(?P<string>[rR]?(?:'''.*?'''|\"\"\".*?\"\"\"|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"))"""
    r"""|(?P<chain>(?<![\w.])[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)+(?!\w))""",
    re.S,
)
_FOLLOWED_BY_CALL = re.compile(r"\s*\(")
_IN_HAS = re.compile(r"\bhas\s*\(\s*\Z")


def flatten(source: str, roots: Iterable[str]) -> str:
    """Replace a chain ``root.a.b.c`` by the single name ``root__a__b__c`` for chains starting
    at one of ``roots``.

    String literals are left alone; a trailing method call (``x.y.map(...)``) stays a call on the
    flattened receiver; inside ``has(...)`` the last field stays a selection, as ``has`` needs.
    """
    wanted = set(roots)
    out: list[str] = []
    last = 0
    for match in _TOKEN.finditer(source):
        if match.group("chain") is None:
            continue
        text = match.group("chain")
        parts = [part.strip() for part in text.split(".")]
        if parts[0] not in wanted:
            continue
        kept: list[str] = []  # trailing names that stay selections or calls
        if _FOLLOWED_BY_CALL.match(source, match.end()) or _IN_HAS.search(source, 0, match.start()):
            kept.append(parts.pop())
        if len(parts) < 2:
            continue
        out.append(source[last : match.start()])
        out.append(".".join([SEPARATOR.join(parts), *kept]))
        last = match.end()
    out.append(source[last:])
    return "".join(out)


def activation_roots() -> frozenset[str]:
    """The variables rules see: the document as ``document`` and under its kind's name, and
    ``facts``. (``options``, ``item`` and ``index`` are small and are not flattened.)"""
    from linter.model import KINDS

    return frozenset({"document", "facts", *(kind_variable(kind) for kind in KINDS)})


def kind_variable(kind: str) -> str:
    """``Workload`` -> ``workload``, ``QuotaLedger`` -> ``quotaLedger``."""
    return kind[0].lower() + kind[1:]


def compile_rule_expression(source: str) -> object:
    """Compile a rule's CEL with member chains flattened (raises cel.CelError, also for an
    expression over the evaluation budget)."""
    from linter import cel
    from linter.policy import budget

    try:
        budget.check(source)
    except budget.BudgetError as err:
        raise cel.CelError(str(err)) from None
    return cel.compile_expression(flatten(source, activation_roots()))


MISSING = object()


def resolve(activation: dict[str, object], name: str) -> object:
    """The value a flattened name stands for, or MISSING when the path does not exist (a null
    value is a value: rules compare with ``== null``)."""
    parts = name.split(SEPARATOR)
    value: object = activation.get(parts[0], MISSING)
    for part in parts[1:]:
        if not isinstance(value, Mapping) or part not in value:
            return MISSING
        value = value[part]
    return value
