"""Bytes of model weights per precision.

memory.md §0 rule 1: prefer the checkpoint's published size (safetensors ``total_size``) when the
requested precision is the checkpoint's own; otherwise quantised formats store only the decoder
weight matrices in low precision and keep embeddings, lm_head, norms, biases and routers 16-bit
(so ``params x bits`` under-estimates: Llama-3.1-70B W8A8 logs 67.72 GiB vs 67.67 computed this
way, memory.md §4 #3). MXFP4 (gpt-oss) quantises only the MoE experts.
"""

from __future__ import annotations

from linter.memory.architecture import Architecture
from linter.memory.units import MATRIX_BITS, check_precision

_SAME_SIZE = {"bf16": "16bit", "fp16": "16bit"}


def _ceil_bits(count: int, precision: str) -> int:
    """``count`` values at the format's bits per value, rounded up to whole bytes."""
    value = MATRIX_BITS[precision] * count / 8
    return -(-value.numerator // value.denominator)


def weight_bytes(arch: Architecture | None, parameters: float | None, precision: str) -> int:
    """Total weight bytes (all tensor-parallel ranks together)."""
    precision = check_precision(precision)
    if arch is None:
        if parameters is None or parameters <= 0:
            raise ValueError("need an architecture or a positive parameter count")
        return _ceil_bits(round(parameters), precision)
    dtype = arch.checkpoint_dtype
    if (
        arch.checkpoint_bytes
        and dtype
        and _SAME_SIZE.get(dtype, dtype) == _SAME_SIZE.get(precision, precision)
    ):
        return arch.checkpoint_bytes
    if precision == "fp32":
        return 4 * arch.parameters
    quantised = (
        arch.expert_parameters
        if precision == "mxfp4" and arch.is_moe
        else (arch.decoder_matrix_parameters)
    )
    return _ceil_bits(quantised, precision) + 2 * (arch.parameters - quantised)
