"""Bytes of model weights per precision.

memory.md §0 rule 1: prefer the checkpoint's published size (safetensors ``total_size``) when the
requested precision is the checkpoint's own; otherwise a format stores the tensors in its scope
(precisions.yaml) at its bits per value, group scales and zero points included, and keeps the
rest 16-bit: embeddings, lm_head, norms, biases, routers and vision towers (so ``params x bits``
under-estimates: Llama-3.1-70B W8A8 logs 67.72 GiB vs 67.67 computed this way, memory.md §4 #3).
"""

from __future__ import annotations

from linter.memory.architecture import Architecture
from linter.memory.units import matrix_bits, precision_spec

_SAME_SIZE = {"bf16": "16bit", "fp16": "16bit"}


def _ceil_bits(count: int, precision: str) -> int:
    """``count`` values at the format's bits per value, rounded up to whole bytes."""
    value = matrix_bits(precision) * count / 8
    return -(-value.numerator // value.denominator)


def _quantised(arch: Architecture, scope: str) -> int:
    if scope == "all":
        return arch.parameters
    if scope == "experts" and arch.is_moe:
        return arch.expert_parameters
    return arch.decoder_matrix_parameters


def weight_bytes(arch: Architecture | None, parameters: float | None, precision: str) -> int:
    """Total weight bytes (all tensor-parallel ranks together)."""
    spec = precision_spec(precision)
    if arch is None:
        if parameters is None or parameters <= 0:
            raise ValueError("need an architecture or a positive parameter count")
        return _ceil_bits(round(parameters), spec.name)
    dtype = arch.checkpoint_precision
    if (
        arch.checkpoint_bytes
        and dtype
        and _SAME_SIZE.get(dtype, dtype) == _SAME_SIZE.get(spec.name, spec.name)
    ):
        return arch.checkpoint_bytes
    quantised = _quantised(arch, spec.scope)
    rest_bytes = 4 if spec.name == "fp32" else 2
    return _ceil_bits(quantised, spec.name) + rest_bytes * (arch.parameters - quantised)
