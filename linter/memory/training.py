"""Fine-tuning and training memory per GPU: full, LoRA and QLoRA, term by term.

The estimate follows what stays allocated at the peak of a training step
(:mod:`linter.memory.training_peak`): the model state (:mod:`linter.memory.training_state`, in the
dtypes of :mod:`linter.memory.training_regime`), what each decoder layer keeps for backward
(:mod:`linter.memory.training_activations`, with peft's adapters as :mod:`linter.memory.lora`
resolves them) and what it holds at the worst moment of its backward
(:mod:`linter.memory.training_backward`), the loss's fp32 logits and their gradients, the
optimizer step's buffer, cuBLAS workspaces and the CUDA context. ``required_bytes`` is the CUDA
context plus PyTorch's allocated peak; checked against 92 training steps measured on an H200
(tests/memory/data/training_h200.jsonl: median error under 0.2% on the 77 it was developed on,
under 0.4% on 15 measured after). The caching allocator cannot hand back the unused tails of
the segments its live blocks sit in, so the memory a step may use is the torch-visible total less
that slack (:func:`linter.memory.training_peak.fragmentation_bytes`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from linter.memory.architecture import Architecture
from linter.memory.lora import LoraConfig, check_dropout, lora_parameters, resolve_targets
from linter.memory.right_sizing import GpuSpec
from linter.memory.training_activations import ActivationSetting
from linter.memory.training_peak import (
    RUNTIME_TERMS,
    STATE_TERMS,
    Phase,
    StepShape,
    cublas_workspace_bytes,
    fragmentation_bytes,
    peak_phase,
    step_phases,
)
from linter.memory.training_regime import METHODS, OPTIMIZERS, Regime, training_regime
from linter.memory.training_state import SHARDING, ModelState, model_state
from linter.memory.units import GIB, check_precision
from linter.records import datarecord

#: CUDA context and driver reserve outside the allocator when the catalogue has no measurement
#: for the GPU: PyTorch's first CUDA use takes 300 MiB-2 GiB (vram.asmirnov.xyz); vramcalc
#: measured ~0.75 GB on an A6000 (memory.md §1.5); an H200 with torch 2.11 took 0.60 GiB.
RUNTIME_OVERHEAD_BYTES = int(0.75 * GIB)


def term_groups(terms: dict[str, int]) -> list[tuple[str, list[tuple[str, int]]]]:
    """The terms of a peak as (model state, activations, overhead), each in step order."""
    groups: dict[str, list[tuple[str, int]]] = {
        "model state": [],
        "activations": [],
        "overhead": [],
    }
    for name, value in terms.items():
        group = "model state" if name in STATE_TERMS else "activations"
        groups["overhead" if name in RUNTIME_TERMS else group].append((name, value))
    return list(groups.items())


@datarecord
class TrainingEstimate:
    """Figures per GPU except ``parameters``/``trainable_parameters``."""

    parameters: int
    trainable_parameters: int
    method: str
    precision: str
    optimizer: str
    sharding: str
    world_size: int
    nodes: int
    gpu: str
    micro_batch: int
    sequence_length: int
    gradient_checkpointing: bool
    lora_rank: int | None
    lora_targets: list[str] | None
    lora_dropout: float | None
    logits_held: bool
    gradients_persist: bool
    weights_bytes: int
    gradients_bytes: int
    optimizer_bytes: int
    activation_bytes: int | None
    step_workspace_bytes: int
    overhead_bytes: int
    kv_cache_bytes: None
    kv_cache_bytes_per_token: None
    #: The phase of the step that holds the most, and what it holds by term.
    peak_phase: str
    terms: dict[str, int]
    #: Allocator slack kept out of the usable memory (see the module docstring).
    fragmentation_bytes: int
    required_bytes: int
    available_bytes: int
    fits: bool
    headroom_fraction: float
    full_required_bytes: int
    lora_required_bytes: int | None
    qlora_required_bytes: int | None
    #: Every phase's total, the CUDA context included.
    phases: dict[str, int]

    def as_dict(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in self.__dataclass_fields__}
        data["terms"] = dict(self.terms)
        data["phases"] = dict(self.phases)
        data["per_gpu"] = {
            "weights_bytes": self.weights_bytes,
            "gradients_bytes": self.gradients_bytes,
            "optimizer_bytes": self.optimizer_bytes,
            "activation_bytes": self.activation_bytes,
            "overhead_bytes": self.overhead_bytes,
            "required_bytes": self.required_bytes,
            "available_bytes": self.available_bytes,
        }
        return data


@datarecord
class _Sized:
    state: ModelState
    phase: Phase
    phases: list[Phase]
    overhead: int
    fragmentation: int

    @property
    def required(self) -> int:
        return self.phase.total + self.overhead


def _validate(method: str, sharding: str, optimizer: str, *counts: int) -> None:
    for value, allowed, what in (
        (method, METHODS, "method"),
        (sharding, SHARDING, "sharding"),
        (optimizer, tuple(OPTIMIZERS), "optimizer"),
    ):
        if value not in allowed:
            raise ValueError(f"unknown {what} {value!r}; expected one of {list(allowed)}")
    if min(counts) < 1:
        raise ValueError("micro_batch, sequence_length, world_size, gpus_per_node, lora_rank >= 1")


def _without_architecture(state: ModelState, overhead: int) -> _Sized:
    """Full training of a bare parameter count: model state and the step's buffer only."""
    phase = Phase(
        "optimizer step",
        {
            "weights": state.weights,
            "gradients": state.gradients,
            "optimizer_states": state.optimizer_states,
            "optimizer_step": state.step_buffer,
        },
    )
    return _Sized(state, phase, [phase], overhead, 0)


def _size(
    arch: Architecture | None,
    parameters: int,
    regime: Regime,
    lora: LoraConfig | None,
    shape: StepShape,
    sharding: str,
    world_size: int,
    overhead: int,
) -> _Sized:
    trainable = parameters if regime.base_trainable else 0
    if lora is not None:
        assert arch is not None
        trainable = lora_parameters(arch, lora)
    state = model_state(arch, parameters, regime, lora, trainable, sharding, world_size)
    if arch is None:
        return _without_architecture(state, overhead)
    phases = step_phases(arch, state, shape)
    chosen = peak_phase(phases)
    return _Sized(state, chosen, phases, overhead, fragmentation_bytes(arch, chosen, shape))


def _alternative(size: Callable[[str, str], _Sized], method: str, precision: str) -> int | None:
    """What ``method`` would need instead, None where peft refuses it (Mamba's out_proj)."""
    try:
        return size(method, precision).required
    except ValueError:
        return None


def estimate_training(
    arch: Architecture | None,
    *,
    parameters: float | None,
    precision: str,
    method: str,
    optimizer: str | None,
    micro_batch: int,
    sequence_length: int,
    gradient_checkpointing: bool,
    sharding: str,
    world_size: int,
    gpu: GpuSpec,
    gpus_per_node: int,
    lora_rank: int = 16,
    lora_targets: str | tuple[str, ...] | None = None,
    lora_dropout: float = 0.0,
    logits_held: bool = True,
    gradients_persist: bool = False,
) -> TrainingEstimate:
    """Peak memory per GPU for one training step, with the full / LoRA / QLoRA alternatives.

    ``lora_targets``: None or ``"all-linear"`` (peft's shorthand), ``"attention"`` or ``"mlp"``
    (those projections of the model), or module names as peft's ``target_modules`` takes them.
    ``logits_held``: the training loop keeps the model output (its logits) through backward, as
    ``outputs = model(**batch); outputs.loss.backward()`` does; Trainer does not.
    ``gradients_persist``: gradients stay allocated between steps (gradient accumulation over
    several micro-batches, or ``zero_grad(set_to_none=False)``).
    Without an architecture only full training is sized and activations are unknown (None).
    """
    precision = check_precision(precision)
    optimizer = (optimizer or "adamw").lower()
    _validate(
        method,
        sharding,
        optimizer,
        micro_batch,
        sequence_length,
        world_size,
        gpus_per_node,
        lora_rank,
    )
    if arch is None and parameters is None:
        raise ValueError("need an architecture or a parameter count")
    if arch is None and method != "full":
        raise ValueError("LoRA/QLoRA sizes need the model architecture")
    count = arch.parameters if arch else round(parameters or 0)
    overhead = gpu.cuda_context_bytes or RUNTIME_OVERHEAD_BYTES
    workspace = cublas_workspace_bytes(gpu.compute_capability)
    compute = precision if precision in ("fp32", "bf16", "fp16") else "bf16"

    @functools.cache  # the chosen method is often one of the alternatives: sized once
    def size(m: str, p: str) -> _Sized:
        regime = training_regime(m, p, optimizer, sharding != "none")
        lora = None
        if m != "full":
            assert arch is not None
            lora = LoraConfig(lora_rank, resolve_targets(arch, lora_targets), lora_dropout)
            check_dropout(arch, lora)
        setting = ActivationSetting(regime, lora, micro_batch, sequence_length)
        shape = StepShape(
            setting, gradient_checkpointing, logits_held, workspace, gradients_persist
        )
        return _size(arch, count, regime, lora, shape, sharding, world_size, overhead)

    chosen = size(method, precision)
    adapters = {m: _alternative(size, m, compute) if arch else None for m in ("lora", "qlora")}
    available = gpu.usable_bytes - chosen.fragmentation
    terms = chosen.phase.terms
    state_bytes = sum(terms.get(name, 0) for name in STATE_TERMS)
    targets = resolve_targets(arch, lora_targets) if arch and method != "full" else None
    return TrainingEstimate(
        parameters=count,
        trainable_parameters=chosen.state.trainable,
        method=method,
        precision=precision,
        optimizer=optimizer,
        sharding=sharding,
        world_size=world_size,
        nodes=-(-world_size // gpus_per_node),
        gpu=gpu.name,
        micro_batch=micro_batch,
        sequence_length=sequence_length,
        gradient_checkpointing=gradient_checkpointing,
        lora_rank=lora_rank if method != "full" else None,
        lora_targets=None if targets is None else sorted(targets),
        lora_dropout=lora_dropout if method != "full" else None,
        logits_held=logits_held,
        gradients_persist=gradients_persist,
        weights_bytes=chosen.state.weights + chosen.state.adapter_weights,
        gradients_bytes=chosen.state.gradients,
        optimizer_bytes=chosen.state.optimizer_states,
        activation_bytes=chosen.phase.total - state_bytes if arch else None,
        step_workspace_bytes=chosen.state.step_buffer,
        overhead_bytes=overhead,
        kv_cache_bytes=None,
        kv_cache_bytes_per_token=None,
        peak_phase=chosen.phase.name,
        terms={"cuda_context": overhead, **terms},
        fragmentation_bytes=chosen.fragmentation,
        required_bytes=chosen.required,
        available_bytes=available,
        fits=chosen.required <= available,
        headroom_fraction=(available - chosen.required) / available,
        full_required_bytes=size("full", compute).required,
        lora_required_bytes=adapters["lora"],
        qlora_required_bytes=adapters["qlora"],
        phases={phase.name: phase.total + overhead for phase in chosen.phases},
    )
