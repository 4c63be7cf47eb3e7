"""Byte units and the bits each precision stores per value (from the precision catalogue)."""

from __future__ import annotations

from fractions import Fraction

from linter.catalog.precisions import (
    PrecisionSpec,
    find_precision,
    kv_precision_names,
    precision_names,
)

MIB = 1 << 20
GIB = 1 << 30


def precision_spec(precision: str) -> PrecisionSpec:
    """The catalogued format of ``precision`` (a name or alias) or ValueError naming the values."""
    spec = find_precision(precision)
    if spec is None:
        raise ValueError(
            f"unknown precision {precision!r}; expected one of {', '.join(precision_names())}"
        )
    return spec


def check_precision(precision: str) -> str:
    """The canonical name of ``precision`` or ValueError naming the accepted values."""
    return precision_spec(precision).name


def matrix_bits(precision: str) -> Fraction:
    """Bits per value of the tensors the format quantises, scales and zero points included."""
    return precision_spec(precision).bits_per_value


def kv_element_bytes(kv_precision: str | None, precision: str) -> int:
    """KV bytes per element; by default the activation dtype (fp32 stays fp32, else 16-bit)."""
    if kv_precision is None:
        return 4 if check_precision(precision) == "fp32" else 2
    spec = find_precision(kv_precision)
    if spec is None or spec.kv_bytes is None:
        raise ValueError(
            f"unknown kv precision {kv_precision!r}; expected one of "
            + ", ".join(kv_precision_names())
        )
    return spec.kv_bytes
