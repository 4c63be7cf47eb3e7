"""The linear projections of one decoder layer as transformers 5 builds them, by module name.

Training memory follows the modules autograd sees, so each layer is listed the way the modelling
code writes it: Llama-style attention ``q_proj``/``k_proj``/``v_proj``/``o_proj`` (Phi-3 fuses
``qkv_proj``; Falcon ``query_key_value`` and ``dense``); gated MLPs ``gate_proj``/``up_proj``/
``down_proj`` (Phi-3 ``gate_up_proj``; Falcon ``dense_h_to_4h``/``dense_4h_to_h``); DeepSeek's
multi-head latent attention ``q_a_proj``/``q_b_proj``/``kv_a_proj_with_mqa``/``kv_b_proj``/
``o_proj``; state-space mixers their ``in_proj``/``out_proj`` pair. Routed experts are fused 3-D
parameters in transformers 5 (``experts.gate_up_proj`` ``[E, 2I, h]`` and ``experts.down_proj``
``[E, h, I]``, e.g. ``models/qwen3_moe/modeling_qwen3_moe.py`` ``Qwen3MoeExperts``) and the
router holds a ``[E, h]`` weight (an ``nn.Linear`` only in Llama 4). ``reads`` names the tensor a
projection takes, so projections reading the same tensor share what they keep for backward.
"""

from __future__ import annotations

import functools
from collections import Counter

from linter.memory.architecture import STATE, Architecture
from linter.records import datarecord

#: What a projection reads: the attention block's normed input, the attention output, the MLP
#: block's normed input, the gated product inside the MLP, or an inner latent (MLA, mixers).
ATTENTION_INPUT = "attention_input"
ATTENTION_OUTPUT = "attention_output"
MLP_INPUT = "mlp_input"
MLP_PRODUCT = "mlp_product"
LATENT = "latent"

#: transformers' module names where a model type departs from Llama's: one fused q/k/v
#: projection and its output (phi3, falcon, GPT-2's Conv1D ``c_attn``), OPT's ``out_proj``, and
#: the two matrices of a plain (ungated) MLP.
_FUSED_ATTENTION = {
    "phi3": ("qkv_proj", "o_proj"),
    "falcon": ("query_key_value", "dense"),
    "gpt2": ("c_attn", "c_proj"),
}
_OUTPUT_PROJECTION = {"opt": "out_proj"}
_PLAIN_MLP = {
    "falcon": ("dense_h_to_4h", "dense_4h_to_h"),
    "gpt2": ("c_fc", "c_proj"),
    "opt": ("fc1", "fc2"),
}


@datarecord
class Projection:
    """One weight matrix a layer multiplies by (``experts`` > 0: a fused stack of experts)."""

    name: str
    in_features: int
    out_features: int
    reads: str
    experts: int = 0

    @property
    def parameters(self) -> int:
        return max(1, self.experts) * self.in_features * self.out_features


@datarecord
class LayerLayout:
    """Projections of one decoder layer by block."""

    mixer: str  # "attention", "latent_attention" or "state"
    mixer_projections: tuple[Projection, ...]
    #: Dense MLP (or, in an MoE layer, the shared experts and their gate).
    mlp_projections: tuple[Projection, ...]
    #: Fused routed experts (gate_up, down); empty in a dense layer.
    experts: tuple[Projection, ...]
    router: Projection | None

    @property
    def is_moe(self) -> bool:
        return bool(self.experts)

    @property
    def projections(self) -> tuple[Projection, ...]:
        routed = (self.router,) if self.router else ()
        return self.mixer_projections + self.mlp_projections + routed + self.experts


def _attention(arch: Architecture) -> tuple[str, tuple[Projection, ...]]:
    h, q, kv = arch.hidden_size, arch.q_dim, arch.kv_dim
    if arch.is_mla:
        heads = arch.num_attention_heads
        qk = heads * (arch.qk_nope_head_dim + arch.qk_rope_head_dim)
        kv_a = arch.kv_lora_rank + arch.qk_rope_head_dim
        kv_b = heads * (arch.qk_nope_head_dim + arch.v_head_dim)
        query = (
            (
                Projection("q_a_proj", h, arch.q_lora_rank, ATTENTION_INPUT),
                Projection("q_b_proj", arch.q_lora_rank, qk, LATENT),
            )
            if arch.q_lora_rank
            else (Projection("q_proj", h, qk, ATTENTION_INPUT),)
        )
        return "latent_attention", (
            *query,
            Projection("kv_a_proj_with_mqa", h, kv_a, ATTENTION_INPUT),
            Projection("kv_b_proj", arch.kv_lora_rank, kv_b, LATENT),
            Projection("o_proj", heads * arch.v_head_dim, h, ATTENTION_OUTPUT),
        )
    gate = 2 if arch.attention_output_gate else 1
    if arch.model_type in _FUSED_ATTENTION:
        fused, out = _FUSED_ATTENTION[arch.model_type]
        return "attention", (
            Projection(fused, h, q + 2 * kv, ATTENTION_INPUT),
            Projection(out, q, h, ATTENTION_OUTPUT),
        )
    return "attention", (
        Projection("q_proj", h, gate * q, ATTENTION_INPUT),
        Projection("k_proj", h, kv, ATTENTION_INPUT),
        Projection("v_proj", h, kv, ATTENTION_INPUT),
        Projection(_OUTPUT_PROJECTION.get(arch.model_type, "o_proj"), q, h, ATTENTION_OUTPUT),
    )


def _state_mixer(arch: Architecture) -> tuple[Projection, ...]:
    """A state-space mixer's projections: Mamba's ``in_proj`` (h -> 2d), ``x_proj``
    (d -> dt_rank + 2 state), ``dt_proj`` (dt_rank -> d) and ``out_proj``; a gated delta net's
    ``in_proj_qkvz``, ``in_proj_ba`` and ``out_proj``. Widths follow from the mixer's shape."""
    mixer = arch.state_mixer
    assert mixer is not None
    h = arch.hidden_size
    if mixer.kind == "gated_delta":
        values = mixer.state_heads * mixer.state_cols
        keys = (mixer.conv_channels - values) // 2
        if arch.model_type == "qwen3_5_text":  # the same widths, unfused
            return (
                Projection("in_proj_qkv", h, 2 * keys + values, ATTENTION_INPUT),
                Projection("in_proj_z", h, values, ATTENTION_INPUT),
                Projection("in_proj_b", h, mixer.state_heads, ATTENTION_INPUT),
                Projection("in_proj_a", h, mixer.state_heads, ATTENTION_INPUT),
                Projection("out_proj", values, h, ATTENTION_OUTPUT),
            )
        return (
            Projection("in_proj_qkvz", h, 2 * keys + 2 * values, ATTENTION_INPUT),
            Projection("in_proj_ba", h, 2 * mixer.state_heads, ATTENTION_INPUT),
            Projection("out_proj", values, h, ATTENTION_OUTPUT),
        )
    inner, state = mixer.state_heads, mixer.state_rows
    dt_rank = (mixer.matrix_parameters - 3 * h * inner - 2 * state * inner) // (2 * inner)
    return (
        Projection("in_proj", h, 2 * inner, ATTENTION_INPUT),
        Projection("x_proj", inner, dt_rank + 2 * state, LATENT),
        Projection("dt_proj", dt_rank, inner, LATENT),
        Projection("out_proj", inner, h, ATTENTION_OUTPUT),
    )


def _mlp(arch: Architecture, intermediate: int, prefix: str = "") -> tuple[Projection, ...]:
    h = arch.hidden_size
    if not intermediate:
        return ()
    if arch.model_type == "phi3":
        return (
            Projection(prefix + "gate_up_proj", h, 2 * intermediate, MLP_INPUT),
            Projection(prefix + "down_proj", intermediate, h, MLP_PRODUCT),
        )
    if not arch.gated_mlp:
        up, down = _PLAIN_MLP.get(arch.model_type, ("up_proj", "down_proj"))
        return (
            Projection(prefix + up, h, intermediate, MLP_INPUT),
            Projection(prefix + down, intermediate, h, MLP_PRODUCT),
        )
    return (
        Projection(prefix + "gate_proj", h, intermediate, MLP_INPUT),
        Projection(prefix + "up_proj", h, intermediate, MLP_INPUT),
        Projection(prefix + "down_proj", intermediate, h, MLP_PRODUCT),
    )


#: Architectures whose layouts are remembered: a run sizes a few models, each many times (every
#: layer of every phase of every alternative of every workload that names it).
REMEMBERED = 64


def layer_layout(arch: Architecture, index: int) -> LayerLayout:
    """The projections of decoder layer ``index`` (0-based): one of at most four layouts of the
    model, by its mixer (state or attention) and whether its MLP is routed experts."""
    state = bool(arch.layer_types) and arch.layer_types[index] == STATE
    routed = arch.is_moe and index >= arch.dense_layers
    return _layout(arch, state and arch.state_mixer is not None, routed)


@functools.lru_cache(maxsize=REMEMBERED)
def layer_layout_counts(arch: Architecture) -> tuple[tuple[LayerLayout, int], ...]:
    """Each distinct layout of the model's decoder layers with how many layers have it, in
    the order of the layers: a sum over layers is a sum over these, each times its count."""
    counts = Counter(layer_layout(arch, index) for index in range(arch.num_hidden_layers))
    return tuple(counts.items())


@functools.lru_cache(maxsize=4 * REMEMBERED)
def _layout(arch: Architecture, state: bool, routed: bool) -> LayerLayout:
    if state:
        mixer, mixer_projections = "state", _state_mixer(arch)
    else:
        mixer, mixer_projections = _attention(arch)
    if not routed:
        return LayerLayout(mixer, mixer_projections, _mlp(arch, arch.intermediate_size), (), None)
    h, e, i = arch.hidden_size, arch.num_experts, arch.moe_intermediate_size
    shared = _mlp(arch, arch.shared_expert_intermediate_size, "shared_expert.")
    if arch.shared_expert_gate:
        shared += (Projection("shared_expert_gate", h, 1, MLP_INPUT),)
    router_name = "router" if arch.model_type in ("llama4_text", "gpt_oss", "jamba") else "gate"
    experts = (
        Projection("gate_up_proj", h, 2 * i, MLP_INPUT, experts=e),
        Projection("down_proj", i, h, MLP_PRODUCT, experts=e),
    )
    return LayerLayout(
        mixer, mixer_projections, shared, experts, Projection(router_name, h, e, MLP_INPUT)
    )
