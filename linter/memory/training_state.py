"""Model state of one training step per GPU: weights, adapters, gradients, optimizer state.

Full training holds every parameter at the regime's width (fp32 master weights under mixed
precision, 16-bit in pure 16-bit training) with a gradient of the same dtype and the optimizer's
state (:mod:`linter.memory.training_regime`). LoRA and QLoRA hold the frozen base in its storage
format (:func:`linter.memory.weights.weight_bytes`: NF4 with double quantisation for QLoRA, the
embeddings, norms and lm_head at 16 bits) plus fp32 adapters with fp32 gradients and state.

Sharding divides over the data-parallel ranks (Rajbhandari et al. 2020, ZeRO): ZeRO-1 the
optimizer state (and the step's buffer, computed per shard), ZeRO-2 also the gradients, ZeRO-3 and
FSDP also the weights, which they all-gather one layer at a time; the gathered copy of the layer
being computed and of the one prefetched next (FSDP's default ``forward_prefetch``/
``BACKWARD_PRE``) are held beside the shard.
"""

from __future__ import annotations

import functools

from linter.memory.architecture import Architecture
from linter.memory.lora import LoraConfig, adapter_parameters, adapter_rank
from linter.memory.training_layout import REMEMBERED, layer_layout
from linter.memory.training_regime import Regime
from linter.memory.weights import weight_bytes
from linter.records import datarecord

SHARDING = ("none", "zero1", "zero2", "zero3", "fsdp")
_SHARDS_STATE = ("zero1", "zero2", "zero3", "fsdp")
_SHARDS_GRADIENTS = ("zero2", "zero3", "fsdp")
_SHARDS_WEIGHTS = ("zero3", "fsdp")
#: Layers ZeRO-3/FSDP hold gathered at once: the one computing and the one prefetched.
GATHERED_LAYERS = 2


@datarecord
class ModelState:
    """Per-GPU bytes of the model state, and the gradients by when backward produces them."""

    trainable: int
    weights: int
    adapter_weights: int
    optimizer_states: int
    gradients: int
    #: Gradients of the lm_head (untied) produced before the decoder layers' backward.
    head_gradients: int
    #: Gradients of the input embedding, produced last (0 when tied to the lm_head).
    embedding_gradients: int
    #: Gradients of one decoder layer.
    layer_gradients: int
    step_buffer: int
    gathered_weights: int


@functools.lru_cache(maxsize=4 * REMEMBERED)
def _layer_trainable(arch: Architecture, regime: Regime, lora: LoraConfig | None) -> int:
    layout = layer_layout(arch, arch.num_hidden_layers - 1)
    if regime.base_trainable:
        return sum(p.parameters for p in layout.projections)
    assert lora is not None
    return sum(adapter_parameters(p, adapter_rank(arch, lora, p)) for p in layout.projections)


@functools.lru_cache(maxsize=4 * REMEMBERED)
def _frozen_weights(arch: Architecture, precision: str) -> int:
    """The frozen base's bytes, the same for every workload that adapts the model."""
    return weight_bytes(arch, None, precision)


def model_state(
    arch: Architecture | None,
    parameters: int,
    regime: Regime,
    lora: LoraConfig | None,
    trainable: int,
    sharding: str,
    world_size: int,
) -> ModelState:
    """The model state on one GPU of ``world_size`` under ``sharding``."""
    shards = world_size if sharding != "none" else 1
    if regime.base_trainable:
        weights = parameters * regime.param_bytes
        adapters = 0
    else:
        assert arch is not None
        weights = _frozen_weights(arch, regime.base_precision)
        adapters = trainable * regime.param_bytes
    grad = regime.grad_bytes
    full = regime.base_trainable and arch is not None
    # the lm_head's gradient comes first; an untied input embedding's last
    embedding = arch.token_embedding_parameters if arch is not None and full else 0
    untied = embedding if arch is not None and not arch.tie_word_embeddings else 0
    layer = _layer_trainable(arch, regime, lora) if arch else 0
    states = trainable * regime.state_bytes
    step = trainable * regime.step_bytes
    gradients = trainable * grad
    gathered = 0
    if sharding in _SHARDS_STATE:
        states, step = -(-states // shards), -(-step // shards)
    if sharding in _SHARDS_GRADIENTS:
        gradients = -(-gradients // shards)
    if sharding in _SHARDS_WEIGHTS:
        weights, adapters = -(-weights // shards), -(-adapters // shards)
        if arch is not None and shards > 1:
            layer_weights = sum(p.parameters for p in layer_layout(arch, 0).projections)
            gathered = GATHERED_LAYERS * layer_weights * (regime.param_bytes if full else 2)
    return ModelState(
        trainable=trainable,
        weights=weights,
        adapter_weights=adapters,
        optimizer_states=states,
        gradients=gradients,
        head_gradients=embedding * grad,
        embedding_gradients=untied * grad,
        layer_gradients=layer * grad,
        step_buffer=step,
        gathered_weights=gathered,
    )
