"""Kubernetes resource quantities (``8``, ``"16"``, ``1.5``, ``500m``, ``1k``, ``2e3``), as
``resource.Quantity`` in k8s.io/apimachinery reads them: a signed decimal number, then one
suffix, binary (``Ki`` .. ``Ei``), decimal (``n``, ``u``, ``m``, ``k``, ``M``, ``G``, ``T``,
``P``, ``E``) or a decimal exponent (``e3``, ``E3``). YAML numbers are quantities too; booleans
are not.
"""

from __future__ import annotations

import math
import re
from typing import Any

from linter.load.scanning import first_placeholder
from linter.model.values import LARGEST_WHOLE, ValueProblem, out_of_range

_QUANTITY = re.compile(
    r"([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|([eE][+-]?[0-9]+))?"
)
_SCALE = {
    "": 1.0,
    "n": 1e-9,
    "u": 1e-6,
    "m": 1e-3,
    "k": 1e3,
    "M": 1e6,
    "G": 1e9,
    "T": 1e12,
    "P": 1e15,
    "E": 1e18,
    "Ki": 2.0**10,
    "Mi": 2.0**20,
    "Gi": 2.0**30,
    "Ti": 2.0**40,
    "Pi": 2.0**50,
    "Ei": 2.0**60,
}


def parse_quantity(value: Any) -> float:
    """The number a quantity stands for; raises ValueProblem saying why ``value`` is not one
    (a template placeholder such as ``{{ .Values.gpus }}`` is named as such)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueProblem(f"{value!r} is not a Kubernetes quantity")
    try:
        number = _number(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number) or abs(number) > LARGEST_WHOLE:
        raise out_of_range(f"quantity {value!r}")
    return number


def _number(value: int | float | str) -> float:
    if not isinstance(value, str):
        return float(value)
    match = _QUANTITY.fullmatch(value.strip())
    if match is None:
        if first_placeholder(value) is not None:
            raise ValueProblem(
                f"{value!r} is a template placeholder, not a quantity: lint the rendered output "
                "(helm template ... | gpulint check -)"
            )
        raise ValueProblem(f"{value!r} is not a Kubernetes quantity")
    number, suffix, exponent = match.groups()
    if exponent is not None:
        return float(number + exponent)
    return float(number) * _SCALE[suffix or ""]
