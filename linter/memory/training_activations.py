"""What one decoder layer keeps for backward, term by term, under SDPA.

Autograd keeps a tensor only when a backward formula needs it for an input that requires grad
(torch ``tools/autograd/derivatives.yaml``; the generated code saves ``self`` of ``mm`` only when
the weight needs a gradient), so a frozen base (LoRA) keeps far less than full training, and
peft's adapters keep their own. Per token, in the layer order of transformers 5's Llama-family
modelling code:

- RMSNorm (``LlamaRMSNorm``: ``x.to(float32)``, ``x * rsqrt(mean(x^2))``, ``weight * x.to(dtype)``)
  keeps the fp32 input and one rsqrt per row when its input needs a gradient, and the normalized
  tensor when its weight is trained (Gemma's ``(1 + weight)`` form keeps it in fp32).
- Projections with trained weights keep their input: one tensor for the q/k/v (or gate/up)
  projections reading the same norm output; under autocast each keeps its own 16-bit cast of the
  fp32 input and the 16-bit copy of its weight (``autocast_mode.cpp`` ``cached_cast``).
- SDPA keeps q (after RoPE), k, v, the output and the fp32 log-sum-exp per head
  (``_scaled_dot_product_flash_attention`` / ``_efficient_attention`` backward inputs).
  transformers' ``sdpa_attention_forward`` passes ``enable_gqa`` when there is no mask, so k and v
  stay at the key/value width; a layer whose window is shorter than the sequence gets a boolean
  mask (``masking_utils._ignore_causal_mask_sdpa``), ``repeat_kv`` copies k and v to the query
  width (a view when there is one key/value head) and SDPA keeps the mask as an additive bias of
  the query dtype, one per layer (measured on Phi-3 and Gemma 3). ``o_proj`` reads the SDPA
  output itself. Fused ``qkv_proj`` (Phi-3, Falcon) hands SDPA a view of its output as v, which
  keeps the whole fused output alive.
- Gated MLP: SiLU/GELU keep their input (the gate output), the product keeps both factors and
  ``down_proj`` its input when trained.
- Routed experts (``integrations/moe.py`` ``grouped_mm_experts_forward``, the default experts
  implementation): top-k indices, fp32 router probabilities, three int64 sort/gather index
  vectors per token-expert pair, the gate_up output, the activation, the down output (kept by the
  routing-weight product) and the routing weights; with trained expert weights also the gathered
  input and the down input. ``grouped_mm`` is not an autocast op, so experts compute in the
  weight dtype (fp32 under mixed precision).
- peft's ``lora.Linear`` casts its input to the adapter's fp32 (``_cast_input_dtype``) and keeps
  that cast for ``lora_A`` and ``lora_A``'s output for ``lora_B``; dropout > 0 keeps its output
  instead of the cast plus a one-byte mask per element. A ``ParamWrapper`` over fused experts
  builds ``W + scaling * B @ A`` for the whole stack each forward (``_LoraFactorsProxy``:
  ``torch.baddbmm``), and ``grouped_mm`` keeps that merged weight and the factors' casts.

Multi-head latent attention and state-space mixers are sized from their projections with the
same rules and an SDPA-like core; they were not measured.
"""

from __future__ import annotations

from dataclasses import field

from linter.memory.architecture import CHUNKED, SLIDING, Architecture
from linter.memory.lora import LoraConfig, adapter_rank
from linter.memory.training_layout import (
    ATTENTION_INPUT,
    ATTENTION_OUTPUT,
    MLP_INPUT,
    LayerLayout,
    Projection,
    layer_layout,
)
from linter.memory.training_regime import Regime
from linter.records import datarecord

#: int64 index vectors grouped_mm's dispatch keeps per token-expert pair (sort permutation,
#: gather index, inverse permutation).
_DISPATCH_INDEX_BYTES = 3 * 8
#: Gemma's RMSNorm multiplies by ``1 + weight`` in fp32 and casts back at the end.
_GEMMA_NORMS = ("gemma", "gemma2", "gemma3_text")
#: SDPA's efficient-attention kernel pads the mask's last dimension to a multiple of this.
_MASK_ALIGNMENT = 16


@datarecord(frozen=False)
class LayerSaved:
    """Bytes one layer keeps for backward: per token by term, and per layer (token-independent)."""

    per_token: dict[str, int] = field(default_factory=dict)
    per_layer: dict[str, int] = field(default_factory=dict)

    def add(self, term: str, per_token: int = 0, per_layer: int = 0) -> None:
        if per_token:
            self.per_token[term] = self.per_token.get(term, 0) + per_token
        if per_layer:
            self.per_layer[term] = self.per_layer.get(term, 0) + per_layer

    def terms(self, tokens: int) -> dict[str, int]:
        out = {name: value * tokens for name, value in self.per_token.items()}
        for name, value in self.per_layer.items():
            out[name] = out.get(name, 0) + value
        return out


def merge_terms(*parts: dict[str, int]) -> dict[str, int]:
    """Bytes by term, summed over ``parts``; terms that come to nothing are left out."""
    out: dict[str, int] = {}
    for part in parts:
        for name, value in part.items():
            out[name] = out.get(name, 0) + value
    return {name: value for name, value in out.items() if value}


@datarecord
class ActivationSetting:
    """What the activation rules depend on besides the architecture."""

    regime: Regime
    lora: LoraConfig | None
    batch: int
    sequence: int


def norm_bytes(
    arch: Architecture, width: int, rows: int, regime: Regime, input_grad: bool, input_bytes: int
) -> int:
    """Per token: what an RMSNorm over ``width`` (``rows`` rsqrt values) keeps."""
    kept = 4 * width + 4 * rows if input_grad else 0
    if regime.base_trainable:
        gemma = arch.model_type in _GEMMA_NORMS
        kept += width * (4 if gemma else input_bytes)
    return kept


def _masked(arch: Architecture, index: int, sequence: int) -> bool:
    """Whether transformers builds a mask for this layer (its window is within the sequence)."""
    kind = arch.layer_types[index] if arch.layer_types else None
    window = arch.sliding_window if kind == SLIDING else None
    if kind == CHUNKED:
        window = arch.attention_chunk_size
    if arch.model_type == "phi3":
        window = arch.training_sliding_window
    return window is not None and sequence >= window


def _attention_core(
    arch: Architecture, index: int, s: ActivationSetting, saved: LayerSaved
) -> None:
    regime = s.regime
    c = regime.compute_bytes
    heads, kv_heads = arch.num_attention_heads, arch.num_key_value_heads
    q, kv = arch.q_dim, arch.kv_dim
    masked = _masked(arch, index, s.sequence)
    repeated = masked and kv_heads < heads and (kv_heads > 1 or regime.autocast)
    k_width = q if repeated else kv
    saved.add("attention", c * (2 * q + 2 * k_width) + 4 * heads)
    if arch.fused_qkv and not repeated:
        saved.add("attention", c * (q + kv))  # v is a view of the fused qkv output
    if masked:
        aligned = -(-s.sequence // _MASK_ALIGNMENT) * _MASK_ALIGNMENT
        saved.add("attention_masks", c * aligned)
    if arch.qk_norm:
        q_rows, k_rows = (1, 1) if arch.qk_norm_full_width else (heads, kv_heads)
        q_grad, k_grad = (_output_grad(arch, index, s, name) for name in ("q_proj", "k_proj"))
        saved.add(
            "attention",
            norm_bytes(arch, q, q_rows, regime, q_grad, c)
            + norm_bytes(arch, kv, k_rows, regime, k_grad, c),
        )


def _output_grad(arch: Architecture, index: int, s: ActivationSetting, name: str) -> bool:
    """Whether a projection's output needs a gradient: always but in a frozen first layer,
    where only an adapted projection's does."""
    if s.regime.base_trainable or index > 0 or s.lora is None:
        return True
    projection = next(p for p in layer_layout(arch, index).mixer_projections if p.name == name)
    return adapter_rank(arch, s.lora, projection) > 0


def _latent_attention_core(arch: Architecture, s: ActivationSetting, saved: LayerSaved) -> None:
    regime = s.regime
    c = regime.compute_bytes
    heads = arch.num_attention_heads
    qk = heads * (arch.qk_nope_head_dim + arch.qk_rope_head_dim)
    v = heads * arch.v_head_dim
    saved.add("attention", c * (2 * qk + 2 * v) + 4 * heads)
    for width in (arch.q_lora_rank, arch.kv_lora_rank):
        if width:
            saved.add("norms", norm_bytes(arch, width, 1, regime, True, c) + c * width)


def _state_core(arch: Architecture, s: ActivationSetting, saved: LayerSaved) -> None:
    mixer = arch.state_mixer
    assert mixer is not None
    inner = mixer.state_heads * mixer.state_cols
    saved.add("attention", s.regime.compute_bytes * (3 * inner + mixer.conv_channels))


def _projection_inputs(
    arch: Architecture, layout: LayerLayout, s: ActivationSetting, saved: LayerSaved
) -> None:
    """Inputs the trained base projections keep (and autocast's casts and weight copies)."""
    regime = s.regime
    if not regime.base_trainable:
        return
    c, shared = regime.compute_bytes, set()
    linear = layout.mixer_projections + layout.mlp_projections
    linear += (layout.router,) if layout.router else ()  # the router's input too
    for projection in linear:
        fp32_input = projection.reads in (ATTENTION_INPUT, MLP_INPUT)
        if regime.autocast:
            saved.add("autocast_weight_copies", per_layer=2 * projection.parameters)
            if fp32_input:
                saved.add("projection_inputs", 2 * projection.in_features)
                continue
        if projection.reads == ATTENTION_OUTPUT or projection.reads in shared:
            continue
        shared.add(projection.reads)
        width = regime.residual_bytes if fp32_input else c
        saved.add("projection_inputs", width * projection.in_features)


def _mlp(arch: Architecture, layout: LayerLayout, s: ActivationSetting, saved: LayerSaved) -> None:
    """Gate output, activation and up output of the dense MLP or the shared experts."""
    c = s.regime.compute_bytes
    mlp = [p for p in layout.mlp_projections if p.reads == MLP_INPUT and p.out_features > 1]
    if not mlp:
        return
    intermediate = next(p.in_features for p in layout.mlp_projections if p.reads != MLP_INPUT)
    factors = 3 if (arch.gated_mlp or arch.model_type == "phi3") else 1
    saved.add("mlp", factors * c * intermediate)


def _experts(
    arch: Architecture, layout: LayerLayout, s: ActivationSetting, saved: LayerSaved
) -> None:
    regime, lora = s.regime, s.lora
    c = regime.compute_bytes
    width = 4 if regime.autocast else c  # grouped_mm runs in the expert weights' dtype
    k, h, i = arch.experts_per_token, arch.hidden_size, arch.moe_intermediate_size
    router = layout.router
    assert router is not None
    router_rank = adapter_rank(arch, lora, router) if lora else 0
    routing = 4 * arch.num_experts + 8 * k
    if router_rank and not regime.base_trainable:
        routing += c * h  # the merged router weight needs its input (full: a projection input)
    saved.add("moe_routing", routing)
    expert_ranks = [adapter_rank(arch, lora, p) if lora else 0 for p in layout.experts]
    experts_trained = regime.base_trainable or any(expert_ranks)
    pair = _DISPATCH_INDEX_BYTES + width * (2 * i + i + h) + c
    if experts_trained:
        pair += width * (h + i)
    saved.add("expert_dispatch", k * pair)
    if router_rank:
        saved.add("merged_expert_weights", per_layer=c * router.parameters)
    for projection, rank in zip(layout.experts, expert_ranks, strict=True):
        if rank:
            factors = rank * projection.experts * (projection.in_features + projection.out_features)
            saved.add("merged_expert_weights", per_layer=c * (projection.parameters + factors))


def adapter_kept(projection: Projection, rank: int, lora: LoraConfig) -> int:
    """Per token: what peft's ``lora.Linear`` keeps for one adapted projection (its input's fp32
    cast, or dropout's fp32 output and boolean mask, and ``lora_A``'s output)."""
    kept = 4 * projection.in_features + 4 * rank
    if lora.lora_dropout > 0:
        kept += projection.in_features  # dropout's boolean mask beside its fp32 output
    return kept


def _adapters(
    arch: Architecture, layout: LayerLayout, s: ActivationSetting, saved: LayerSaved
) -> None:
    lora = s.lora
    if lora is None:
        return
    for projection in layout.mixer_projections + layout.mlp_projections:
        rank = adapter_rank(arch, lora, projection)
        if rank:
            saved.add("adapter_activations", adapter_kept(projection, rank, lora))
    if layout.router is not None and arch.model_type == "llama4_text":
        rank = adapter_rank(arch, lora, layout.router)
        if rank:
            saved.add("adapter_activations", 4 * layout.router.in_features + 4 * rank)


def layers_saved(arch: Architecture, setting: ActivationSetting) -> list[LayerSaved]:
    """:func:`layer_saved` of every decoder layer, computed once per :func:`layer_kind` (the
    layers of one kind share one record: read it, never change it)."""
    by_kind: dict[tuple[str | None, bool, bool], LayerSaved] = {}
    out = []
    for index in range(arch.num_hidden_layers):
        kind = layer_kind(arch, index)
        if kind not in by_kind:
            by_kind[kind] = layer_saved(arch, index, setting)
        out.append(by_kind[kind])
    return out


def layer_kind(arch: Architecture, index: int) -> tuple[str | None, bool, bool]:
    """All that :func:`layer_saved` reads of ``index``: the layer's type (its mixer and
    attention window), whether it is the first layer, and whether its MLP is routed experts."""
    kind = arch.layer_types[index] if arch.layer_types else None
    return kind, index == 0, arch.is_moe and index >= arch.dense_layers


def layer_saved(arch: Architecture, index: int, setting: ActivationSetting) -> LayerSaved:
    """What decoder layer ``index`` keeps for backward once its forward has run (it reads the
    index only as :func:`layer_kind` says: keep the two in step)."""
    regime = setting.regime
    layout = layer_layout(arch, index)
    saved = LayerSaved()
    # a frozen embedding feeds layer 0 without a gradient: its first norm keeps nothing
    first_input_grad = regime.base_trainable or index > 0
    residual = regime.residual_bytes
    h = arch.hidden_size
    norms = norm_bytes(arch, h, 1, regime, first_input_grad, residual)
    norms += (arch.norms_per_layer - 1) * norm_bytes(arch, h, 1, regime, True, residual)
    saved.add("norms", norms)
    _projection_inputs(arch, layout, setting, saved)
    if layout.mixer == "attention":
        _attention_core(arch, index, setting, saved)
    elif layout.mixer == "latent_attention":
        _latent_attention_core(arch, setting, saved)
    else:
        _state_core(arch, setting, saved)
    _mlp(arch, layout, setting, saved)
    if layout.is_moe:
        _experts(arch, layout, setting, saved)
    _adapters(arch, layout, setting, saved)
    return saved
