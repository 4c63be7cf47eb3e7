"""Storage sizes Kubernetes objects write as resource quantities (``50Gi``, ``100G``), in GiB:
a PersistentVolumeClaim's ``requests.storage``, an emptyDir's ``sizeLimit``, production-stack's
``pvcStorage``."""

from __future__ import annotations

from typing import Any

from linter.formats.kubernetes.placeholders import unrendered
from linter.formats.kubernetes.pods import Report
from linter.formats.kubernetes.quantity import parse_quantity
from linter.formats.kubernetes.scheduling import StatedValue
from linter.load.positions import Path
from linter.model.provenance import Origin
from linter.model.values import ValueProblem

_GIB = 1024**3


def size_gib(value: Any, path: Path, what: str, report: Report) -> StatedValue | None:
    """The size at ``path`` in GiB; a placeholder or a value that is no quantity is reported
    (the template note, or GL001) and None, as is a size of 0 (no room at all is no limit
    Kubernetes accepts for a volume that holds files)."""
    if isinstance(value, str):
        placeholder = unrendered(what, value)
        if placeholder is not None:
            report(Origin(path), placeholder)
            return None
    try:
        amount = parse_quantity(value)
    except ValueProblem as err:
        report(Origin(path), f"{what}: {err}")
        return None
    if amount <= 0:
        report(Origin(path), f"{what} {value!r} is no room at all")
        return None
    return StatedValue.at(amount / _GIB, path, what)
