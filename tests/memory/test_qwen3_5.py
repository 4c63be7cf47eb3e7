"""Qwen3.5 (dense): Qwen3-Next's hybrid layers (3 gated delta nets, then gated full attention)
with a dense MLP and Qwen3-VL's vision tower without deepstack mergers, counted as transformers'
``Qwen3_5ForConditionalGeneration`` builds it (tests/memory/data/reference.json)."""

from __future__ import annotations

import pytest

from linter.memory import (
    ArchitectureError,
    architecture_from_catalogue,
    architecture_from_hf_config,
)
from linter.memory.architecture import FULL, STATE
from linter.memory.kv_cache import kv_bytes_per_token
from linter.memory.training_layout import layer_layout
from linter.memory.weights import weight_bytes


def test_qwen3_5_4b_counts_text_state_layers_and_vision_tower() -> None:
    arch = architecture_from_catalogue("Qwen/Qwen3.5-4B")
    assert arch is not None
    assert arch.parameters == 4_539_265_536
    assert arch.vision is not None and arch.vision.parameters == 333_514_240
    assert arch.layer_types == (STATE, STATE, STATE, FULL) * 8
    assert arch.tie_word_embeddings and arch.attention_output_gate and arch.qk_norm
    assert weight_bytes(arch, None, "bf16") == 2 * 4_539_265_536
    # only the 8 full-attention layers keep keys and values: 4 KV heads of 256
    assert kv_bytes_per_token(arch, 2) == 8 * 2 * 4 * 256 * 2


def test_qwen3_5_state_layers_use_its_unfused_projection_names() -> None:
    arch = architecture_from_catalogue("Qwen/Qwen3.5-4B")
    assert arch is not None
    names = [p.name for p in layer_layout(arch, 0).mixer_projections]
    assert names == ["in_proj_qkv", "in_proj_z", "in_proj_b", "in_proj_a", "out_proj"]
    widths = sum(p.out_features * p.in_features for p in layer_layout(arch, 0).mixer_projections)
    assert arch.state_mixer is not None and widths == arch.state_mixer.matrix_parameters
    assert [p.name for p in layer_layout(arch, 3).mixer_projections] == [
        "q_proj",
        "k_proj",
        "v_proj",
        "o_proj",
    ]


def test_qwen3_5_moe_is_refused_with_the_reason() -> None:
    config = {"model_type": "qwen3_5_moe", "text_config": {"hidden_size": 2048}}
    with pytest.raises(ArchitectureError, match="routes every MLP to experts"):
        architecture_from_hf_config(config)
