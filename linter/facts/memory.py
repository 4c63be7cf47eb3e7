"""The ``memory`` fact: would the engine start on the declared GPUs, and how much it holds.

Sized by :mod:`linter.facts.memory_sizing` with vLLM's start-up accounting: weights, the
activation peak of the profiling forward and runtime overhead come out of
``gpuMemoryUtilization`` of each GPU; the rest is the KV pool, which must hold one
``maxContextTokens`` sequence or vLLM refuses to start. More concurrent sequences queue, so
``maxBatchSize`` (``--max-num-seqs``) beyond what the pool holds at full context is a warning
only when it was declared. The fact gives numbers and flags (the context and whether it was
defaulted, what was assumed); rules GL101-GL104 word them. The options that would fit are one
text (``suggestions.text``), a list CEL cannot join.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal

from linter.declared import camel_case
from linter.facts import estimates
from linter.facts.base import Fact, described, percent
from linter.facts.memory_sizing import ModelSource, Sizing, Status, size
from linter.facts.placement import Placement
from linter.facts.subject import Subject
from linter.load.positions import Path
from linter.model import Workload

__all__ = ["InferenceMemory", "MemoryFact", "compute", "compute_as"]

GIB = 1024**3
SMALLER_GPU_HEADROOM = 0.10
# Weight precisions worth suggesting below each declared one, largest first.
LOWER_PRECISIONS = {
    "fp32": ("bf16", "fp8", "int4"),
    "bf16": ("fp8", "int4"),
    "fp16": ("fp8", "int4"),
    "fp8": ("int4",),
    "fp8-block": ("int4",),
    "int8": ("int4",),
}
RefusalCause = Literal["weights", "context"]
UtilizationOrigin = Literal["stated", "engine-default", "release-default"]
_CONTEXT: Path = ("spec", "serving", "maxContextTokens")
_UTILIZATION: Path = ("spec", "serving", "gpuMemoryUtilization")


class MemoryRecord(Fact):
    """A part of the memory fact (keys such as ``requiredGiB``)."""

    @staticmethod
    def key_of(name: str) -> str:
        """camelCase, the unit spelt as messages write it: ``weights_gib`` -> ``weightsGiB``."""
        return camel_case(name).replace("Gib", "GiB")


class Suggestions(MemoryRecord):
    """What would hold the weights."""

    gpus_needed: int | None = described("GPUs (tensor parallel) that hold the weights.")
    larger_gpu: str | None = described("Smallest catalogued GPU that holds them.")
    lower_precision: str | None = described("Highest lower precision that fits.")
    lower_precision_weights_gib: float | None
    text: str = described("The options, as a message ends with them.")


class InferenceMemory(MemoryRecord):
    """Serving memory per GPU, as vLLM accounts it at start-up."""

    engine: str = described("The engine whose accounting was applied (vllm).")
    engine_version: str = described("The release whose accounting was applied.")
    accounting: str = described("The accounting used, in words.")
    tensor_parallel: int = described("GPUs one pipeline stage is sharded over.")
    pipeline_parallel: int = described("Pipeline stages of one replica.")
    weights_gib: float | None = described("Weights per GPU.")
    activation_gib: float | None = described("Activation peak of the profiling run.")
    overhead_gib: float = described("Non-torch memory and CUDA graphs per GPU.")
    activations_and_runtime_gib: float = described(
        "The activation peak and the overhead together: what the KV pool loses per "
        "GPU besides the weights."
    )
    kv_pool_gib: float | None = described(
        "What is left for the KV cache per GPU (vLLM's 'Available KV cache memory')."
    )
    sequence_kv_gib: float | None = described("KV cache of one full-length sequence.")
    kv_cache_gib: float | None = described("KV cache per GPU at batch x context.")
    weights_fit: bool = described("Weights, activations and runtime leave room for a KV cache.")
    kv_known: bool = described("The architecture is known, so the KV cache is sized.")
    batch: int = described("Concurrent sequences sized (maxBatchSize, else 1).")
    batch_declared: bool = described(
        "maxBatchSize (--max-num-seqs) was declared; the engine's default is not."
    )
    max_num_seqs: int = described("--max-num-seqs in effect (declared or the default).")
    context: int = described("Tokens per sequence sized (maxContextTokens).")
    context_defaulted: bool = described(
        "The file does not set maxContextTokens: the model's maximum context, the "
        "engine's default, is sized."
    )
    gpu_memory_utilization: float = described("Share of each GPU the engine may use.")
    utilization_origin: UtilizationOrigin = described(
        "Where gpuMemoryUtilization comes from: stated in the file; engine-default, "
        "the engine's own default the adapter filled in (TGI --cuda-memory-fraction 1.0); "
        "release-default, unset, so the vLLM release's default is sized."
    )
    kv_cache_tokens: int | None = described("vLLM's 'GPU KV cache size: N tokens'.")
    max_concurrency: float | None = described(
        "vLLM's 'Maximum concurrency for <context> tokens per request'."
    )
    starts: bool | None = described("vLLM would start; None when it cannot be told.")
    refusal: str | None = described("The error vLLM would print instead of starting.")
    refusal_cause: RefusalCause | None = described(
        "weights: no KV room at all; context: one full-length sequence does not fit."
    )
    max_startable_model_len: int | None = described(
        "Largest max_model_len that starts (what --max-model-len auto chooses)."
    )
    fits_one_full_sequence: bool | None = described("One max-length sequence fits.")
    batch_fits: bool | None = described("maxBatchSize sequences fit at full context.")
    max_batch_at_context: int | None = described("Most sequences at this context.")
    max_context_at_batch: int | None = described("Longest context at this batch.")
    model_max_context: int | None = described("The model's max_position_embeddings.")
    context_exceeds_model_max: bool
    suggestions: Suggestions | None = described("Set when the weights do not fit.")


class TrainingMemory(MemoryRecord):
    method: str = described("full, lora or qlora.")
    micro_batch: int
    sequence_length: int
    sharding: str
    world_size: int = described("GPUs the job is sharded over.")
    full_gib: float | None = described("Per GPU for full fine-tuning.")
    lora_gib: float | None
    qlora_gib: float | None
    peft_halves_memory: bool = described("LoRA needs at most half of full fine-tuning.")
    trainable_parameters: int = described("Parameters the optimizer updates.")
    peak_phase: str = described(
        "The moment of the step that holds the most (loss backward, optimizer step, ...)."
    )
    terms_gib: dict[str, float] = described(
        "What that moment holds per GPU, by term (weights, gradients, "
        "optimizer_states, adapter_activations, loss_fp32, cuda_context, ...)."
    )
    fragmentation_gib: float = described("Allocator slack kept out of the usable memory per GPU.")


class MemoryFact(MemoryRecord):
    status: Status = described("checked, or why memory was not sized.")
    reason: str | None = described("Why not, when status is not checked.")
    mode: Literal["inference", "training"] | None
    model_source: ModelSource | None
    assumed: list[str] = described("Defaults the estimate had to assume.")
    parameters: int | None = described("Exact parameter count (every expert).")
    precision: str | None
    gpu: str | None
    gpus: int | None = described("GPUs of one replica (TP x PP, or training world size).")
    required_gib: float | None = described("Needed per GPU.")
    available_gib: float | None = described("Usable per GPU (x gpuMemoryUtilization).")
    total_gib: float | None = described(
        "Memory of one GPU as PyTorch sees it (torch.cuda.mem_get_info's total, the "
        "memory gpuMemoryUtilization multiplies; below the nvidia-smi total)."
    )
    fits: bool | None
    used_percent: float | None = described("Required as a percentage of totalGiB.")
    headroom_percent: float | None = described(
        "Memory left, in percent: serving with a known KV cache, of the KV pool once "
        "the sized batch is held at full context (what an estimate error would eat first: vLLM "
        "allocates the pool up front, so nothing grows later); otherwise of the usable memory."
    )
    smaller_gpu: str | None = described("A smaller catalogued GPU that holds it.")
    inference: InferenceMemory | None
    training: TrainingMemory | None

    @classmethod
    def unchecked(cls, status: Status, reason: str | None, parameters: int | None) -> MemoryFact:
        """Memory not sized; ``parameters`` is the declared count, when there is one."""
        return cls(
            status=status,
            reason=reason,
            mode=None,
            model_source=None,
            assumed=[],
            parameters=parameters,
            precision=None,
            gpu=None,
            gpus=None,
            required_gib=None,
            available_gib=None,
            total_gib=None,
            fits=None,
            used_percent=None,
            headroom_percent=None,
            smaller_gpu=None,
            inference=None,
            training=None,
        )


def _gib(value: int | None) -> float | None:
    return None if value is None else round(value / GIB, 2)


def compute(subject: Subject) -> MemoryFact:
    sizing = size(subject.manifest, subject.calibration)
    if sizing.status != "checked":
        declared = subject.workload.spec.model.parameters
        return MemoryFact.unchecked(
            sizing.status, sizing.reason, None if declared is None else round(declared)
        )
    estimate, where = sizing.estimate, sizing.where
    assert where is not None and where.gpu is not None
    inference = sizing.mode == "inference"
    return MemoryFact(
        status="checked",
        reason=None,
        mode=sizing.mode,
        model_source=sizing.source,
        assumed=list(sizing.assumed),
        parameters=estimate.parameters,
        precision=estimate.precision,
        gpu=where.gpu.name,
        gpus=estimate.gpus * estimate.pipeline_parallel if inference else estimate.world_size,
        required_gib=_gib(estimate.required_bytes),
        available_gib=_gib(estimate.available_bytes),
        total_gib=_gib(where.gpu.usable_bytes),
        fits=estimate.fits,
        used_percent=percent(estimate.required_bytes / where.gpu.usable_bytes),
        headroom_percent=percent(_headroom(estimate, inference)),
        smaller_gpu=_smaller_gpu(estimate.required_bytes, where),
        inference=_inference_fact(sizing, subject) if inference else None,
        training=None if inference else _training_fact(estimate),
    )


def compute_as(subject: Subject, workload: Workload) -> MemoryFact:
    """The memory fact of ``subject`` had it declared ``workload`` (another placement of it)."""
    if workload is subject.workload:
        return compute(subject)
    data = workload.model_dump(mode="json", by_alias=True, exclude_none=True)
    manifest = dataclasses.replace(subject.manifest, model=workload, data=data)
    return compute(Subject(manifest, subject.default_residency, subject.calibration))


def _headroom(estimate: Any, inference: bool) -> float:
    pool = estimate.kv_pool_bytes if inference else None
    if pool is None or estimate.kv_cache_bytes_per_gpu is None:
        return float(estimate.headroom_fraction)
    if pool <= 0:
        return -1.0
    return float((pool - estimate.kv_cache_bytes_per_gpu) / pool)


def _inference_fact(sizing: Sizing, subject: Subject) -> InferenceMemory:
    estimate = sizing.estimate
    serving = subject.workload.spec.serving
    cause = estimate.refusal_cause
    batch_fits = None
    if estimate.max_batch_at_context is not None:
        batch_fits = estimate.batch <= estimate.max_batch_at_context
    return InferenceMemory(
        engine=(serving.engine or "vllm").lower(),
        engine_version=estimate.engine_version,
        accounting=estimate.accounting,
        tensor_parallel=estimate.gpus,
        pipeline_parallel=estimate.pipeline_parallel,
        weights_gib=_gib(estimate.weights_bytes_per_gpu),
        activation_gib=_gib(estimate.activation_bytes),
        overhead_gib=round(estimate.overhead_bytes / GIB, 2),
        activations_and_runtime_gib=round(
            ((estimate.activation_bytes or 0) + estimate.overhead_bytes) / GIB, 2
        ),
        kv_pool_gib=_gib(estimate.kv_pool_bytes),
        sequence_kv_gib=_gib(estimate.sequence_kv_bytes),
        kv_cache_gib=_gib(estimate.kv_cache_bytes_per_gpu),
        weights_fit=cause != "weights",
        kv_known=estimate.kv_known,
        batch=estimate.batch,
        batch_declared=sizing.batch_declared,
        max_num_seqs=estimate.max_num_seqs,
        context=estimate.context,
        context_defaulted=_unstated(subject, _CONTEXT, serving.max_context_tokens),
        gpu_memory_utilization=estimate.gpu_memory_utilization,
        utilization_origin=_utilization_origin(subject),
        kv_cache_tokens=estimate.kv_cache_tokens,
        max_concurrency=estimate.max_concurrency,
        starts=estimate.starts,
        refusal=estimate.refusal,
        refusal_cause=cause,
        max_startable_model_len=estimate.max_startable_model_len,
        fits_one_full_sequence=estimate.fits_one_full_sequence,
        batch_fits=batch_fits,
        max_batch_at_context=estimate.max_batch_at_context,
        max_context_at_batch=estimate.max_context_at_batch,
        model_max_context=estimate.model_max_context,
        context_exceeds_model_max=estimate.context_exceeds_model_max,
        suggestions=_suggestions(sizing) if cause == "weights" else None,
    )


def _unstated(subject: Subject, path: Path, value: object) -> bool:
    """The file does not state the value: it is unset, or an adapter filled in the engine's
    default (which messages must name as the default, not as the file's)."""
    return value is None or subject.manifest.provenance.is_default(path)


def _utilization_origin(subject: Subject) -> UtilizationOrigin:
    if subject.workload.spec.serving.gpu_memory_utilization is None:
        return "release-default"
    if subject.manifest.provenance.is_default(_UTILIZATION):
        return "engine-default"
    return "stated"


def _training_fact(estimate: Any) -> TrainingMemory:
    return TrainingMemory(
        method=estimate.method,
        micro_batch=estimate.micro_batch,
        sequence_length=estimate.sequence_length,
        sharding=estimate.sharding,
        world_size=estimate.world_size,
        full_gib=_gib(estimate.full_required_bytes),
        lora_gib=_gib(estimate.lora_required_bytes),
        qlora_gib=_gib(estimate.qlora_required_bytes),
        peft_halves_memory=estimate.lora_required_bytes is not None
        and estimate.lora_required_bytes * 2 <= estimate.full_required_bytes,
        trainable_parameters=estimate.trainable_parameters,
        peak_phase=estimate.peak_phase,
        terms_gib={name: round(value / GIB, 2) for name, value in estimate.terms.items()},
        fragmentation_gib=round(estimate.fragmentation_bytes / GIB, 2),
    )


def _smaller_gpu(required: int, where: Placement) -> str | None:
    """A catalogued GPU with less memory than the declared one that holds ``required`` with
    headroom, for right-sizing; None when the declared GPU is already the smallest that fits."""
    candidate = estimates.smallest_fitting_gpu(required, SMALLER_GPU_HEADROOM)
    if candidate is None or where.gpu is None or candidate.memory_bytes >= where.gpu.memory_bytes:
        return None
    return candidate.name


def _starts_with(sizing: Sizing, **changes: Any) -> Any:
    """The estimate with the workload's settings but ``changes``, when vLLM would start."""
    trial = estimates.inference(sizing.arch, **{**sizing.settings, **changes})
    return trial if trial.refusal_cause != "weights" else None


def _suggestions(sizing: Sizing) -> Suggestions:
    """What would leave room for a KV cache: more GPUs, a lower precision, a larger GPU."""
    estimate = sizing.estimate
    room = estimate.available_bytes - estimate.overhead_bytes - (estimate.activation_bytes or 0)
    stages = estimate.pipeline_parallel
    gpus_needed = math.ceil(estimate.weights_bytes / room) if room > 0 else None
    lower, lower_gib = None, None
    for precision in LOWER_PRECISIONS.get(estimate.precision, ()):
        trial = _starts_with(sizing, precision=precision)
        if trial is not None:
            lower, lower_gib = precision, _gib(trial.weights_bytes_per_gpu)
            break
    larger = estimates.smallest_fitting_gpu(
        estimate.weights_bytes_per_gpu + estimate.overhead_bytes + (estimate.activation_bytes or 0),
        SMALLER_GPU_HEADROOM,
    )
    parallel = "tensor parallel" if stages == 1 else "tensor x pipeline parallel"
    options = [f"use {gpus_needed or 'more'} GPUs ({parallel})"]
    if larger is not None:
        options.append(f"a larger GPU ({larger.name})")
    if lower is not None:
        options.append(f"{lower} weights ({lower_gib} GiB per GPU; 4-bit costs quality)")
    text = options[0] if len(options) == 1 else f"{', '.join(options[:-1])}, or {options[-1]}"
    return Suggestions(
        gpus_needed=gpus_needed,
        larger_gpu=larger.name if larger else None,
        lower_precision=lower,
        lower_precision_weights_gib=lower_gib,
        text=text,
    )
