"""Decoder architecture read from a Hugging Face ``config.json`` and its exact parameter count.

The count reproduces what transformers builds for each supported ``model_type`` (checked against
``from_config`` on the meta device in tests/memory/data/reference.json): tied or untied embeddings,
explicit ``head_dim``, q/k/v/o biases, q/k norms, attention sinks, gated or plain MLPs, MoE
experts (all resident), shared experts, routers, dense-first layers and MLA projections.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from linter.catalog.models import resolve_model
from linter.memory.learned_positions import (
    LEARNED_POSITION_TYPES,
    LearnedPositionError,
    learned_position_decoder,
)
from linter.memory.quantization import (
    QuantizationError,
    checkpoint_precision,
    unquantised_modules,
)
from linter.memory.state_space import StateMixer, gated_delta_mixer, mamba_mixer
from linter.memory.vision import TEXT_TYPES, VisionError, VisionTower, vision_tower
from linter.records import datarecord

FULL = "full"
SLIDING = "sliding"
#: A layer whose mixer keeps a recurrent state instead of a KV cache (Mamba, gated delta net).
STATE = "state"
#: Chunked local attention (Llama 4): a token attends within its attention_chunk_size chunk.
CHUNKED = "chunked"

SUPPORTED_MODEL_TYPES = (
    "cohere",
    "dbrx",
    "deepseek_v2",
    "deepseek_v3",
    "falcon",
    "gemma",
    "gemma2",
    "gemma3",
    "gemma3_text",
    "glm4_moe",
    "gpt2",
    "gpt_oss",
    "granite",
    "granitemoe",
    "jamba",
    "llama",
    "llama4_text",
    "mamba",
    "mistral",
    "mixtral",
    "olmo2",
    "olmoe",
    "opt",
    "phi3",
    "qwen2",
    "qwen2_moe",
    "qwen3",
    "qwen3_5_text",
    "qwen3_moe",
    "qwen3_next",
)


#: Model types whose attention computes q, k and v with one fused projection.
FUSED_QKV_TYPES = ("falcon", "gpt2", "phi3")

#: Model types gpulint recognises but does not size yet, and why (refused, never guessed).
NOT_SIZED = {
    "mllama": "Llama 3.2 Vision adds cross-attention layers over the image tokens, whose "
    "per-request cache vLLM sizes with the encoder-decoder cache, and a two-stage vision tower; "
    "not modelled",
    "mamba2": "Mamba-2 keeps a recurrent state per sequence instead of a KV cache; not modelled",
    "nemotron_h": "Nemotron-H mixes Mamba-2 and attention layers; not modelled",
    "falcon_h1": "Falcon-H1 mixes Mamba-2 and attention layers; not modelled",
    "qwen3_5_moe": "Qwen3.5-MoE interleaves gated delta-net layers with full attention and routes "
    "every MLP to experts; not modelled",
}


#: Model types whose transformers config ties the lm_head to the embeddings unless it says not to.
TIED_BY_DEFAULT = ("cohere", "falcon", "gemma", "gemma2", "gemma3_text", "gpt2", "mamba", "opt")


class ArchitectureError(ValueError):
    """A config that cannot be turned into an exact architecture (unknown type, missing keys)."""


@datarecord
class Architecture:
    """Shape of a decoder-only transformer; every size is a config value, nothing is derived."""

    model_type: str
    vocab_size: int
    hidden_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    intermediate_size: int
    tie_word_embeddings: bool
    max_position_embeddings: int | None = None
    qkv_bias: bool = False
    o_bias: bool = False
    mlp_bias: bool = False
    qk_norm: bool = False
    #: The q/k norms span the whole projection (OLMo 2, OLMoE) instead of one head each.
    qk_norm_full_width: bool = False
    attention_sinks: bool = False
    gated_mlp: bool = True
    norms_per_layer: int = 2
    norm_bias: bool = False
    num_experts: int = 0
    experts_per_token: int = 0
    moe_intermediate_size: int = 0
    shared_expert_intermediate_size: int = 0
    expert_bias: bool = False
    router_bias: bool = False
    moe_layers: int = 0
    q_lora_rank: int = 0
    kv_lora_rank: int = 0
    qk_nope_head_dim: int = 0
    qk_rope_head_dim: int = 0
    v_head_dim: int = 0
    sliding_window: int | None = None
    attention_chunk_size: int | None = None
    layer_types: tuple[str, ...] = ()
    checkpoint_bytes: int | None = None
    checkpoint_dtype: str | None = None
    #: Precision the published weights are stored in (quantization_config, torch_dtype or the
    #: catalogue); None when the config does not say.
    checkpoint_precision: str | None = None
    #: Modules the quantised checkpoint stores unquantised (its quantization_config).
    unquantised_modules: tuple[str, ...] = ()
    #: The vision tower of a vision-language model (16-bit, never quantised by vLLM).
    vision: VisionTower | None = None
    #: The sliding window transformers masks every layer with where vLLM sizes full attention
    #: (Phi-3's ``sliding_window``); what training activations depend on.
    training_sliding_window: int | None = None
    #: The mixer of the STATE layers of a hybrid or state-space model.
    state_mixer: StateMixer | None = None
    #: Attention that gates its output with a second query-sized projection (Qwen3-Next).
    attention_output_gate: bool = False
    #: A sigmoid gate (one h-vector) on the shared expert of every MoE layer (Qwen2-MoE family).
    shared_expert_gate: bool = False
    #: Rows of a learned absolute position table (GPT-2 ``n_positions``, OPT's
    #: ``max_position_embeddings`` + 2); 0 for rotary and other parameter-free positions.
    position_embeddings: int = 0
    #: Width of the token embedding when it is projected to and from the hidden size (OPT-350m's
    #: ``word_embed_proj_dim``); 0 when the embedding is hidden_size wide.
    word_embedding_width: int = 0
    #: A norm after the last layer (absent in post-norm OPT-350m).
    final_norm: bool = True

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank > 0

    @property
    def is_moe(self) -> bool:
        return self.num_experts > 0

    @property
    def fused_qkv(self) -> bool:
        """q, k and v come from one projection (Phi-3 ``qkv_proj``, Falcon ``query_key_value``)."""
        return self.model_type in FUSED_QKV_TYPES

    @property
    def q_dim(self) -> int:
        return self.num_attention_heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        return self.num_key_value_heads * self.head_dim

    @property
    def dense_layers(self) -> int:
        return self.num_hidden_layers - self.moe_layers

    @property
    def full_attention_layers(self) -> int:
        return self.layer_types.count(FULL)

    @property
    def sliding_attention_layers(self) -> int:
        return self.layer_types.count(SLIDING)

    @property
    def chunked_attention_layers(self) -> int:
        return self.layer_types.count(CHUNKED)

    @property
    def state_layers(self) -> int:
        return self.layer_types.count(STATE)

    @property
    def attention_layers(self) -> int:
        """Layers that keep a KV cache (full or sliding-window attention)."""
        return self.num_hidden_layers - self.state_layers

    @property
    def attention_matrix_parameters(self) -> int:
        """Weight matrices of one attention block."""
        return self._attention_matrices()

    def _attention_matrices(self) -> int:
        h, heads = self.hidden_size, self.num_attention_heads
        if self.is_mla:
            qk_head = self.qk_nope_head_dim + self.qk_rope_head_dim
            q = (
                h * self.q_lora_rank + self.q_lora_rank * heads * qk_head
                if self.q_lora_rank
                else h * heads * qk_head
            )
            kv = h * (self.kv_lora_rank + self.qk_rope_head_dim) + self.kv_lora_rank * heads * (
                self.qk_nope_head_dim + self.v_head_dim
            )
            return q + kv + heads * self.v_head_dim * h
        gate = 2 if self.attention_output_gate else 1
        return h * (gate * self.q_dim + 2 * self.kv_dim) + self.q_dim * h

    def _attention_vectors(self) -> int:
        n = (self.q_dim + 2 * self.kv_dim) * self.qkv_bias + self.hidden_size * self.o_bias
        norm_width = self.q_dim + self.kv_dim if self.qk_norm_full_width else 2 * self.head_dim
        n += norm_width * self.qk_norm + self.num_attention_heads * self.attention_sinks
        if self.is_mla:
            n += self.kv_lora_rank + self.q_lora_rank
        return n

    def _mlp_matrices(self, intermediate: int) -> int:
        return (3 if self.gated_mlp else 2) * self.hidden_size * intermediate

    def _expert_matrices(self) -> int:
        return self.num_experts * 3 * self.hidden_size * self.moe_intermediate_size

    def _moe_vectors(self) -> int:
        e, h, i = self.num_experts, self.hidden_size, self.moe_intermediate_size
        return (
            e * (2 * i + h) * self.expert_bias + e * self.router_bias + h * self.shared_expert_gate
        )

    @property
    def router_parameters(self) -> int:
        return self.moe_layers * self.hidden_size * self.num_experts

    @property
    def expert_parameters(self) -> int:
        """Weight matrices of the routed experts (what MXFP4 quantises in gpt-oss)."""
        return self.moe_layers * self._expert_matrices()

    @property
    def decoder_matrix_parameters(self) -> int:
        """Decoder weight matrices that weight-only quantisation stores in low precision.

        Attention and MLP projections, routed and shared experts; not embeddings, lm_head, norms,
        biases or routers (those stay 16-bit in GPTQ/AWQ/FP8/bitsandbytes checkpoints).
        """
        dense = self.dense_layers * self._mlp_matrices(self.intermediate_size)
        shared = self.moe_layers * self._mlp_matrices(self.shared_expert_intermediate_size)
        attention = self.attention_layers * self._attention_matrices()
        if self.state_mixer is not None:
            attention += self.state_layers * self.state_mixer.matrix_parameters
        return attention + dense + self.expert_parameters + shared

    @property
    def token_embedding_parameters(self) -> int:
        """The token embedding matrix (the lm_head has the same shape)."""
        return self.vocab_size * (self.word_embedding_width or self.hidden_size)

    @property
    def embedding_parameters(self) -> int:
        """Input embedding plus untied lm_head, learned positions and embedding projections."""
        tokens = self.token_embedding_parameters * (1 if self.tie_word_embeddings else 2)
        projections = 2 * self.hidden_size * self.word_embedding_width
        return tokens + self.position_embeddings * self.hidden_size + projections

    @property
    def parameters(self) -> int:
        """Exact parameter count, every MoE expert included (all are resident in memory)."""
        norm = self.hidden_size * (2 if self.norm_bias else 1)
        mixer_vectors = self.state_mixer.vector_parameters if self.state_mixer else 0
        up_widths = 2 if self.gated_mlp else 1
        mlp_bias = (up_widths * self.intermediate_size + self.hidden_size) if self.mlp_bias else 0
        return (
            (self.vision.parameters if self.vision else 0)
            + self.embedding_parameters
            + self.decoder_matrix_parameters
            + self.router_parameters
            + self.attention_layers * self._attention_vectors()
            + self.state_layers * mixer_vectors
            + self.num_hidden_layers * self.norms_per_layer * norm
            + self.dense_layers * mlp_bias
            + self.moe_layers * self._moe_vectors()
            + norm * self.final_norm
        )


def _int(config: Mapping[str, Any], key: str, default: int | None = None) -> int:
    """``config[key]``; ``default`` when it is absent or null (``"q_lora_rank": null``)."""
    value = config.get(key)
    if value is None:
        value = default
    if value is None:
        raise ArchitectureError(f"config has no {key!r}")
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ArchitectureError(f"config {key!r} must be a non-negative integer, got {value!r}")
    return value


def _dt_rank(config: Mapping[str, Any], key: str, hidden: int) -> int:
    """A Mamba time-step rank; ``auto`` is ``ceil(hidden / 16)`` as in transformers."""
    if config.get(key, "auto") == "auto":
        return -(-hidden // 16)
    return _int(config, key)


def _layer_types(config: Mapping[str, Any], model_type: str, layers: int) -> tuple[str, ...]:
    """Per-layer attention kind, following each transformers config class's defaults."""
    window = config.get("sliding_window")
    declared = config.get("layer_types")
    if declared:
        kinds = {
            "full_attention": FULL,
            "sliding_attention": SLIDING,
            "linear_attention": STATE,
            "chunked_attention": CHUNKED,
        }
        unknown = sorted({t for t in declared if t not in kinds})
        if unknown or len(declared) != layers:
            raise ArchitectureError(f"unsupported layer_types {unknown or declared!r}")
        return tuple(kinds[t] for t in declared)
    if model_type == "mamba":
        return (STATE,) * layers
    if model_type == "llama4_text" and config.get("attention_chunk_size"):
        interval = _int(config, "no_rope_layer_interval", 4)
        return tuple(FULL if (i + 1) % interval == 0 else CHUNKED for i in range(layers))
    if model_type == "jamba":
        period, offset = _int(config, "attn_layer_period", 8), _int(config, "attn_layer_offset", 4)
        return tuple(FULL if i % period == offset else STATE for i in range(layers))
    if model_type in ("gemma2", "gpt_oss"):
        return tuple(SLIDING if (i + 1) % 2 else FULL for i in range(layers))
    if model_type == "gemma3_text":
        pattern = _int(config, "sliding_window_pattern", 6)
        return tuple(SLIDING if (i + 1) % pattern else FULL for i in range(layers))
    if model_type == "qwen2" and config.get("use_sliding_window") and window:
        first = _int(config, "max_window_layers", 28)
        return tuple(SLIDING if i >= first else FULL for i in range(layers))
    if model_type in ("mistral", "mixtral") and window:
        return (SLIDING,) * layers
    return (FULL,) * layers


def _gated_delta(config: Mapping[str, Any], hidden: int) -> StateMixer:
    """The gated delta net of a Qwen3-Next or Qwen3.5 linear-attention layer."""
    return gated_delta_mixer(
        hidden,
        _int(config, "linear_num_key_heads"),
        _int(config, "linear_num_value_heads"),
        _int(config, "linear_key_head_dim"),
        _int(config, "linear_value_head_dim"),
        _int(config, "linear_conv_kernel_dim", 4),
    )


def _dbrx(config: Mapping[str, Any]) -> dict[str, Any]:
    """A DBRX config under the names the other MoE types use (its attention and experts are
    Mixtral's: GQA without biases, weight-only norms, gated experts and a bias-free router)."""
    attn, ffn = config.get("attn_config"), config.get("ffn_config")
    if not isinstance(attn, Mapping) or not isinstance(ffn, Mapping):
        raise ArchitectureError("dbrx config has no attn_config or ffn_config")
    return {
        **config,
        "hidden_size": config.get("d_model"),
        "num_hidden_layers": config.get("n_layers"),
        "num_attention_heads": config.get("n_heads"),
        "num_key_value_heads": attn.get("kv_n_heads"),
        "intermediate_size": ffn.get("ffn_hidden_size"),
        "num_local_experts": ffn.get("moe_num_experts"),
        "num_experts_per_tok": ffn.get("moe_top_k"),
        "max_position_embeddings": config.get("max_seq_len"),
    }


def architecture_from_hf_config(config: Mapping[str, Any]) -> Architecture:
    """Build an Architecture from a parsed Hugging Face ``config.json``.

    Vision-language models of :data:`linter.memory.vision.TEXT_TYPES` add their vision tower;
    other multimodal configs contribute their ``text_config`` only. Raises ArchitectureError
    (a ValueError) for model types whose layout is not modelled exactly, rather than guessing.
    """
    try:
        stored_as = checkpoint_precision(config)
        kept = unquantised_modules(config)
    except QuantizationError as err:
        raise ArchitectureError(str(err)) from None
    outer_type = str(config.get("model_type", "")).lower()
    if outer_type in NOT_SIZED:
        raise ArchitectureError(f"model_type {outer_type!r} is not sized: {NOT_SIZED[outer_type]}")
    tower = None
    text = config.get("text_config")
    if outer_type in TEXT_TYPES:
        inner = text if isinstance(text, Mapping) else config
        tie = inner.get("tie_word_embeddings", config.get("tie_word_embeddings", False))
        hidden_size = inner.get("hidden_size")
        try:
            tower = vision_tower(
                outer_type, config, hidden_size if isinstance(hidden_size, int) else 0
            )
        except VisionError as err:
            raise ArchitectureError(str(err)) from None
        config = {**inner, "model_type": TEXT_TYPES[outer_type], "tie_word_embeddings": tie}
    elif isinstance(config.get("vision_config"), Mapping):
        raise ArchitectureError(
            f"model_type {outer_type!r} is not sized: its vision tower is not modelled (the "
            "weights and profiling peak of Qwen2.5-VL, Qwen3-VL, Gemma 3 and Llama 4 towers are)"
        )
    elif isinstance(text, Mapping):
        config = {**text, "model_type": text.get("model_type", f"{config.get('model_type')}_text")}
    model_type = str(config.get("model_type", "")).lower()
    if model_type in NOT_SIZED:
        raise ArchitectureError(f"model_type {model_type!r} is not sized: {NOT_SIZED[model_type]}")
    if model_type not in SUPPORTED_MODEL_TYPES:
        raise ArchitectureError(
            f"model_type {model_type!r} is not modelled exactly; supported: "
            + ", ".join(SUPPORTED_MODEL_TYPES)
        )
    if model_type == "gemma3":
        model_type = "gemma3_text"
    if model_type == "dbrx":
        config = _dbrx(config)
    learned: dict[str, Any] = {}
    if model_type in LEARNED_POSITION_TYPES:
        try:
            config, learned = learned_position_decoder(model_type, config)
        except LearnedPositionError as err:
            raise ArchitectureError(str(err)) from None
        for key in ("position_embeddings", "word_embedding_width"):
            learned[key] = _int(learned, key, 0)
    hidden = _int(config, "hidden_size")
    layers = _int(config, "num_hidden_layers")
    heads = _int(config, "num_attention_heads", 1 if model_type == "mamba" else None)
    if heads == 0 or layers == 0:
        raise ArchitectureError("config declares zero layers or attention heads")
    kv_heads = _int(config, "num_key_value_heads", heads)
    bias = bool(config.get("attention_bias", False))
    fields: dict[str, Any] = {
        "qkv_bias": bias,
        "o_bias": bias,
        "mlp_bias": bool(config.get("mlp_bias", False)),
    }
    intermediate = config.get("intermediate_size")
    if model_type == "falcon":
        new_arch = bool(config.get("new_decoder_architecture", False))
        if new_arch:
            kv_heads = _int(config, "num_kv_heads", heads)
        else:
            kv_heads = 1 if config.get("multi_query", True) else heads
        plain_bias = bool(config.get("bias", False))
        parallel = bool(config.get("parallel_attn", True))
        intermediate = config.get("ffn_hidden_size") or 4 * hidden
        fields.update(
            qkv_bias=plain_bias,
            o_bias=plain_bias,
            mlp_bias=False,
            gated_mlp=False,
            norm_bias=True,
            norms_per_layer=2 if new_arch or not parallel else 1,
        )
        if plain_bias:
            raise ArchitectureError("falcon with bias=true is not modelled exactly")
    elif model_type == "qwen2":
        fields.update(qkv_bias=True, o_bias=False)
    elif model_type in ("qwen3", "qwen3_moe", "qwen3_next"):
        fields.update(qk_norm=True)
    elif model_type == "qwen3_5_text":  # Qwen3-Next's layers with a dense MLP
        fields.update(
            qk_norm=True,
            state_mixer=_gated_delta(config, hidden),
            attention_output_gate=True,
        )
    elif model_type in ("olmo2", "olmoe"):
        fields.update(qk_norm=True, qk_norm_full_width=True)
    elif model_type == "qwen2_moe":
        fields.update(qkv_bias=True, o_bias=False)
    elif model_type == "cohere":
        if config.get("use_qk_norm"):
            raise ArchitectureError("cohere with use_qk_norm is not modelled exactly")
        fields.update(norms_per_layer=1)
    elif model_type == "phi3" and isinstance(config.get("sliding_window"), int):
        fields.update(training_sliding_window=config["sliding_window"])
    elif model_type == "gemma2":
        fields.update(norms_per_layer=4)
    elif model_type == "gemma3_text":
        fields.update(norms_per_layer=4, qk_norm=True)
    elif model_type == "gpt_oss":
        fields.update(attention_sinks=True, expert_bias=True, router_bias=True)
    elif learned:
        fields.update(learned)
    if model_type in ("mixtral", "gpt_oss", "granitemoe", "dbrx"):
        experts = _int(config, "num_local_experts")
        fields.update(
            num_experts=experts,
            moe_intermediate_size=_int(config, "intermediate_size"),
            experts_per_token=_int(config, "num_experts_per_tok", 2),
            moe_layers=layers,
        )
    elif model_type == "llama4_text":
        step = _int(config, "interleave_moe_layer_step", 1)
        declared_moe = config.get("moe_layers")
        moe = (
            len(declared_moe)
            if isinstance(declared_moe, list)
            else len(range(step - 1, layers, step))
        )
        expert_i = _int(config, "intermediate_size")
        fields.update(
            num_experts=_int(config, "num_local_experts"),
            moe_intermediate_size=expert_i,
            shared_expert_intermediate_size=expert_i,
            experts_per_token=_int(config, "num_experts_per_tok", 1),
            moe_layers=moe,
        )
        intermediate = _int(config, "intermediate_size_mlp")
    elif model_type == "mamba":
        d_inner = _int(config, "intermediate_size", _int(config, "expand", 2) * hidden)
        mixer = mamba_mixer(
            hidden,
            d_inner,
            _int(config, "state_size", 16),
            _int(config, "conv_kernel", 4),
            _dt_rank(config, "time_step_rank", hidden),
            conv_bias=bool(config.get("use_conv_bias", True)),
            proj_bias=bool(config.get("use_bias", False)),
            inner_norms=False,
        )
        fields.update(state_mixer=mixer, norms_per_layer=1)
        intermediate = 0
    elif model_type == "jamba":
        mixer = mamba_mixer(
            hidden,
            _int(config, "mamba_expand", 2) * hidden,
            _int(config, "mamba_d_state", 16),
            _int(config, "mamba_d_conv", 4),
            _dt_rank(config, "mamba_dt_rank", hidden),
            conv_bias=bool(config.get("mamba_conv_bias", True)),
            proj_bias=bool(config.get("mamba_proj_bias", False)),
            inner_norms=True,
        )
        experts = _int(config, "num_experts", 16)
        period, offset = (
            _int(config, "expert_layer_period", 2),
            _int(config, "expert_layer_offset", 1),
        )
        moe = sum(1 for i in range(layers) if experts > 1 and i % period == offset)
        fields.update(
            state_mixer=mixer,
            num_experts=experts if moe else 0,
            moe_intermediate_size=_int(config, "intermediate_size"),
            experts_per_token=_int(config, "num_experts_per_tok", 2),
            moe_layers=moe,
        )
    elif model_type == "olmoe":
        experts = _int(config, "num_experts")
        fields.update(
            num_experts=experts,
            moe_intermediate_size=_int(config, "intermediate_size"),
            experts_per_token=_int(config, "num_experts_per_tok", 8),
            moe_layers=layers if experts else 0,
        )
    elif model_type in ("qwen2_moe", "qwen3_moe", "qwen3_next"):
        step = _int(config, "decoder_sparse_step", 1)
        dense_only = set(config.get("mlp_only_layers") or [])
        experts = _int(config, "num_experts", config.get("num_local_experts"))
        sparse = sum(
            1 for i in range(layers) if i not in dense_only and experts > 0 and (i + 1) % step == 0
        )
        fields.update(
            num_experts=experts,
            moe_intermediate_size=_int(config, "moe_intermediate_size"),
            experts_per_token=_int(config, "num_experts_per_tok", 8),
            moe_layers=sparse,
        )
        if model_type == "qwen2_moe":
            shared = _int(config, "shared_expert_intermediate_size")
            fields.update(shared_expert_intermediate_size=shared, shared_expert_gate=shared > 0)
        if model_type == "qwen3_next":
            fields.update(
                state_mixer=_gated_delta(config, hidden),
                attention_output_gate=True,
                shared_expert_intermediate_size=_int(config, "shared_expert_intermediate_size", 0),
                shared_expert_gate=_int(config, "shared_expert_intermediate_size", 0) > 0,
            )
    elif model_type == "glm4_moe":
        moe_i = _int(config, "moe_intermediate_size")
        first_dense = _int(config, "first_k_dense_replace", 1)
        fields.update(
            qkv_bias=bias,
            o_bias=False,
            qk_norm=bool(config.get("use_qk_norm", False)),
            num_experts=_int(config, "n_routed_experts"),
            moe_intermediate_size=moe_i,
            experts_per_token=_int(config, "num_experts_per_tok"),
            shared_expert_intermediate_size=moe_i * _int(config, "n_shared_experts", 1),
            moe_layers=max(0, layers - first_dense),
        )
    elif model_type in ("deepseek_v2", "deepseek_v3"):
        moe_i = _int(config, "moe_intermediate_size")
        first_dense = _int(config, "first_k_dense_replace", 0)
        if _int(config, "moe_layer_freq", 1) != 1:
            raise ArchitectureError(f"{model_type} with moe_layer_freq != 1 is not modelled")
        fields.update(
            num_experts=_int(config, "n_routed_experts"),
            moe_intermediate_size=moe_i,
            experts_per_token=_int(config, "num_experts_per_tok"),
            shared_expert_intermediate_size=moe_i * _int(config, "n_shared_experts", 0),
            moe_layers=max(0, layers - first_dense),
            q_lora_rank=_int(config, "q_lora_rank", 0),
            kv_lora_rank=_int(config, "kv_lora_rank"),
            qk_nope_head_dim=_int(config, "qk_nope_head_dim"),
            qk_rope_head_dim=_int(config, "qk_rope_head_dim"),
            v_head_dim=_int(config, "v_head_dim"),
        )
    if intermediate is None:
        raise ArchitectureError("config has no 'intermediate_size'")
    window = config.get("sliding_window")
    if model_type == "mistral" and "sliding_window" not in config:
        window = 4096  # transformers' MistralConfig default
    types = _layer_types({**config, "sliding_window": window}, model_type, layers)
    chunk = config.get("attention_chunk_size") if CHUNKED in types else None
    max_pos = config.get("max_position_embeddings")
    return Architecture(
        model_type=model_type,
        vocab_size=_int(config, "vocab_size"),
        hidden_size=hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        head_dim=_int(config, "head_dim", hidden // heads) or hidden // heads,
        intermediate_size=_int({"intermediate_size": intermediate}, "intermediate_size"),
        tie_word_embeddings=bool(config.get("tie_word_embeddings", model_type in TIED_BY_DEFAULT)),
        max_position_embeddings=max_pos if isinstance(max_pos, int) else None,
        sliding_window=window if SLIDING in types else None,
        attention_chunk_size=chunk if isinstance(chunk, int) and chunk > 0 else None,
        layer_types=types,
        checkpoint_bytes=config.get("checkpoint_bytes"),
        checkpoint_dtype=config.get("checkpoint_dtype"),
        checkpoint_precision=stored_as,
        unquantised_modules=kept,
        vision=tower,
        **fields,
    )


@functools.lru_cache(maxsize=4096)
def architecture_from_catalogue(model_id: str) -> Architecture | None:
    """Architecture of a catalogue model, or None when the name resolves to none
    (:func:`linter.catalog.models.resolve_model`). A quantised release's name (``-FP8``,
    ``-AWQ``) gives the base architecture with its weights stored in that precision."""
    resolution = resolve_model(model_id)
    if resolution is None:
        return None
    record = resolution.record
    config = {
        **record.config,
        "checkpoint_bytes": record.checkpoint_bytes,
        "checkpoint_dtype": record.checkpoint_dtype,
    }
    if resolution.precision is not None:  # the release's own checkpoint, not the base's
        config.pop("quantization_config", None)
        config.update(checkpoint_bytes=None, checkpoint_dtype=resolution.precision)
    return architecture_from_hf_config(config)
