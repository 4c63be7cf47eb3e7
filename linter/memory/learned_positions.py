"""GPT-2 and OPT configs under the names the other decoders use, and what their layout adds.

Both are pre-RoPE decoders: a learned absolute position table beside the token embedding,
multi-head attention with biases on every projection, LayerNorm (weight and bias) and a plain
two-matrix MLP with biases (GELU ``c_fc``/``c_proj`` in GPT-2, ReLU ``fc1``/``fc2`` in OPT), the
lm_head tied to the token embedding. Each function returns the config renamed to
``hidden_size``/``num_hidden_layers``/... and the :class:`~linter.memory.architecture.Architecture`
fields that differ from a Llama-style decoder, following transformers' ``GPT2LMHeadModel`` and
``OPTForCausalLM`` (checked on the meta device in tests/memory/data/reference.json).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: OPT's position table has ``max_position_embeddings + 2`` rows: fairseq offsets positions by
#: the padding index (transformers' ``OPTLearnedPositionalEmbedding.offset``).
OPT_POSITION_OFFSET = 2

#: Model types this module renames.
LEARNED_POSITION_TYPES = ("gpt2", "opt")


class LearnedPositionError(ValueError):
    """A GPT-2 or OPT config whose layout is not modelled exactly."""


def _biased_layout(bias: bool) -> dict[str, Any]:
    return {
        "qkv_bias": bias,
        "o_bias": bias,
        "mlp_bias": bias,
        "gated_mlp": False,
        "norm_bias": True,
        "norms_per_layer": 2,
    }


def gpt2(config: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A ``gpt2`` config (``n_embd``, ``n_layer``, ``n_head``, ``n_positions``, ``n_inner``)."""
    if config.get("add_cross_attention"):
        raise LearnedPositionError("gpt2 with add_cross_attention is not modelled exactly")
    hidden = config.get("n_embd", 768)
    inner = config.get("n_inner")
    positions = config.get("n_positions", 1024)
    renamed = {
        **config,
        "hidden_size": hidden,
        "num_hidden_layers": config.get("n_layer", 12),
        "num_attention_heads": config.get("n_head", 12),
        "intermediate_size": inner if inner is not None else _times(hidden, 4),
        "max_position_embeddings": positions,
        "vocab_size": config.get("vocab_size", 50257),
    }
    return renamed, {**_biased_layout(True), "position_embeddings": positions}


def opt(config: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """An ``opt`` config (``ffn_dim``, ``word_embed_proj_dim``, ``do_layer_norm_before``)."""
    if config.get("layer_norm_elementwise_affine", True) is not True:
        raise LearnedPositionError("opt without layer-norm weights is not modelled exactly")
    hidden = config.get("hidden_size", 768)
    positions = config.get("max_position_embeddings", 2048)
    width = config.get("word_embed_proj_dim")
    pre_norm = bool(config.get("do_layer_norm_before", True))
    renamed = {
        **config,
        "hidden_size": hidden,
        "num_hidden_layers": config.get("num_hidden_layers", 12),
        "num_attention_heads": config.get("num_attention_heads", 12),
        "intermediate_size": config.get("ffn_dim", 3072),
        "max_position_embeddings": positions,
        "vocab_size": config.get("vocab_size", 50272),
    }
    fields = {
        **_biased_layout(bool(config.get("enable_bias", True))),
        "position_embeddings": _plus(positions, OPT_POSITION_OFFSET),
        "word_embedding_width": width if width is not None and width != hidden else 0,
        "final_norm": pre_norm and not config.get("_remove_final_layer_norm", False),
    }
    return renamed, fields


def learned_position_decoder(
    model_type: str, config: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(renamed config, Architecture fields) of a :data:`LEARNED_POSITION_TYPES` config."""
    return gpt2(config) if model_type == "gpt2" else opt(config)


def _times(value: Any, factor: int) -> Any:
    """``value * factor`` for an integer; anything else unchanged, for the caller to refuse."""
    return value * factor if isinstance(value, int) and not isinstance(value, bool) else value


def _plus(value: Any, offset: int) -> Any:
    return value + offset if isinstance(value, int) and not isinstance(value, bool) else value
