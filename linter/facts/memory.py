"""The ``memory`` fact: does the model fit the declared GPUs, with the numbers.

Architecture comes from ``model.config`` (a Hugging Face config.json next to the manifest), the
model catalogue, or ``model.parameters`` alone (then the KV cache is unknown, never guessed).
Serving is sized the way vLLM budgets memory; fine-tuning and training by their training state.
Every default the estimate had to assume is listed in ``assumed`` so messages can say so.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from linter.documents import Manifest
from linter.facts.resources import Placement, placement
from linter.facts.run import RunIndex
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
_CAMEL = re.compile(r"_([a-z])")


def _camel(value: Any) -> Any:
    if isinstance(value, dict):
        return {_CAMEL.sub(lambda m: m.group(1).upper(), k): _camel(v) for k, v in value.items()}
    return value


def _gib(value: int | None) -> float | None:
    return None if value is None else round(value / GIB, 2)


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


def _architecture(manifest: Manifest, workload: Workload) -> tuple[Any, str | None, str | None]:
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

    # checked | not-applicable | no-accelerator | unknown-gpu | no-model | unknown-model |
    # not-estimable
    status: str
    reason: str | None = None
    estimate: Any = None  # InferenceEstimate or TrainingEstimate
    arch: Any = None
    assumed: tuple[str, ...] = ()
    source: str | None = None  # config | catalogue | parameters
    where: Placement | None = None


def size(manifest: Manifest) -> Sizing:
    """Size a workload's memory from its manifest; never raises for bad input."""
    workload = manifest.model
    assert isinstance(workload, Workload)
    spec = workload.spec
    if spec.profile == "dev":
        return Sizing("not-applicable", "dev workloads are not sized")
    where = placement(workload)
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
    return Sizing("checked", None, estimate, arch, tuple(assumed), source, where)


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


def compute(manifest: Manifest, run: RunIndex) -> dict[str, Any]:
    sizing = size(manifest)
    if sizing.status != "checked":
        return {"status": sizing.status, "reason": sizing.reason}
    estimate, where = sizing.estimate, sizing.where
    assert where is not None and where.gpu is not None
    facts: dict[str, Any] = {
        "status": "checked",
        "mode": "inference" if workload_profile(manifest) == "inference" else "training",
        "modelSource": sizing.source,
        "assumed": list(sizing.assumed),
        "estimate": _camel(estimate.as_dict()),
        "gib": {
            "required": _gib(estimate.required_bytes),
            "available": _gib(estimate.available_bytes),
            "total": _gib(where.gpu.memory_bytes),
            "gpu": where.gpu.name,
        },
        "usedFraction": round(estimate.required_bytes / where.gpu.memory_bytes, 4),
        "smallerGpu": _smaller_gpu(estimate.required_bytes, where),
    }
    if facts["mode"] == "inference":
        weights_fit = (
            estimate.weights_bytes_per_gpu + estimate.overhead_bytes <= estimate.available_bytes
        )
        facts.update(
            {
                "weightsGiB": _gib(estimate.weights_bytes_per_gpu),
                "kvCacheGiB": _gib(estimate.kv_cache_bytes_per_gpu),
                "weightsFit": weights_fit,
                "suggestions": None
                if weights_fit
                else _suggestions(estimate, where, sizing.arch, manifest),
            }
        )
    else:
        facts.update(
            {
                "fullGiB": _gib(estimate.full_required_bytes),
                "loraGiB": _gib(estimate.lora_required_bytes),
                "qloraGiB": _gib(estimate.qlora_required_bytes),
            }
        )
    return facts


def workload_profile(manifest: Manifest) -> str:
    workload = manifest.model
    assert isinstance(workload, Workload)
    return workload.spec.profile


def _smaller_gpu(required: int, where: Placement) -> str | None:
    """A catalogued GPU with less memory than the declared one that holds ``required`` with
    headroom, for right-sizing; None when the declared GPU is already the smallest that fits."""
    from linter.memory import smallest_fitting_gpu

    candidate = smallest_fitting_gpu(required, SMALLER_GPU_HEADROOM)
    if candidate is None or where.gpu is None or candidate.memory_bytes >= where.gpu.memory_bytes:
        return None
    return candidate.name


def _suggestions(estimate: Any, where: Placement, arch: Any, manifest: Manifest) -> dict[str, Any]:
    """What would hold the weights: more GPUs, a lower precision, a larger GPU."""
    from linter.memory import estimate_inference, smallest_fitting_gpu

    workload = manifest.model
    assert isinstance(workload, Workload)
    per_gpu_room = estimate.available_bytes - estimate.overhead_bytes
    gpus_needed = math.ceil(estimate.weights_bytes / per_gpu_room) if per_gpu_room > 0 else None
    lower = None
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
            lower = {"precision": precision, "weightsGiB": _gib(trial.weights_bytes_per_gpu)}
            break
    larger = smallest_fitting_gpu(
        estimate.weights_bytes_per_gpu + estimate.overhead_bytes, SMALLER_GPU_HEADROOM
    )
    return {
        "gpusNeeded": gpus_needed,
        "lowerPrecision": lower,
        "largerGpu": larger.name if larger else None,
    }
