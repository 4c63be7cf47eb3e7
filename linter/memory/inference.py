"""Serving memory per GPU with vLLM's accounting, and what vLLM would print at start-up.

budget = ceil(torch-visible total x gpu_memory_utilization); from it vLLM subtracts the weights
(divided across tensor-parallel ranks), the peak of the profiling run: the larger of the
forward (see :mod:`linter.memory.engine` for what it runs on each release) and the sampler's
logits for ``max_num_seqs`` sequences, non-torch memory (cuBLAS workspaces; NCCL and custom
all-reduce buffers under tensor parallelism) and, since v0.21, the CUDA-graph pool. The rest is
the paged KV pool ("Available KV cache memory"); it must hold one ``max_model_len`` sequence or
vLLM refuses to start. vllm/v1/core/kv_cache_utils.py reports ``GPU KV cache size`` as whole
blocks of tokens and ``Maximum concurrency`` as pool / (KV of one max_model_len request).
"""

from __future__ import annotations

import math
from dataclasses import asdict, field, replace
from typing import TYPE_CHECKING, Any, Literal

from linter.catalog.engines import catalogue
from linter.catalog.gpus import GpuSpec
from linter.memory.architecture import Architecture
from linter.memory.engine import (
    Accounting,
    accounting_for,
    cuda_graph_bytes,
    non_torch_bytes,
    profiled_tokens,
    retained_all_reduce_bytes,
    scheduler_defaults,
)
from linter.memory.kv_cache import (
    BLOCK_SIZE,
    kv_bytes_per_token,
    max_tokens_within,
    pipeline_stage,
    sequence_kv_bytes,
)
from linter.memory.units import GIB, check_precision, kv_element_bytes
from linter.memory.weights import weight_bytes
from linter.memory.weights import weights_per_gpu as weights_share
from linter.records import datarecord

if TYPE_CHECKING:  # a calibration comes only from ``gpulint memory``: a check never loads it
    from linter.memory.calibration import Calibration

DEFAULT_PRECISION = "bf16"
#: Why vLLM would not start: no KV room is left after the weights, activations and overhead
#: ("weights"), or the KV pool cannot hold one ``max_model_len`` sequence ("context").
RefusalCause = Literal["weights", "context"]
#: Upper bound of the "largest max_model_len that starts" search when the model has no limit.
SEARCH_LIMIT = 1 << 24


def activation_peak_bytes(
    arch: Architecture, tokens: int, num_seqs: int, tp: int = 1, bytes_per_logit: int = 4
) -> int:
    """Peak of the profiling run beyond the weights, per GPU, 16-bit activations.

    Per token the MLP holds its gate/up output (2I/tp), the activated product (I/tp) and three
    hidden-sized buffers; fused MoE holds ``top_k x (3 I_moe / tp + h)``. Calibrated on vllm
    issue #10517 (Llama-3.1-8B, V0 profile of max_model_len tokens): peak torch grows 0.92 GiB
    from 20,000 to 29,000 tokens = 110,000 B/token; this formula gives 110,592. The sampler
    holds ``bytes_per_logit`` for each of ``num_seqs`` sequences over the full vocabulary (fp32
    logits in V0; V1's sampler warm-up keeps several copies, engines.yaml). The sampler runs
    after the forward has freed its intermediates, so the peak is the larger of the two, not
    their sum: on vLLM 0.11 (H100, 1,024 sequences, 8,192 batched tokens) the logged peak is
    the sampler's alone for Llama-3.1-8B (4.76 GiB), Qwen3-32B (5.64) and Qwen3-0.6B (5.56),
    whatever the model's forward (llm-d/llm-d-benchmark empirical-vllm-memory-results.md). A
    vision tower's peak over the largest image (:mod:`linter.memory.vision`) replaces the
    decoder's when larger.
    """
    h = arch.hidden_size
    per_token = 0
    if arch.dense_layers:
        per_token = 2 * (3 * arch.intermediate_size // tp + 3 * h)
    if arch.moe_layers:
        moe = 2 * (arch.experts_per_token * (3 * arch.moe_intermediate_size // tp + h) + 3 * h)
        per_token = max(per_token, moe)
    forward = tokens * per_token
    if arch.vision is not None:  # the encoder is profiled on its own, before the decoder
        image_tokens = catalogue().overheads.vision_profile_image_tokens
        forward = max(forward, arch.vision.profile_peak_bytes(image_tokens))
    return max(forward, num_seqs * arch.vocab_size * bytes_per_logit)


@datarecord
class Startup:
    """What vLLM would log at start-up for one replica (per GPU figures)."""

    available_kv_bytes: int
    sequence_kv_bytes: int  # the KV one max_model_len request needs, as vLLM checks it
    kv_cache_tokens: int  # "GPU KV cache size: N tokens"
    max_concurrency: float  # "Maximum concurrency for M tokens per request: X"
    starts: bool
    refusal: str | None  # the ValueError vLLM would raise
    refusal_cause: RefusalCause | None
    max_startable_model_len: int  # what --max-model-len auto would choose (0: none)


def _gib(value: int) -> str:
    return f"{value / GIB:.2f}"


def refusal_message(
    accounting: Accounting, max_model_len: int, needed: int, available: int, tokens: int, fits: int
) -> str | None:
    """vLLM's start-up error for this outcome, spelled as the release prints it; None when it
    starts (vllm/v1/core/kv_cache_utils.py ``check_enough_kv_cache_memory``; V0 worker.py)."""
    if available <= 0:
        return NO_CACHE_MEMORY
    if accounting.engine == "v0":
        if tokens >= max_model_len:
            return None
        return (
            f"The model's max seq len ({max_model_len}) is larger than the maximum number of "
            f"tokens that can be stored in KV cache ({tokens}). Try increasing "
            "`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."
        )
    if needed <= available:
        return None
    return (
        f"To serve at least one request with the model's max seq len ({max_model_len}), "
        f"({_gib(needed)} GiB KV cache is needed, which is larger than the available KV cache "
        f"memory ({_gib(available)} GiB). Based on the available memory, the estimated maximum "
        f"model length is {fits}. Try increasing `gpu_memory_utilization` or decreasing "
        "`max_model_len` when initializing the engine."
    )


def startup(
    arch: Architecture,
    accounting: Accounting,
    available: int,
    max_model_len: int,
    element_bytes: int,
    tp: int,
    in_flight_tokens: int,
) -> Startup:
    """KV tokens, concurrency and the start-up verdict for a KV pool of ``available`` bytes."""
    per_token = kv_bytes_per_token(arch, element_bytes, tp)
    needed = sequence_kv_bytes(arch, max_model_len, element_bytes, tp, in_flight_tokens=0)
    limit = arch.max_position_embeddings or SEARCH_LIMIT
    fits = max_tokens_within(arch, available, element_bytes, tp, limit=max(limit, max_model_len))
    if available <= 0:
        tokens, concurrency = 0, 0.0
    elif arch.sliding_attention_layers or arch.chunked_attention_layers or arch.state_layers:
        # Hybrid allocator: the logged size is concurrency x max_model_len, not raw capacity.
        concurrency = available / needed if needed else 0.0
        tokens = int(concurrency * max_model_len)
    else:
        tokens = available // (per_token * BLOCK_SIZE) * BLOCK_SIZE
        concurrency = tokens / max_model_len
    refusal = refusal_message(accounting, max_model_len, needed, available, tokens, fits)
    cause: RefusalCause | None = None
    if refusal is not None:
        cause = "weights" if available <= 0 else "context"
    return Startup(
        available_kv_bytes=available,
        sequence_kv_bytes=needed,
        kv_cache_tokens=tokens,
        max_concurrency=round(concurrency, 2),
        starts=refusal is None,
        refusal=refusal,
        refusal_cause=cause,
        max_startable_model_len=min(fits, limit),
    )


@datarecord
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
    overhead_bytes: int  # non-torch + CUDA graphs in the budget
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
    max_num_seqs: int = 0
    engine_version: str = ""
    accounting: str = ""
    non_torch_bytes: int = 0
    cuda_graph_bytes: int = 0
    kv_cache_tokens: int | None = None  # vLLM's "GPU KV cache size"
    sequence_kv_bytes: int | None = None  # per GPU: one max_model_len request, as vLLM checks
    max_concurrency: float | None = None  # vLLM's "Maximum concurrency" at ``context``
    starts: bool | None = None  # None when the architecture (KV) is unknown
    refusal: str | None = None  # the error vLLM would print instead of starting
    refusal_cause: RefusalCause | None = None  # "weights" or "context" when it refuses
    max_startable_model_len: int | None = None  # --max-model-len auto
    pipeline_parallel: int = 1
    kv_cache_memory_bytes: int | None = None  # --kv-cache-memory-bytes, when given
    # what PyTorch can allocate on one GPU, as the estimate took it (a calibration's measured
    # total, else the catalogue's): the memory gpu_memory_utilization multiplies
    usable_bytes: int = 0
    assumed: tuple[str, ...] = field(default_factory=tuple)

    @property
    def kv_known(self) -> bool:
        return self.kv_cache_bytes is not None

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["assumed"] = list(self.assumed)
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


def resolve_precision(arch: Architecture | None, precision: str | None) -> tuple[str, list[str]]:
    """The weight precision to size: the one asked for, else the checkpoint's own."""
    if precision is not None:
        return check_precision(precision), []
    if arch is not None and arch.checkpoint_precision == "fp32":
        served = f"weights {DEFAULT_PRECISION} (vLLM's --dtype auto serves float32 in 16-bit)"
        return DEFAULT_PRECISION, [served]
    if arch is not None and arch.checkpoint_precision is not None:
        return arch.checkpoint_precision, []
    return DEFAULT_PRECISION, [f"weights {DEFAULT_PRECISION} (the checkpoint's precision unknown)"]


NO_CACHE_MEMORY = (
    "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
    "initializing the engine."
)


def _out_of_memory(what: str, needed: int, usable: int) -> str:
    """The failure when memory runs out before the KV check: loading weights larger than the
    GPU, or allocating an explicit ``--kv-cache-memory-bytes`` pool beside everything else."""
    return (
        f"torch.OutOfMemoryError: CUDA out of memory ({what} need {_gib(needed)} GiB of the "
        f"GPU's {_gib(usable)} GiB)"
    )


def _weights_verdict(
    launch: Startup | None, needed: int, usable: int, loaded: int, available: int
) -> Startup | None:
    """The start-up verdict once the weights are considered: weights and runtime that do not
    load (``loaded`` > ``usable``), or that leave no KV room when the architecture (and so the
    KV check) is unknown. ``needed`` is everything but the KV pool."""
    refusal = None
    if loaded > usable:
        refusal = _out_of_memory("the weights and runtime", loaded, usable)
    elif launch is None and needed > available:
        refusal = NO_CACHE_MEMORY
    if refusal is None:
        return launch
    return Startup(
        available_kv_bytes=available - needed,
        sequence_kv_bytes=launch.sequence_kv_bytes if launch else 0,
        kv_cache_tokens=0,
        max_concurrency=0.0,
        starts=False,
        refusal=refusal,
        refusal_cause="weights",
        max_startable_model_len=0,
    )


def estimate_inference(
    arch: Architecture | None,
    *,
    parameters: float | None,
    precision: str | None,
    kv_precision: str | None,
    batch: int,
    context: int,
    gpu: GpuSpec,
    gpus: int,
    gpu_memory_utilization: float | None = None,
    max_num_batched_tokens: int | None = None,
    max_num_seqs: int | None = None,
    enforce_eager: bool = False,
    engine_version: str | None = None,
    calibration: Calibration | None = None,
    pipeline_parallel: int = 1,
    kv_cache_memory_bytes: int | None = None,
    engine: str | None = None,
    expert_parallel: int = 1,
) -> InferenceEstimate:
    """Does serving ``batch`` sequences of ``context`` tokens (``--max-model-len``) fit one
    replica of ``gpus`` tensor-parallel GPUs x ``pipeline_parallel`` stages, and would vLLM
    start? Figures are for one GPU of the first stage (it holds the most layers). With
    ``kv_cache_memory_bytes`` the KV pool is that size and ``gpu_memory_utilization`` is not
    used (vLLM ``--kv-cache-memory-bytes``). ``engine`` (``v0``/``v1``) says which engine a
    release that shipped both ran. Without an architecture, KV, activations and the
    start-up verdict are unknown (None)."""
    weight_precision, assumed = resolve_precision(arch, precision)
    if batch < 1 or context < 1 or gpus < 1 or pipeline_parallel < 1 or expert_parallel < 1:
        raise ValueError("batch, context, gpus, pipeline stages and expert ranks must be >= 1")
    accounting = accounting_for(engine_version, engine)
    if engine_version is None:
        assumed.append(f"vLLM {accounting.version} (serving.engineVersion unset)")
    utilization = gpu_memory_utilization or accounting.release.default_gpu_memory_utilization
    if not 0 < utilization <= 1:
        raise ValueError("gpu_memory_utilization must be in (0, 1]")
    default_tokens, default_seqs = scheduler_defaults(gpu, accounting)
    tokens = max_num_batched_tokens or default_tokens
    seqs = max_num_seqs or default_seqs
    element = kv_element_bytes(kv_precision, weight_precision)
    weights = weight_bytes(arch, parameters, weight_precision, gpus)
    weights_per_gpu = weights_share(
        arch, weights, weight_precision, gpus, pipeline_parallel, expert_parallel
    )
    non_torch = non_torch_bytes(gpus * pipeline_parallel)
    graphs = cuda_graph_bytes(accounting, enforce_eager)
    if calibration is not None:
        non_torch += calibration.non_kv_delta_bytes(gpu.name, accounting.version)
    overhead = non_torch + graphs
    usable = gpu.usable_bytes
    if calibration is not None:
        usable = calibration.usable_bytes(gpu.name, accounting.version) or usable
    available = usable if kv_cache_memory_bytes else math.ceil(usable * utilization)
    kv_total = kv_gpu = per_token = per_token_window = activation = pool = None
    max_batch = max_context = None
    one_sequence = None
    launch: Startup | None = None
    if arch is not None:
        stage = pipeline_stage(arch, pipeline_parallel)
        profile = profiled_tokens(accounting, context, tokens)
        logit = accounting.release.sampler_bytes_per_logit
        activation = activation_peak_bytes(stage, profile, seqs, gpus, logit)
        activation += retained_all_reduce_bytes(
            accounting, stage.num_hidden_layers, stage.hidden_size, profile, gpus
        )
        pool = kv_cache_memory_bytes or available - weights_per_gpu - activation - overhead
        seq = sequence_kv_bytes(stage, context, element, gpus, in_flight_tokens=tokens)
        kv_gpu = batch * seq
        kv_total = kv_gpu * gpus * pipeline_parallel
        per_token = kv_bytes_per_token(arch, element, gpus) * gpus
        per_token_window = kv_bytes_per_token(arch, element, gpus, full_layers_only=True) * gpus
        one_sequence = seq <= pool
        max_batch = max(0, pool // seq) if seq else 0
        limit = arch.max_position_embeddings or SEARCH_LIMIT
        max_context = max_tokens_within(
            stage, pool, element, gpus, batch=batch, in_flight_tokens=tokens, limit=limit
        )
        launch = startup(stage, accounting, pool, context, element, gpus, tokens)
        rest = weights_per_gpu + activation + overhead
        if kv_cache_memory_bytes and rest + pool > usable:
            what = "--kv-cache-memory-bytes, weights, activations and runtime"
            launch = replace(
                launch,
                starts=False,
                refusal=_out_of_memory(what, rest + pool, usable),
                refusal_cause="weights",
            )
    launch = _weights_verdict(
        launch,
        weights_per_gpu + overhead + (activation or 0),
        usable,
        weights_per_gpu + non_torch,
        available,
    )
    required = weights_per_gpu + overhead + (activation or 0) + (kv_gpu or 0)
    model_max = arch.max_position_embeddings if arch else None
    return InferenceEstimate(
        parameters=arch.parameters if arch else round(parameters or 0),
        precision=weight_precision,
        kv_precision=kv_precision or ("fp32" if element == 4 else "bf16"),
        gpu=gpu.name,
        gpus=gpus,
        batch=batch,
        context=context,
        gpu_memory_utilization=utilization,
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
        max_num_seqs=seqs,
        engine_version=accounting.version,
        accounting=accounting.describe(),
        non_torch_bytes=non_torch,
        cuda_graph_bytes=graphs,
        kv_cache_tokens=launch.kv_cache_tokens if launch else None,
        sequence_kv_bytes=launch.sequence_kv_bytes if launch and arch else None,
        max_concurrency=launch.max_concurrency if launch else None,
        starts=launch.starts if launch else None,
        refusal=launch.refusal if launch else None,
        refusal_cause=launch.refusal_cause if launch else None,
        max_startable_model_len=launch.max_startable_model_len if launch else None,
        pipeline_parallel=pipeline_parallel,
        kv_cache_memory_bytes=kv_cache_memory_bytes,
        usable_bytes=usable,
        assumed=tuple(assumed),
    )
