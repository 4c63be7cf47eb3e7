"""Fine-tuning and training memory per GPU: full, LoRA and QLoRA.

Model state (memory.md §1.4, EleutherAI "Transformer Math 101"): mixed-precision AdamW keeps
16-bit weights and gradients plus fp32 master weights, momentum and variance = 16 B/param; 8-bit
optimisers keep 4 + 1 + 1 B of state; SGD with momentum 4 + 4 B; "pure" 16-bit AdamW
(``adamw_bf16``: states in the model dtype, no master copy) 8 B/param in total. ZeRO-1 shards the
optimizer state across data-parallel ranks, ZeRO-2 also the gradients, ZeRO-3/FSDP also the weights.

Activations follow vramcalc 0.1.2 (sacom123/vramcalc ``memory.py``), whose per-term formulas were
measured within ±4.3% of ``torch.cuda.max_memory_allocated`` on 19 RTX A6000 runs (memory.md §4
#16-#20): per layer ``tokens x (2h + q + 2kv + q + h + 4I + 2h)`` 16-bit elements (+ a repeated K/V
at query width under SDPA with GQA), two fp32 RMSNorm tensors per layer, 14 B per logit in the
log-softmax backward, and with gradient checkpointing one hidden state per layer plus one layer's
activations. The optimizer's foreach step workspace (one gradient-sized buffer) replaces the
activations at the step, so the peak takes the larger of the two.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from linter.memory.architecture import Architecture
from linter.memory.gpus import GpuSpec
from linter.memory.units import GIB, check_precision
from linter.memory.weights import weight_bytes

#: CUDA context and allocator reserve outside the model state, per GPU: PyTorch's first CUDA use
#: takes 300 MiB-2 GiB (vram.asmirnov.xyz); vramcalc measured ~0.75 GB on an A6000 (memory.md §1.5).
RUNTIME_OVERHEAD_BYTES = int(0.75 * GIB)

#: Optimizer-state bytes per trainable parameter: (16-bit model, fp32 model / fp32 adapters).
OPTIMIZER_STATE_BYTES: dict[str, tuple[int, int]] = {
    "adamw": (12, 8),
    "adamw_8bit": (6, 2),
    "paged_adamw_8bit": (6, 2),
    "sgd": (8, 4),
    "adamw_bf16": (4, 8),
}
METHODS = ("full", "lora", "qlora")
SHARDING = ("none", "zero1", "zero2", "zero3", "fsdp")
LORA_TARGETS = ("attention", "all_linear")


@dataclass(frozen=True)
class _Breakdown:
    weights: int
    gradients: int
    optimizer: int
    activations: int
    step_workspace: int
    trainable: int

    @property
    def required(self) -> int:
        model_state = self.weights + self.gradients + self.optimizer
        return model_state + max(self.activations, self.step_workspace) + RUNTIME_OVERHEAD_BYTES


@dataclass(frozen=True)
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
    weights_bytes: int
    gradients_bytes: int
    optimizer_bytes: int
    activation_bytes: int | None
    step_workspace_bytes: int
    overhead_bytes: int
    kv_cache_bytes: None
    kv_cache_bytes_per_token: None
    required_bytes: int
    available_bytes: int
    fits: bool
    headroom_fraction: float
    full_required_bytes: int
    lora_required_bytes: int | None
    qlora_required_bytes: int | None

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
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


def lora_parameters(arch: Architecture, rank: int, targets: str) -> int:
    """Adapter parameters ``r x (in + out)`` per targeted projection (MoE experts not targeted)."""
    h, q, kv = arch.hidden_size, arch.q_dim, arch.kv_dim
    per_layer = (h + q) + 2 * (h + kv) + (q + h)
    total = arch.num_hidden_layers * rank * per_layer
    if targets == "all_linear":
        total += arch.dense_layers * rank * 3 * (h + arch.intermediate_size)
    return total


def activation_bytes(
    arch: Architecture,
    tokens: int,
    element_bytes: int,
    *,
    checkpointing: bool,
    lora_rank: int | None,
    lora_targets: str = "attention",
) -> int:
    """Saved activations plus the logits peak for ``tokens`` = micro batch x sequence length."""
    h, q, kv, layers = arch.hidden_size, arch.q_dim, arch.kv_dim, arch.num_hidden_layers
    mlp = (
        (arch.experts_per_token * arch.moe_intermediate_size + arch.shared_expert_intermediate_size)
        if arch.is_moe
        else arch.intermediate_size
    )
    elements = tokens * (2 * h + q + 2 * kv + q + h + 4 * mlp + 2 * h)
    if kv < q:
        elements += 2 * tokens * q
    layer = elements * element_bytes
    norm_fp32 = 2 * 4 * tokens * h * layers
    targets = 4 if lora_targets == "attention" else 7
    lora_branch = targets * layers * tokens * lora_rank * 4 if lora_rank else 0
    logits = tokens * arch.vocab_size * (element_bytes + 12)
    if checkpointing:
        return (
            layers * tokens * h * element_bytes + layer + norm_fp32 // layers + lora_branch + logits
        )
    return layers * layer + norm_fp32 + lora_branch + logits


def _breakdown(
    arch: Architecture | None,
    parameters: int,
    method: str,
    precision: str,
    optimizer: str,
    sharding: str,
    world_size: int,
    tokens: int,
    checkpointing: bool,
    lora_rank: int,
    lora_targets: str,
) -> _Breakdown:
    state_16, state_32 = OPTIMIZER_STATE_BYTES[optimizer]
    shards = world_size if sharding != "none" else 1
    if method == "full":
        if precision not in ("fp32", "bf16", "fp16"):
            raise ValueError("full training needs precision fp32, bf16 or fp16")
        element = 4 if precision == "fp32" else 2
        weights = weight_bytes(arch, parameters, precision)
        trainable = parameters
        grads, opt = trainable * element, trainable * (state_32 if element == 4 else state_16)
    else:
        if arch is None:
            raise ValueError("LoRA/QLoRA sizes need the model architecture")
        element = 2
        weights_precision = "nf4" if method == "qlora" else precision
        trainable = lora_parameters(arch, lora_rank, lora_targets)
        weights = weight_bytes(arch, None, weights_precision) + 4 * trainable
        grads, opt = 4 * trainable, state_32 * trainable
    step = grads
    if sharding in ("zero1", "zero2", "zero3", "fsdp"):
        opt //= shards
    if sharding in ("zero2", "zero3", "fsdp"):
        grads //= shards
        step //= shards
    if sharding in ("zero3", "fsdp"):
        weights //= shards
    acts = (
        0
        if arch is None
        else activation_bytes(
            arch,
            tokens,
            element,
            checkpointing=checkpointing,
            lora_rank=None if method == "full" else lora_rank,
            lora_targets=lora_targets,
        )
    )
    return _Breakdown(weights, grads, opt, acts, step, trainable)


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
    lora_targets: str = "all_linear",
) -> TrainingEstimate:
    """Peak memory per GPU for one training step, with the full / LoRA / QLoRA alternatives.

    Without an architecture only full training is sized and activations are unknown (None).
    """
    precision = check_precision(precision)
    optimizer = (optimizer or "adamw").lower()
    for value, allowed, what in (
        (method, METHODS, "method"),
        (sharding, SHARDING, "sharding"),
        (optimizer, tuple(OPTIMIZER_STATE_BYTES), "optimizer"),
        (lora_targets, LORA_TARGETS, "lora_targets"),
    ):
        if value not in allowed:
            raise ValueError(f"unknown {what} {value!r}; expected one of {list(allowed)}")
    if min(micro_batch, sequence_length, world_size, gpus_per_node, lora_rank) < 1:
        raise ValueError("micro_batch, sequence_length, world_size, gpus_per_node, lora_rank >= 1")
    if arch is None and parameters is None:
        raise ValueError("need an architecture or a parameter count")
    count = arch.parameters if arch else round(parameters or 0)
    tokens = micro_batch * sequence_length

    def size(m: str, p: str) -> _Breakdown:
        return _breakdown(
            arch,
            count,
            m,
            p,
            optimizer,
            sharding,
            world_size,
            tokens,
            gradient_checkpointing,
            lora_rank,
            lora_targets,
        )

    chosen = size(method, precision)
    compute = precision if precision in ("fp32", "bf16", "fp16") else "bf16"
    adapters = {m: size(m, compute).required if arch else None for m in ("lora", "qlora")}
    available = gpu.usable_bytes
    return TrainingEstimate(
        parameters=count,
        trainable_parameters=chosen.trainable,
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
        weights_bytes=chosen.weights,
        gradients_bytes=chosen.gradients,
        optimizer_bytes=chosen.optimizer,
        activation_bytes=chosen.activations if arch else None,
        step_workspace_bytes=chosen.step_workspace,
        overhead_bytes=RUNTIME_OVERHEAD_BYTES,
        kv_cache_bytes=None,
        kv_cache_bytes_per_token=None,
        required_bytes=chosen.required,
        available_bytes=available,
        fits=chosen.required <= available,
        headroom_fraction=(available - chosen.required) / available,
        full_required_bytes=size("full", compute).required,
        lora_required_bytes=adapters["lora"],
        qlora_required_bytes=adapters["qlora"],
    )
