"""Serving memory per GPU with vLLM's accounting (memory.md §1.3, vllm 0.33 gpu_worker.py).

budget = ceil(torch-visible total x gpu_memory_utilization); from it vLLM subtracts the weights
(divided across tensor-parallel ranks), the activation peak of one profiling forward of
``max_num_batched_tokens`` tokens plus the sampler's fp32 logits for ``max_num_seqs`` sequences,
non-torch memory (NCCL, cuBLAS workspaces) and the CUDA-graph pool; the rest is the paged KV pool,
which must hold at least one ``max_model_len`` sequence or vLLM refuses to start.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from linter.memory.architecture import Architecture
from linter.memory.gpus import GpuSpec
from linter.memory.kv_cache import kv_bytes_per_token, max_tokens_within, sequence_kv_bytes
from linter.memory.units import GIB, check_precision, kv_element_bytes
from linter.memory.weights import weight_bytes

#: Non-torch memory per GPU: 0.02-0.43 GiB on one GPU, up to 0.65 GiB with NCCL in vLLM logs
#: (memory.md §1.5, §4); the upper end is used.
NON_TORCH_BYTES = int(0.43 * GIB)
NON_TORCH_BYTES_TP = int(0.65 * GIB)
#: CUDA-graph pool reserved up front since vLLM v0.21: 0.11-1.10 GiB seen (memory.md §4);
#: a mid value is used.
CUDA_GRAPH_BYTES = int(0.5 * GIB)
#: vLLM API-server scheduler defaults (vllm/engine/arg_utils.py, memory.md §1.3):
#: (max_num_batched_tokens, max_num_seqs) for GPUs < 70 GiB or A100, H100/H200-class, >= 160 GiB.
SCHEDULER_DEFAULTS = ((2048, 256), (8192, 1024), (16384, 1024))


def scheduler_defaults(gpu: GpuSpec) -> tuple[int, int]:
    """vLLM's default (max_num_batched_tokens, max_num_seqs) for a GPU class."""
    gib = gpu.usable_bytes / GIB
    if gib >= 160:
        return SCHEDULER_DEFAULTS[2]
    if gib < 70 or gpu.name.startswith("A100"):
        return SCHEDULER_DEFAULTS[0]
    return SCHEDULER_DEFAULTS[1]


def activation_peak_bytes(arch: Architecture, tokens: int, num_seqs: int, tp: int = 1) -> int:
    """Profiling-forward peak beyond the weights, per GPU, 16-bit activations.

    Per token the MLP holds its gate/up output (2I/tp), the activated product (I/tp) and three
    hidden-sized buffers; fused MoE holds ``top_k x (3 I_moe / tp + h)``. Calibrated on vllm
    issue #10517 (Llama-3.1-8B, V0 profile of max_model_len tokens): peak torch grows 0.92 GiB
    from 20,000 to 29,000 tokens = 110,000 B/token; this formula gives 110,592. The sampler adds
    fp32 logits for ``num_seqs`` sequences over the full vocabulary.
    """
    h = arch.hidden_size
    per_token = 0
    if arch.dense_layers:
        per_token = 2 * (3 * arch.intermediate_size // tp + 3 * h)
    if arch.moe_layers:
        moe = 2 * (arch.experts_per_token * (3 * arch.moe_intermediate_size // tp + h) + 3 * h)
        per_token = max(per_token, moe)
    return tokens * per_token + num_seqs * arch.vocab_size * 4


@dataclass(frozen=True)
class InferenceEstimate:
    """Byte figures are per GPU unless the field's comment says all GPUs together."""

    parameters: int
    precision: str
    kv_precision: str
    gpu: str
    gpus: int
    batch: int
    context: int
    gpu_memory_utilization: float
    max_num_batched_tokens: int
    weights_bytes: int  # all GPUs together
    weights_bytes_per_gpu: int
    kv_cache_bytes: int | None  # declared batch x context, all GPUs together
    kv_cache_bytes_per_gpu: int | None
    kv_cache_bytes_per_token: int | None  # all layers, all GPUs together
    kv_cache_bytes_per_token_beyond_window: int | None
    activation_bytes: int | None
    overhead_bytes: int
    required_bytes: int  # per GPU
    available_bytes: int  # per GPU: usable total x utilization
    kv_pool_bytes: int | None  # per GPU: what vLLM would give the KV cache
    fits: bool
    headroom_fraction: float
    fits_one_full_sequence: bool | None
    max_batch_at_context: int | None
    max_context_at_batch: int | None
    model_max_context: int | None
    context_exceeds_model_max: bool

    @property
    def kv_known(self) -> bool:
        return self.kv_cache_bytes is not None

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["kv_known"] = self.kv_known
        data["per_gpu"] = {
            "weights_bytes": self.weights_bytes_per_gpu,
            "kv_cache_bytes": self.kv_cache_bytes_per_gpu,
            "activation_bytes": self.activation_bytes,
            "overhead_bytes": self.overhead_bytes,
            "required_bytes": self.required_bytes,
            "available_bytes": self.available_bytes,
        }
        return data


def estimate_inference(
    arch: Architecture | None,
    *,
    parameters: float | None,
    precision: str,
    kv_precision: str | None,
    batch: int,
    context: int,
    gpu: GpuSpec,
    gpus: int,
    gpu_memory_utilization: float = 0.9,
    max_num_batched_tokens: int | None = None,
    max_num_seqs: int | None = None,
) -> InferenceEstimate:
    """Does serving ``batch`` sequences of ``context`` tokens fit one tensor-parallel replica of
    ``gpus`` GPUs? Without an architecture, KV and activations are reported unknown (None)."""
    precision = check_precision(precision)
    if batch < 1 or context < 1 or gpus < 1:
        raise ValueError("batch, context and gpus must be >= 1")
    if not 0 < gpu_memory_utilization <= 1:
        raise ValueError("gpu_memory_utilization must be in (0, 1]")
    default_tokens, default_seqs = scheduler_defaults(gpu)
    tokens = max_num_batched_tokens or default_tokens
    seqs = max_num_seqs or default_seqs
    element = kv_element_bytes(kv_precision, precision)
    weights = weight_bytes(arch, parameters, precision)
    weights_per_gpu = -(-weights // gpus)
    overhead = (NON_TORCH_BYTES_TP if gpus > 1 else NON_TORCH_BYTES) + CUDA_GRAPH_BYTES
    available = math.ceil(gpu.usable_bytes * gpu_memory_utilization)
    kv_total = kv_gpu = per_token = per_token_window = activation = pool = None
    max_batch = max_context = None
    one_sequence = None
    if arch is not None:
        activation = activation_peak_bytes(arch, tokens, seqs, gpus)
        pool = available - weights_per_gpu - activation - overhead
        seq = sequence_kv_bytes(arch, context, element, gpus, in_flight_tokens=tokens)
        kv_gpu = batch * seq
        kv_total = kv_gpu * gpus
        per_token = kv_bytes_per_token(arch, element, gpus) * gpus
        per_token_window = kv_bytes_per_token(arch, element, gpus, full_layers_only=True) * gpus
        one_sequence = seq <= pool
        max_batch = max(0, pool // seq) if seq else 0
        limit = arch.max_position_embeddings or 1 << 24
        max_context = max_tokens_within(
            arch, pool, element, gpus, batch=batch, in_flight_tokens=tokens, limit=limit
        )
    required = weights_per_gpu + overhead + (activation or 0) + (kv_gpu or 0)
    model_max = arch.max_position_embeddings if arch else None
    return InferenceEstimate(
        parameters=arch.parameters if arch else round(parameters or 0),
        precision=precision,
        kv_precision=kv_precision or ("fp32" if element == 4 else "bf16"),
        gpu=gpu.name,
        gpus=gpus,
        batch=batch,
        context=context,
        gpu_memory_utilization=gpu_memory_utilization,
        max_num_batched_tokens=tokens,
        weights_bytes=weights,
        weights_bytes_per_gpu=weights_per_gpu,
        kv_cache_bytes=kv_total,
        kv_cache_bytes_per_gpu=kv_gpu,
        kv_cache_bytes_per_token=per_token,
        kv_cache_bytes_per_token_beyond_window=per_token_window,
        activation_bytes=activation,
        overhead_bytes=overhead,
        required_bytes=required,
        available_bytes=available,
        kv_pool_bytes=pool,
        fits=required <= available,
        headroom_fraction=(available - required) / available,
        fits_one_full_sequence=one_sequence,
        max_batch_at_context=max_batch,
        max_context_at_batch=max_context,
        model_max_context=model_max,
        context_exceeds_model_max=model_max is not None and context > model_max,
    )
