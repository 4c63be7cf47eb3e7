"""The names rule expressions read once their member chains are flattened (linter/policy/
flatten.py): ``workload__spec__resources__capacity`` is ``workload.spec.resources.capacity``,
resolved against a target's activation. Needed on every run; the rewriting itself only when a
rule file is checked.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

SEPARATOR = "__"


@functools.cache  # asked for every expression the rules compile
def activation_roots() -> frozenset[str]:
    """The variables rules see: the document as ``document`` and under its kind's name, and
    ``facts``. (``options``, ``item`` and ``index`` are small and are not flattened.)"""
    from linter.model import KINDS

    return frozenset({"document", "facts", *(kind_variable(kind) for kind in KINDS)})


def kind_variable(kind: str) -> str:
    """``Workload`` -> ``workload``, ``QuotaLedger`` -> ``quotaLedger``."""
    return kind[0].lower() + kind[1:]


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
