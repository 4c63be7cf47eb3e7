"""Sizing one workload's memory: its model's architecture, where it runs, and every serving or
training setting it declares, passed to :mod:`linter.memory`. Never raises for bad input: what
cannot be sized is a :class:`Sizing` whose status says why.

Architecture comes from ``model.config`` (a Hugging Face config.json in the repository, read
through the bounded reader), the model catalogue or the local Hugging Face cache
(:mod:`linter.memory.by_name`; how a name was resolved, when not as a catalogued model's own
weights, is an assumption), or ``model.parameters`` alone (then the KV cache is unknown, never
guessed). Serving is sized the way vLLM budgets memory; fine-tuning and
training by their training state. Every default the estimate had to assume is listed, so
messages can say so.
"""

from __future__ import annotations

import json
from dataclasses import field, replace
from typing import TYPE_CHECKING, Any, Literal

from linter.facts import estimates
from linter.facts.placement import Placement, resolve_placement
from linter.load.reader import Refusal
from linter.load.repository import repository_root
from linter.load.sources import FileRead
from linter.model import Workload
from linter.model.manifest import Manifest
from linter.model.workload import INFERENCE_PROFILES
from linter.records import datarecord

if TYPE_CHECKING:
    from linter.memory.calibration import Calibration

DEFAULT_TRAINING_SEQUENCE = 2048
#: Context sized when neither the workload nor the model says one.
DEFAULT_CONTEXT = 4096
CONFIG_MAX_BYTES = 1024 * 1024
#: The engine whose start-up accounting :mod:`linter.memory` models.
MODELLED_ENGINE = "vllm"
#: Precisions a checkpoint is stored in unquantised.
UNQUANTISED = ("fp32", "bf16", "fp16")

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
Mode = Literal["inference", "training"]


@datarecord
class Sizing:
    """The memory estimate of one workload, or why there is none (``status`` other than checked).

    ``settings`` are the keyword arguments the inference estimate was made with, so another
    precision or GPU can be tried with everything else equal.
    """

    status: Status
    reason: str | None = None
    estimate: Any = None  # InferenceEstimate or TrainingEstimate
    arch: Any = None
    assumed: tuple[str, ...] = ()
    source: ModelSource | None = None
    where: Placement | None = None
    mode: Mode | None = None
    batch_declared: bool = False
    settings: dict[str, Any] = field(default_factory=dict)


def model_config_read(manifest: Manifest, relative: str) -> FileRead:
    """How ``model.config`` is read: beside the manifest, inside its repository, bounded."""
    base = manifest.fs_path.parent
    return FileRead(str(base / relative), str(repository_root(base)), CONFIG_MAX_BYTES)


def load_hf_config(manifest: Manifest, relative: str) -> tuple[dict[str, Any] | None, str | None]:
    """Read ``model.config`` through the bounded reader: a path or link out of the repository,
    a FIFO, a device, a link loop or an oversized file is a reason, never a read or a hang."""
    read = model_config_read(manifest, relative)
    root = read.root
    content = read.read()
    if isinstance(content, Refusal):
        if content.kind == "outside":
            where = f"points outside the repository ({root})"
            return None, f"model.config {relative!r} {where}; not read"
        return None, f"model.config {relative!r}: {content.message()}"
    try:
        data = json.loads(content)
    except (ValueError, RecursionError) as err:
        return None, f"model.config {relative!r} cannot be read as JSON: {err}"
    if not isinstance(data, dict):
        return None, f"model.config {relative!r} is not a JSON object"
    return data, None


def architecture(
    manifest: Manifest, workload: Workload
) -> tuple[Any, ModelSource | None, str | None, str | None]:
    """(architecture or None, where it came from, why it could not be resolved, how a model
    name was sized when not as a catalogued model's own weights)."""
    from linter.memory import ArchitectureError, architecture_from_hf_config
    from linter.memory.by_name import architecture_by_name, unknown_model_hint

    model = workload.spec.model
    if model.config:
        config, problem = load_hf_config(manifest, model.config)
        if config is None:
            return None, None, problem, None
        try:
            return architecture_from_hf_config(config), "config", None, None
        except ArchitectureError as err:
            return None, None, f"model.config {model.config!r}: {err}", None
    if model.id:
        try:
            named = architecture_by_name(model.id)
        except ArchitectureError as err:
            return None, None, f"model {model.id!r}: {err}", None
        if named is not None:
            source: ModelSource = "catalogue" if named.source == "catalogue" else "config"
            return named.arch, source, None, named.note
    if model.parameters is not None:
        return None, "parameters", None, None
    return (
        None,
        None,
        f"model {model.id!r} is not in gpulint's catalogue and has no model.config or "
        f"model.parameters ({unknown_model_hint(model.id or '')})",
        None,
    )


def size(manifest: Manifest, calibration: Calibration | None = None) -> Sizing:
    """Size a workload's memory from its manifest; never raises for bad input. A
    ``calibration`` corrects the serving estimate for the GPUs and engine versions it
    measured (linter/memory/calibration.py)."""
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
    arch, source, problem, note = architecture(manifest, workload)
    if problem is not None:
        return Sizing("unknown-model", problem)
    try:
        if spec.profile in INFERENCE_PROFILES:
            sizing = _inference(workload, where, arch, source, calibration)
        else:
            sizing = _training(workload, where, arch, source)
    except (ValueError, OverflowError) as err:
        return Sizing("not-estimable", str(err))
    return replace(sizing, assumed=(note, *sizing.assumed)) if note else sizing


def weight_precision(workload: Workload, arch: Any) -> str | None:
    """The precision to size the weights in: ``model.precision``; else, with
    ``model.quantization``, the checkpoint's own format when it is quantised (the method reads
    it) or the format the method quantises to; else None (the checkpoint's own)."""
    from linter.memory.quantization import precision_of_method

    model = workload.spec.model
    if model.precision is not None:
        return model.precision
    if model.quantization is None:
        return None
    stored = arch.checkpoint_precision if arch is not None else None
    if stored is not None and stored not in UNQUANTISED:
        return str(stored)
    return precision_of_method(model.quantization)


def _gpu_assumption(where: Placement) -> list[str]:
    if where.memory_gib is None or where.gpu is None:
        return []
    return [
        f"{where.gpu.name}, the smallest catalogued GPU with at least {where.memory_gib:g} GB "
        "(accelerator.memoryGib)"
    ]


def _inference(
    workload: Workload,
    where: Placement,
    arch: Any,
    source: ModelSource | None,
    calibration: Calibration | None,
) -> Sizing:
    spec = workload.spec
    serving = spec.serving
    assumed = _gpu_assumption(where)
    if serving.engine is not None and serving.engine.lower() != MODELLED_ENGINE:
        assumed.append(f"vLLM's memory accounting ({serving.engine}'s own is not modelled)")
    stages = serving.pipeline_parallel or 1
    replica_gpus = int(where.gpus_per_node or 1) * spec.resources.nodes
    tensor_parallel = serving.tensor_parallel or max(1, replica_gpus // stages)
    batch = serving.max_batch_size or 1
    context = serving.max_context_tokens
    if context is None:
        context = (arch.max_position_embeddings if arch else None) or DEFAULT_CONTEXT
    settings: dict[str, Any] = {
        "parameters": spec.model.parameters,
        "precision": weight_precision(workload, arch),
        "kv_precision": serving.kv_cache_precision,
        "batch": batch,
        "context": context,
        "gpu": where.gpu,
        "gpus": tensor_parallel,
        "pipeline_parallel": stages,
        "gpu_memory_utilization": serving.gpu_memory_utilization,
        "max_num_batched_tokens": serving.max_num_batched_tokens,
        "max_num_seqs": serving.max_batch_size,
        "enforce_eager": bool(serving.enforce_eager),
        "engine_version": serving.engine_version,
        "kv_cache_memory_bytes": serving.kv_cache_memory_bytes,
        "calibration": calibration,
    }
    estimate = estimates.inference(arch, **settings)
    return Sizing(
        "checked",
        estimate=estimate,
        arch=arch,
        assumed=tuple(assumed + list(estimate.assumed)),
        source=source,
        where=where,
        mode="inference",
        batch_declared=serving.max_batch_size is not None,
        settings=settings,
    )


def _training(
    workload: Workload, where: Placement, arch: Any, source: ModelSource | None
) -> Sizing:
    tuning = workload.spec.fine_tuning
    assumed = _gpu_assumption(where)
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
    estimate = estimates.training(
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
        lora_targets=_lora_targets(tuning.lora_target_modules),
        lora_dropout=tuning.lora_dropout or 0.0,
        gradients_persist=(tuning.gradient_accumulation_steps or 1) > 1,
    )
    return Sizing("checked", None, estimate, arch, tuple(assumed), source, where, "training")


def _lora_targets(targets: str | list[str] | None) -> str | tuple[str, ...] | None:
    """peft's ``target_modules`` as the estimate takes it (a hashable tuple for a list)."""
    return tuple(targets) if isinstance(targets, list) else targets
