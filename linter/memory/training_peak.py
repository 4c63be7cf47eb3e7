"""The most one training step holds at once, phase by phase, with every term named.

A step allocates in this order (the loop Hugging Face's Trainer runs: forward with the model's
own causal-LM loss, ``loss.backward()``, ``optimizer.step()``, ``zero_grad(set_to_none=True)``):

- forward, at the loss: what the layers keep for backward (only each layer's input under
  gradient checkpointing, ``torch.utils.checkpoint`` non-reentrant), the lm_head's logits in the
  compute dtype, their fp32 copy (transformers ``loss/loss_utils.py`` ``ForCausalLMLoss``:
  ``logits.float()``) and ``log_softmax``'s fp32 output, which cross-entropy keeps; the final
  hidden state is still referenced by the model's output; under autocast every 16-bit weight
  copy stays cached until the forward returns.
- loss backward: ``nll_loss``'s gradient, the kept ``log_softmax`` output and its gradient: three
  fp32 tensors of tokens x vocabulary at once. With small vocabularies or large layers the peak
  moves on.
- inside a checkpointed layer's forward, where peft builds LoRA'd experts' merged weights whole.
- backward through a layer: a checkpointed layer re-runs its forward and keeps what it keeps
  without checkpointing, gradients accumulate layer by layer, and the layer's worst moment holds
  what it kept less what autograd has freed by then, plus what is in flight and the gradients
  made by then (:func:`linter.memory.training_backward.layer_backward`); evaluated at the first
  layer the backward reaches and at the last, where the gradients are largest.
- a trained input embedding's backward, last: every gradient and the kernel's buffers.
- optimizer step: every gradient plus the step's buffer (foreach AdamW's ``sqrt(exp_avg_sq)``).

A loop that keeps the model output (``outputs = model(**batch)`` then ``outputs.loss.backward()``,
as accelerate's examples and the reference measurements do) holds its logits until the next
step's forward returns, so every phase after the first step carries them (``held_logits``);
Trainer's ``compute_loss`` returns the loss alone and drops them.

Outside PyTorch's allocator the CUDA context takes its share (per GPU in the catalogue, measured
on an H200), and cuBLAS keeps one workspace per thread that multiplies (forward and autograd's
backward thread; torch ``CublasHandlePool.cpp``: 32 MiB on compute capability 9.0 and newer,
4096 x 2 + 16 x 8 KiB before) through the caching allocator.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from linter.memory.architecture import Architecture
from linter.memory.lora import LoraConfig, adapter_rank
from linter.memory.training_activations import (
    ActivationSetting,
    LayerSaved,
    layers_saved,
    merge_terms,
    norm_bytes,
)
from linter.memory.training_backward import layer_backward
from linter.memory.training_layout import layer_layout_counts
from linter.memory.training_regime import Regime
from linter.memory.training_state import ModelState
from linter.records import datarecord

MIB = 1 << 20
#: Terms that are model state, and the runtime's; the rest of a peak is activations and
#: transients.
STATE_TERMS = ("weights", "adapter_weights", "gradients", "optimizer_states", "gathered_weights")
RUNTIME_TERMS = ("cuda_context", "cublas_workspaces")
#: cuBLAS workspaces: threads that multiply (the forward's and autograd's backward thread).
CUBLAS_THREADS = 2
#: Loss tensors of tokens x vocabulary alive at the loss's backward: nll_loss's gradient,
#: the kept log_softmax output and its gradient, each fp32.
LOSS_BACKWARD_FP32 = 3
#: The embedding's backward on CUDA (torch ``native/cuda/Embedding.cu`` and
#: ``EmbeddingBackwardKernel.cu``), per token: the sorted and original indices and four index
#: vectors of the segment sums (int64 each), and one fp32 partial sum per element.
EMBEDDING_BACKWARD_INDEX_BYTES = 6 * 8
EMBEDDING_BACKWARD_PARTIAL_BYTES = 4
#: Models x activation settings whose decoder layers are remembered: a run trains a few models
#: at a few batch and sequence sizes, each for many workloads, GPUs and alternatives.
REMEMBERED_LAYERS = 256


@datarecord
class Phase:
    """What is allocated at one moment of the step, by term."""

    name: str
    terms: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.terms.values())


def cublas_workspace_bytes(compute_capability: str | None) -> int:
    """One cuBLAS workspace as torch sizes it for the GPU."""
    major = int((compute_capability or "0.0").split(".")[0])
    return 32 * MIB if major >= 9 else 4096 * 2 * 1024 + 16 * 8 * 1024


def _sum_layers(layers: Iterable[LayerSaved], tokens: int) -> dict[str, int]:
    return merge_terms(*(layer.terms(tokens) for layer in layers))


@datarecord
class StepShape:
    """What the phases need beyond the model state."""

    setting: ActivationSetting
    checkpointing: bool
    held_logits: bool
    cublas_workspace: int
    #: Gradients stay allocated between steps (gradient accumulation over micro-batches, or
    #: ``zero_grad(set_to_none=False)``), so every phase holds all of them.
    gradients_persist: bool = False

    @property
    def tokens(self) -> int:
        return self.setting.batch * self.setting.sequence


def _loss_terms(arch: Architecture, shape: StepShape) -> dict[str, dict[str, int]]:
    """Named per-phase pieces around the decoder layers: final norm, logits, loss."""
    regime, tokens = shape.setting.regime, shape.tokens
    h, vocab = arch.hidden_size, arch.vocab_size
    c, residual = regime.compute_bytes, regime.residual_bytes
    final = norm_bytes(arch, h, 1, regime, True, residual)
    if regime.base_trainable:
        final += (2 if regime.autocast else residual) * h  # lm_head's input (or its cast)
    logits = c * vocab * tokens
    fp32_copy = 4 * vocab * tokens if c < 4 else 0
    head_copy = 2 * vocab * h if regime.autocast else 0
    # the model output still references the final hidden state during the loss, unless the
    # lm_head keeps that very tensor (full training without autocast)
    last_hidden = 0 if regime.base_trainable and not regime.autocast else residual * h * tokens
    return {
        "final": {"final_norm": final * tokens, "autocast_weight_copies": head_copy},
        "forward": {
            "last_hidden_state": last_hidden,
            "logits": logits,
            "loss_fp32": fp32_copy + 4 * vocab * tokens,
        },
        "backward": {"loss_fp32": LOSS_BACKWARD_FP32 * 4 * vocab * tokens},
        "held": {"held_logits": logits if shape.held_logits else 0},
    }


def _norm_keeps(regime: Regime, index: int) -> int:
    """1 when layer ``index``'s first norm keeps the layer's input itself: an fp32 residual
    stream makes ``hidden_states.to(torch.float32)`` a no-op, so the tensor a checkpointed
    layer keeps as its input is the one its recomputed norm saves (counted there)."""
    return int(regime.residual_bytes == 4 and (regime.base_trainable or index > 0))


@datarecord
class DecoderLayers:
    """What the decoder layers hold in the phases of a step, by term (read these, never change
    them: they are shared)."""

    #: Through the forward and the loss: every layer's saved tensors (or checkpointed inputs).
    kept: dict[str, int]
    #: At the loss: ``kept`` and autocast's weight copies, cached until the forward returns.
    forward_kept: dict[str, int]
    #: At the worst moment of the last layer's backward, and of the first layer's.
    top_kept: dict[str, int]
    bottom_kept: dict[str, int]
    #: Gradients of the last (first) layer not made yet at that moment.
    top_pending: int
    bottom_pending: int
    #: peft's merged expert weights one layer's forward builds whole (0: none).
    merged_expert_weights: int


@functools.lru_cache(maxsize=REMEMBERED_LAYERS)
def decoder_layers(
    arch: Architecture, setting: ActivationSetting, checkpointing: bool
) -> DecoderLayers:
    """:class:`DecoderLayers` of the model at ``setting``: the same for every workload, GPU,
    sharding and alternative that trains it so, hence remembered."""
    regime, tokens = setting.regime, setting.batch * setting.sequence
    layers = arch.num_hidden_layers
    saved = layers_saved(arch, setting)
    top_peak = layer_backward(arch, layers - 1, setting, checkpointing)
    bottom_peak = layer_backward(arch, 0, setting, checkpointing)
    top, bottom = top_peak.held.terms(tokens), bottom_peak.held.terms(tokens)
    if checkpointing:
        one = tokens * arch.hidden_size * regime.residual_bytes
        kept = {"checkpointed_inputs": layers * one}
        copies = sum(layer.per_layer.get("autocast_weight_copies", 0) for layer in saved)
        forward_kept = merge_terms(kept, {"autocast_weight_copies": copies})
        top_kept = merge_terms(
            kept, {"checkpointed_inputs": -_norm_keeps(regime, layers - 1) * one}, top
        )
        bottom_kept = merge_terms(
            {"checkpointed_inputs": (1 - _norm_keeps(regime, 0)) * one}, bottom
        )
    else:
        kept = forward_kept = _sum_layers(saved, tokens)
        top_kept = merge_terms(_sum_layers(saved[:-1], tokens), top)
        bottom_kept = bottom
    merged = max(layer.per_layer.get("merged_expert_weights", 0) for layer in saved)
    return DecoderLayers(
        kept,
        forward_kept,
        top_kept,
        bottom_kept,
        top_peak.pending_gradients,
        bottom_peak.pending_gradients,
        merged,
    )


def step_phases(arch: Architecture, state: ModelState, shape: StepShape) -> list[Phase]:
    """Every candidate peak of one step (steps after the first: optimizer state exists)."""
    base = {
        "weights": state.weights,
        "adapter_weights": state.adapter_weights,
        "optimizer_states": state.optimizer_states,
        "gathered_weights": state.gathered_weights,
        "cublas_workspaces": CUBLAS_THREADS * shape.cublas_workspace,
    }
    layers = decoder_layers(arch, shape.setting, shape.checkpointing)
    loss = _loss_terms(arch, shape)
    held = loss["held"]
    bottom_gradients = max(0, state.gradients - state.embedding_gradients - layers.bottom_pending)
    top_gradients = min(
        state.gradients,
        state.head_gradients + state.layer_gradients - layers.top_pending,
    )
    if shape.gradients_persist:
        base = merge_terms(base, {"gradients": state.gradients})
        bottom_gradients = top_gradients = 0
    return [
        Phase(
            "forward (loss)",
            merge_terms(base, layers.forward_kept, loss["final"], loss["forward"], held),
        ),
        *_layer_forward_phase(shape, layers, base, held),
        Phase(
            "loss backward",
            merge_terms(base, layers.kept, loss["final"], loss["backward"], held),
        ),
        Phase(
            "backward (last layer)",
            merge_terms(base, layers.top_kept, {"gradients": top_gradients}, held),
        ),
        Phase(
            "backward (first layer)",
            merge_terms(base, layers.bottom_kept, {"gradients": bottom_gradients}, held),
        ),
        *_embedding_phase(arch, state, shape, base, held),
        Phase(
            "optimizer step",
            merge_terms(
                {**base, "gradients": state.gradients},
                {"optimizer_step": state.step_buffer},
                held,
            ),
        ),
    ]


def _layer_forward_phase(
    shape: StepShape, layers: DecoderLayers, base: dict[str, int], held: dict[str, int]
) -> list[Phase]:
    """Inside a checkpointed layer's forward: the inputs kept so far and what the forward builds
    whole however little it keeps, peft's merged expert weights (``_LoraFactorsProxy``, both
    stacks), which the phase at the loss no longer holds."""
    merged = layers.merged_expert_weights
    if not shape.checkpointing or not merged:
        return []
    return [
        Phase(
            "forward (layer)",
            merge_terms(base, layers.kept, {"merged_expert_weights": merged}, held),
        )
    ]


def _embedding_phase(
    arch: Architecture,
    state: ModelState,
    shape: StepShape,
    base: dict[str, int],
    held: dict[str, int],
) -> list[Phase]:
    """A trained input embedding's backward, last: every gradient made, the gradient reaching
    the embedding and the kernel's segment sums; a tied embedding's gradient is a new tensor
    until AccumulateGrad adds it to the lm_head's."""
    regime = shape.setting.regime
    if not regime.base_trainable:
        return []
    h = arch.hidden_size
    per_token = (
        regime.residual_bytes * h
        + EMBEDDING_BACKWARD_PARTIAL_BYTES * h
        + EMBEDDING_BACKWARD_INDEX_BYTES
    )
    tied = state.head_gradients if arch.tie_word_embeddings else 0
    gradients = {} if shape.gradients_persist else {"gradients": state.gradients}
    return [
        Phase(
            "backward (embedding)",
            merge_terms(
                base, gradients, {"embedding_backward": per_token * shape.tokens + tied}, held
            ),
        )
    ]


def peak_phase(phases: list[Phase]) -> Phase:
    """The phase holding the most (the first of equals, in step order)."""
    return max(phases, key=lambda phase: phase.total)


#: The caching allocator rounds each large segment up to 2 MiB (c10/cuda/CUDACachingAllocator.cpp
#: ``kRoundLarge``) and cannot return a segment while a block in it lives, nor hand its tail to
#: a larger request: half that granule per live large block is expected to be stranded. Blocks
#: under ``kSmallSize`` (1 MiB) share 2 MiB segments and strand next to nothing.
FRAGMENT_PER_BLOCK = MIB
LARGE_BLOCK = MIB
#: Tensors a decoder layer keeps for backward in the traces behind
#: :mod:`linter.memory.training_activations` (norm inputs, projection inputs, q/k/v, output and
#: log-sum-exp, MLP factors), besides one per adapted projection: 15 to 20.
SAVED_PER_LAYER = 16
#: Tensors per trained parameter of each model-state term (AdamW: two moments).
_BLOCKS_PER_TERM = {"gradients": 1, "optimizer_states": 2, "optimizer_step": 1}


def _large(elements: int, element_bytes: int) -> int:
    return 1 if elements * element_bytes >= LARGE_BLOCK else 0


def _large_blocks(matrices: list[tuple[int, int]], element_bytes: int) -> int:
    """How many of the (elements, count) matrices are large blocks."""
    return sum(count * _large(elements, element_bytes) for elements, count in matrices)


@datarecord
class _StateBlocks:
    """Large blocks of the model state, by what holds them."""

    #: The weights, in their stored dtype.
    weights: int
    #: peft's adapters (``lora_A`` and ``lora_B`` of each adapted projection).
    adapters: int
    #: What is trained (every weight in full training, else the adapters), once per term.
    trained: int
    #: Adapted projections per layer (each keeps one more tensor for backward).
    adapted_per_layer: int


@functools.lru_cache(maxsize=REMEMBERED_LAYERS)
def _state_blocks(arch: Architecture, lora: LoraConfig | None, regime: Regime) -> _StateBlocks:
    """Counted over each layout's projections once, times its layers: the same for every
    phase, batch and sequence, hence remembered."""
    weight_bytes = regime.param_bytes if regime.base_trainable else 2
    trained_bytes = regime.param_bytes
    # (elements, how many such matrices)
    matrices: list[tuple[int, int]] = [
        (arch.token_embedding_parameters, 1 if arch.tie_word_embeddings else 2)
    ]
    adapters: list[tuple[int, int]] = []
    adapted_per_layer = 0
    for layout, layers in layer_layout_counts(arch):
        for projection in layout.projections:
            matrices.append((projection.parameters, layers))
            rank = adapter_rank(arch, lora, projection) if lora else 0
            if rank:
                experts = max(1, projection.experts)
                adapters.append((rank * experts * projection.in_features, layers))
                adapters.append((rank * experts * projection.out_features, layers))
                adapted_per_layer += layers
    trained = matrices if regime.base_trainable else adapters
    return _StateBlocks(
        _large_blocks(matrices, weight_bytes),
        _large_blocks(adapters, trained_bytes),
        _large_blocks(trained, trained_bytes),
        adapted_per_layer,
    )


def fragmentation_bytes(arch: Architecture, phase: Phase, shape: StepShape) -> int:
    """Allocator slack at ``phase``: a stranded half-granule per live large block."""
    regime = shape.setting.regime
    state = _state_blocks(arch, shape.setting.lora, regime)
    blocks = state.weights
    if phase.terms.get("adapter_weights"):
        blocks += state.adapters
    for term, per in _BLOCKS_PER_TERM.items():
        if phase.terms.get(term):
            blocks += per * state.trained
    kept_layers = 1 if shape.checkpointing else arch.num_hidden_layers
    activation = shape.tokens * arch.hidden_size * regime.compute_bytes >= LARGE_BLOCK
    if activation and phase.terms.get("held_logits"):
        blocks += 1
    not_activations = (*STATE_TERMS, *RUNTIME_TERMS, *_BLOCKS_PER_TERM, "held_logits")
    if activation and any(name not in not_activations for name in phase.terms):
        per_layer = SAVED_PER_LAYER + state.adapted_per_layer // arch.num_hidden_layers
        blocks += per_layer * kept_layers
    return blocks * FRAGMENT_PER_BLOCK
