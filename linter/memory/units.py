"""Byte units and per-precision sizes.

Sources (memory.md §1.1): EleutherAI "Transformer Math 101" (fp32 4 B, 16-bit 2 B, int8 1 B);
GPTQ/AWQ int4 with group size 128 stores a fp16 scale and a packed 4-bit zero per group
(4 + 20/128 bits); bitsandbytes NF4 with double quantisation is 4 + 8/64 + 32/(64*256) bits
(QLoRA paper, arXiv 2305.14314); MXFP4 (gpt-oss) is 4 bits + one 8-bit scale per 32 values.
"""

from __future__ import annotations

from fractions import Fraction

MIB = 1 << 20
GIB = 1 << 30

#: Bits per parameter for the decoder weight matrices a format quantises. Everything else
#: (embeddings, lm_head, norms, biases, routers) stays 16-bit, except in fp32 where all is fp32.
MATRIX_BITS: dict[str, Fraction] = {
    "fp32": Fraction(32),
    "bf16": Fraction(16),
    "fp16": Fraction(16),
    "fp8": Fraction(8),
    "int8": Fraction(8),
    "int4": Fraction(4) + Fraction(20, 128),
    "nf4": Fraction(4) + Fraction(8, 64) + Fraction(32, 64 * 256),
    "mxfp4": Fraction(4) + Fraction(8, 32),
}

#: Bytes per element of the KV cache.
KV_BYTES: dict[str, int] = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1, "int8": 1}


def check_precision(precision: str) -> str:
    """Return ``precision`` lower-cased or raise ValueError naming the accepted values."""
    value = precision.lower()
    if value not in MATRIX_BITS:
        raise ValueError(f"unknown precision {precision!r}; expected one of {sorted(MATRIX_BITS)}")
    return value


def kv_element_bytes(kv_precision: str | None, precision: str) -> int:
    """KV bytes per element; by default the activation dtype (fp32 stays fp32, else 16-bit)."""
    if kv_precision is None:
        return 4 if precision == "fp32" else 2
    try:
        return KV_BYTES[kv_precision.lower()]
    except KeyError:
        raise ValueError(
            f"unknown kv precision {kv_precision!r}; expected one of {sorted(KV_BYTES)}"
        ) from None
