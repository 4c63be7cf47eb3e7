"""Bytes of model weights per precision.

memory.md §0 rule 1: prefer the checkpoint's published size (safetensors ``total_size``) when the
requested precision is the checkpoint's own; otherwise a format stores the tensors in its scope
(precisions.yaml) at its bits per value, group scales and zero points included, and keeps the
rest 16-bit: embeddings, lm_head, norms, biases, routers and vision towers (so ``params x bits``
under-estimates: Llama-3.1-70B W8A8 logs 67.72 GiB vs 67.67 computed this way, memory.md §4 #3),
and so are the layers a checkpoint lists as unquantised (:mod:`linter.memory.modules`).
"""

from __future__ import annotations

from linter.catalog.precisions import PrecisionSpec
from linter.memory.architecture import Architecture
from linter.memory.modules import unquantised_matrix_parameters
from linter.memory.units import matrix_bits, precision_spec

_SAME_SIZE = {"bf16": "16bit", "fp16": "16bit"}


def _ceil_bits(count: int, precision: str) -> int:
    """``count`` values at the format's bits per value, rounded up to whole bytes."""
    value = matrix_bits(precision) * count / 8
    return -(-value.numerator // value.denominator)


def _round_up(value: int, multiple: int | None) -> int:
    return -(-value // multiple) * multiple if multiple else value


def _quantised(arch: Architecture, spec: PrecisionSpec, tp: int) -> tuple[int, int]:
    """(parameters the format stores, the values it stores for them once vLLM pads them)."""
    if spec.scope == "all":
        return arch.parameters, arch.parameters
    if spec.scope == "experts" and arch.is_moe:
        intermediate = arch.moe_intermediate_size
        padded = tp * _round_up(-(-intermediate // tp), spec.pad_intermediate_to)
        hidden = _round_up(arch.hidden_size, spec.pad_hidden_to)
        stored = arch.expert_parameters * padded * hidden // (intermediate * arch.hidden_size)
        return arch.expert_parameters, stored
    quantised = arch.decoder_matrix_parameters
    if spec.name == arch.checkpoint_precision:  # the checkpoint's own format keeps its exclusions
        quantised -= unquantised_matrix_parameters(arch)
    return quantised, quantised


def weight_bytes(
    arch: Architecture | None, parameters: float | None, precision: str, tp: int = 1
) -> int:
    """Total weight bytes over ``tp`` tensor-parallel ranks (padding per rank included)."""
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
    quantised, stored = _quantised(arch, spec, tp)
    rest_bytes = 4 if spec.name == "fp32" else 2
    return _ceil_bits(stored, spec.name) + rest_bytes * (arch.parameters - quantised)


def expert_weight_bytes(arch: Architecture, precision: str, tp: int = 1) -> int:
    """Bytes of the routed experts alone (what expert parallelism shards), in ``precision``."""
    if not arch.is_moe:
        return 0
    spec = precision_spec(precision)
    stored = _quantised(arch, spec, tp)[1] if spec.scope == "experts" else arch.expert_parameters
    return _ceil_bits(stored, spec.name)


def weights_per_gpu(
    arch: Architecture | None,
    total: int,
    precision: str,
    tp: int,
    pp: int = 1,
    ep: int = 1,
) -> int:
    """One GPU's share of ``total`` weight bytes: tensor x pipeline parallel split everything;
    expert parallelism (vLLM ``--enable-expert-parallel``, over ``ep`` GPUs) shards the routed
    experts instead, and the rest is split by tensor parallelism only."""
    if ep <= 1 or arch is None or not arch.is_moe:
        return -(-total // (tp * pp))
    experts = expert_weight_bytes(arch, precision, tp)
    return -(-(total - experts) // (tp * pp)) + -(-experts // (ep * pp))
