"""The ``memory`` fact: does the model fit the declared GPUs, with the numbers.

Architecture comes from ``model.config`` (a Hugging Face config.json next to the manifest), the
model catalogue, or ``model.parameters`` alone (then the KV cache is unknown, never guessed).
Serving is sized the way vLLM budgets memory; fine-tuning and training by their training state.
Every default the estimate had to assume is listed in ``assumed`` so messages can say so.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from linter.facts.base import Fact, listing, percent
from linter.facts.placement import Placement, resolve_placement
from linter.facts.subject import Subject
from linter.formats.manifest import Manifest
from linter.model import Workload

GIB = 1024**3
DEFAULT_TRAINING_SEQUENCE = 2048
CONFIG_MAX_BYTES = 1024 * 1024
SMALLER_GPU_HEADROOM = 0.10
# Weight precisions worth suggesting below each declared one, largest first.
LOWER_PRECISIONS = {
    "fp32": ("bf16", "fp8", "int4"),
    "bf16": ("fp8", "int4"),
    "fp16": ("fp8", "int4"),
    "fp8": ("int4",),
    "int8": ("int4",),
}
#: What a serving estimate says about the engine's start, by whether it starts.
START_TEXT = {
    True: "vLLM starts but queues requests beyond that",
    False: "vLLM will refuse to start: not even one full-length sequence fits",
}
ModelSource = Literal["config", "catalogue", "parameters"]
Status = Literal[
    "checked",
    "not-applicable",
    "no-accelerator",
    "unknown-gpu",
    "no-model",
    "unknown-model",
    "not-estimable",
]


class Suggestions(Fact):
    """What would hold the weights."""

    gpus_needed: int | None = Field(description="GPUs (tensor parallel) that hold the weights.")
    larger_gpu: str | None = Field(description="Smallest catalogued GPU that holds them.")
    lower_precision: str | None = Field(description="Highest lower precision that fits.")
    lower_precision_weights_gib: float | None = Field(alias="lowerPrecisionWeightsGiB")
    text: str = Field(description="The options, as a message ends with them.")


class InferenceMemory(Fact):
    weights_gib: float | None = Field(alias="weightsGiB", description="Weights per GPU.")
    kv_cache_gib: float | None = Field(
        alias="kvCacheGiB", description="KV cache per GPU at batch x context."
    )
    weights_fit: bool = Field(description="Weights and runtime overhead fit the usable memory.")
    kv_known: bool = Field(description="The architecture is known, so the KV cache is sized.")
    batch: int = Field(description="Concurrent sequences sized (serving.maxBatchSize).")
    context: int = Field(description="Tokens per sequence sized (serving.maxContextTokens).")
    gpu_memory_utilization: float
    max_batch_at_context: int | None = Field(description="Most sequences at this context.")
    max_context_at_batch: int | None = Field(description="Longest context at this batch.")
    fits_one_full_sequence: bool | None = Field(description="One max-length sequence fits.")
    starts: bool = Field(description="The engine would start (weights and one sequence fit).")
    start_text: str = Field(description="What the engine does, in words.")
    model_max_context: int | None = Field(description="The model's max_position_embeddings.")
    context_exceeds_model_max: bool
    suggestions: Suggestions | None = Field(description="Set when the weights do not fit.")


class TrainingMemory(Fact):
    method: str = Field(description="full, lora or qlora.")
    micro_batch: int
    sequence_length: int
    sharding: str
    world_size: int = Field(description="GPUs the job is sharded over.")
    full_gib: float | None = Field(alias="fullGiB", description="Per GPU for full fine-tuning.")
    lora_gib: float | None = Field(alias="loraGiB")
    qlora_gib: float | None = Field(alias="qloraGiB")
    peft_halves_memory: bool = Field(description="LoRA needs at most half of full fine-tuning.")
    advice_text: str = Field(description="What would make it fit, as a message ends with it.")


class MemoryFact(Fact):
    status: Status = Field(description="checked, or why memory was not sized.")
    reason: str | None = Field(description="Why not, when status is not checked.")
    mode: Literal["inference", "training"] | None
    model_source: ModelSource | None
    assumed: list[str] = Field(description="Defaults the estimate had to assume.")
    assumed_text: str | None
    parameters: int | None = Field(description="Exact parameter count (every expert).")
    parameters_text: str | None = Field(description="e.g. '70.6B'.")
    precision: str | None
    gpu: str | None
    gpus: int | None = Field(description="GPUs of one replica (TP x PP, or training world size).")
    required_gib: float | None = Field(alias="requiredGiB", description="Needed per GPU.")
    available_gib: float | None = Field(
        alias="availableGiB", description="Usable per GPU (x gpuMemoryUtilization)."
    )
    total_gib: float | None = Field(alias="totalGiB", description="Memory of one GPU.")
    fits: bool | None
    used_percent: float | None = Field(description="Required as a percentage of the GPU.")
    headroom_percent: float | None = Field(description="Usable memory left, in percent.")
    smaller_gpu: str | None = Field(description="A smaller catalogued GPU that holds it.")
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
            assumed_text=None,
            parameters=parameters,
            parameters_text=None if parameters is None else billions(parameters),
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


def billions(parameters: float) -> str:
    """``70553706496`` -> ``70.6B``."""
    return f"{parameters / 1e9:.1f}B"


def repository_root(start: Path) -> Path:
    """The git work tree holding ``start``, else ``start`` itself: config paths may not leave it."""
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return start


def load_hf_config(manifest: Manifest, relative: str) -> tuple[dict[str, Any] | None, str | None]:
    """Read ``model.config``; refuse paths outside the repository (a manifest must not make the
    linter read arbitrary files) and anything that is not a small JSON object."""
    base = manifest.fs_path.resolve().parent
    target = (base / relative).resolve()
    root = repository_root(base)
    if not target.is_relative_to(root):
        return None, f"model.config {relative!r} points outside the repository ({root}); not read"
    try:
        if target.stat().st_size > CONFIG_MAX_BYTES:
            return (
                None,
                f"model.config {relative!r} is larger than {CONFIG_MAX_BYTES} bytes; not read",
            )
        data = json.loads(target.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        return None, f"model.config {relative!r} cannot be read as JSON: {err}"
    if not isinstance(data, dict):
        return None, f"model.config {relative!r} is not a JSON object"
    return data, None


def _architecture(
    manifest: Manifest, workload: Workload
) -> tuple[Any, ModelSource | None, str | None]:
    """(architecture or None, where it came from, why it could not be resolved)."""
    from linter.memory import (
        ArchitectureError,
        architecture_from_catalogue,
        architecture_from_hf_config,
    )

    model = workload.spec.model
    if model.config:
        config, problem = load_hf_config(manifest, model.config)
        if config is None:
            return None, None, problem
        try:
            return architecture_from_hf_config(config), "config", None
        except ArchitectureError as err:
            return None, None, f"model.config {model.config!r}: {err}"
    if model.id:
        arch = architecture_from_catalogue(model.id)
        if arch is not None:
            return arch, "catalogue", None
    if model.parameters is not None:
        return None, "parameters", None
    return (
        None,
        None,
        f"model {model.id!r} is not in gpulint's catalogue and has no model.config or "
        "model.parameters",
    )


@dataclass(frozen=True)
class Sizing:
    """The memory estimate of one workload, or why there is none (``status`` other than checked)."""

    status: Status
    reason: str | None = None
    estimate: Any = None  # InferenceEstimate or TrainingEstimate
    arch: Any = None
    assumed: tuple[str, ...] = ()
    source: ModelSource | None = None
    where: Placement | None = None
    mode: Literal["inference", "training"] | None = None


def size(manifest: Manifest) -> Sizing:
    """Size a workload's memory from its manifest; never raises for bad input."""
    workload = manifest.model
    assert isinstance(workload, Workload)
    spec = workload.spec
    if spec.profile == "dev":
        return Sizing("not-applicable", "dev workloads are not sized")
    where = resolve_placement(workload)
    if not where.gpus_per_node:
        return Sizing("no-accelerator", "no accelerator or GPU instance type declared")
    if where.gpu is None:
        return Sizing("unknown-gpu", where.unknown)
    model = spec.model
    if not (model.id or model.config or model.parameters is not None):
        return Sizing(
            "no-model", "the workload names no model (model.id, model.config or model.parameters)"
        )
    arch, source, problem = _architecture(manifest, workload)
    if problem is not None:
        return Sizing("unknown-model", problem)
    try:
        sizer = _inference if spec.profile == "inference" else _training
        estimate, assumed = sizer(workload, where, arch)
    except (ValueError, OverflowError) as err:
        return Sizing("not-estimable", str(err))
    mode: Literal["inference", "training"] = (
        "inference" if spec.profile == "inference" else "training"
    )
    return Sizing("checked", None, estimate, arch, tuple(assumed), source, where, mode)


def _inference(workload: Workload, where: Placement, arch: Any) -> tuple[Any, list[str]]:
    from linter.memory import estimate_inference

    spec = workload.spec
    assumed = []
    gpus = spec.serving.tensor_parallel or int(where.gpus_per_node or 1) * spec.resources.nodes
    batch = spec.serving.max_batch_size
    if batch is None:
        batch = 1
        assumed.append("batch 1 (serving.maxBatchSize unset)")
    context = spec.serving.max_context_tokens
    if context is None:
        context = (arch.max_position_embeddings if arch else None) or 4096
        assumed.append(f"context {context} tokens (serving.maxContextTokens unset)")
    assert where.gpu is not None
    estimate = estimate_inference(
        arch,
        parameters=spec.model.parameters,
        precision=spec.model.precision,
        kv_precision=spec.serving.kv_cache_precision,
        batch=batch,
        context=context,
        gpu=where.gpu,
        gpus=gpus,
        gpu_memory_utilization=spec.serving.gpu_memory_utilization,
    )
    return estimate, assumed


def _training(workload: Workload, where: Placement, arch: Any) -> tuple[Any, list[str]]:
    from linter.memory import estimate_training

    tuning = workload.spec.fine_tuning
    assumed = []
    method = tuning.method
    if method is None:
        method = "full"
        assumed.append("full training (fineTuning.method unset)")
    sequence = tuning.sequence_length
    if sequence is None:
        sequence = DEFAULT_TRAINING_SEQUENCE
        assumed.append(f"sequence length {sequence} (fineTuning.sequenceLength unset)")
    per_node = int(where.gpus_per_node or 1)
    assert where.gpu is not None
    estimate = estimate_training(
        arch,
        parameters=workload.spec.model.parameters,
        precision=workload.spec.model.precision or "bf16",
        method=method,
        optimizer=(tuning.optimizer or "adamw").replace("-", "_"),
        micro_batch=tuning.micro_batch_size or 1,
        sequence_length=sequence,
        gradient_checkpointing=bool(tuning.gradient_checkpointing),
        sharding=tuning.sharding or "none",
        world_size=per_node * workload.spec.resources.nodes,
        gpu=where.gpu,
        gpus_per_node=per_node,
        lora_rank=tuning.lora_rank or 16,
    )
    return estimate, assumed


def compute(subject: Subject) -> MemoryFact:
    sizing = size(subject.manifest)
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
        assumed_text=listing(sizing.assumed) if sizing.assumed else None,
        parameters=estimate.parameters,
        parameters_text=billions(estimate.parameters),
        precision=estimate.precision,
        gpu=where.gpu.name,
        gpus=estimate.gpus if inference else estimate.world_size,
        required_gib=_gib(estimate.required_bytes),
        available_gib=_gib(estimate.available_bytes),
        total_gib=_gib(where.gpu.memory_bytes),
        fits=estimate.fits,
        used_percent=percent(estimate.required_bytes / where.gpu.memory_bytes),
        headroom_percent=percent(estimate.headroom_fraction),
        smaller_gpu=_smaller_gpu(estimate.required_bytes, where),
        inference=_inference_fact(estimate, where, sizing.arch, subject) if inference else None,
        training=None if inference else _training_fact(estimate, subject),
    )


def _inference_fact(
    estimate: Any, where: Placement, arch: Any, subject: Subject
) -> InferenceMemory:
    weights_fit = (
        estimate.weights_bytes_per_gpu + estimate.overhead_bytes <= estimate.available_bytes
    )
    starts = weights_fit and estimate.fits_one_full_sequence is not False
    suggestions = None if weights_fit else _suggestions(estimate, where, arch, subject.workload)
    return InferenceMemory(
        weights_gib=_gib(estimate.weights_bytes_per_gpu),
        kv_cache_gib=_gib(estimate.kv_cache_bytes_per_gpu),
        weights_fit=weights_fit,
        kv_known=estimate.kv_known,
        batch=estimate.batch,
        context=estimate.context,
        gpu_memory_utilization=estimate.gpu_memory_utilization,
        max_batch_at_context=estimate.max_batch_at_context,
        max_context_at_batch=estimate.max_context_at_batch,
        fits_one_full_sequence=estimate.fits_one_full_sequence,
        starts=starts,
        start_text=START_TEXT[starts],
        model_max_context=estimate.model_max_context,
        context_exceeds_model_max=estimate.context_exceeds_model_max,
        suggestions=suggestions,
    )


def _training_fact(estimate: Any, subject: Subject) -> TrainingMemory:
    tuning = subject.workload.spec.fine_tuning
    advice = []
    if estimate.lora_required_bytes is not None and estimate.qlora_required_bytes is not None:
        advice.append(
            f"LoRA would need {_gib(estimate.lora_required_bytes)} GiB and QLoRA "
            f"{_gib(estimate.qlora_required_bytes)} GiB"
        )
    if tuning.gradient_checkpointing is not True:
        advice.append("gradient checkpointing cuts activations")
    if estimate.sharding == "none" and estimate.world_size > 1:
        advice.append("ZeRO-3/FSDP shards weights, gradients and optimizer state across the GPUs")
    else:
        advice.append("a smaller micro-batch or more GPUs also help")
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
        advice_text="; ".join(advice),
    )


def _smaller_gpu(required: int, where: Placement) -> str | None:
    """A catalogued GPU with less memory than the declared one that holds ``required`` with
    headroom, for right-sizing; None when the declared GPU is already the smallest that fits."""
    from linter.memory import smallest_fitting_gpu

    candidate = smallest_fitting_gpu(required, SMALLER_GPU_HEADROOM)
    if candidate is None or where.gpu is None or candidate.memory_bytes >= where.gpu.memory_bytes:
        return None
    return candidate.name


def _suggestions(estimate: Any, where: Placement, arch: Any, workload: Workload) -> Suggestions:
    """What would hold the weights: more GPUs, a lower precision, a larger GPU."""
    from linter.memory import estimate_inference, smallest_fitting_gpu

    per_gpu_room = estimate.available_bytes - estimate.overhead_bytes
    gpus_needed = math.ceil(estimate.weights_bytes / per_gpu_room) if per_gpu_room > 0 else None
    lower, lower_gib = None, None
    assert where.gpu is not None
    for precision in LOWER_PRECISIONS.get(estimate.precision, ()):
        trial = estimate_inference(
            arch,
            parameters=workload.spec.model.parameters,
            precision=precision,
            kv_precision=workload.spec.serving.kv_cache_precision,
            batch=estimate.batch,
            context=estimate.context,
            gpu=where.gpu,
            gpus=estimate.gpus,
            gpu_memory_utilization=estimate.gpu_memory_utilization,
        )
        if trial.weights_bytes_per_gpu + trial.overhead_bytes <= trial.available_bytes:
            lower, lower_gib = precision, _gib(trial.weights_bytes_per_gpu)
            break
    larger = smallest_fitting_gpu(
        estimate.weights_bytes_per_gpu + estimate.overhead_bytes, SMALLER_GPU_HEADROOM
    )
    options = [f"use {gpus_needed or 'more'} GPUs (tensor parallel)"]
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
