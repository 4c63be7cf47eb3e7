"""Parameter counts and KV bytes/token against transformers (tests/memory/data/reference.json,
written by benchmarks/memory/compute_reference.py from the same catalogue values)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from linter import catalog
from linter.memory import (
    ArchitectureError,
    architecture_from_catalogue,
    architecture_from_hf_config,
)
from linter.memory.kv_cache import kv_bytes_per_token

REFERENCE = json.loads((Path(__file__).parent / "data" / "reference.json").read_text("utf-8"))
MODEL_IDS = [entry["id"] for entry in catalog.load("models")["models"]]


def test_reference_covers_every_catalogue_model() -> None:
    assert sorted(REFERENCE["models"]) == sorted(MODEL_IDS)


@pytest.mark.parametrize("model_id", MODEL_IDS)
def test_parameters_equal_transformers(model_id: str) -> None:
    arch = architecture_from_catalogue(model_id)
    ref = REFERENCE["models"][model_id]
    assert arch is not None
    assert arch.parameters == ref["parameters"]
    assert arch.decoder_matrix_parameters == ref["decoder_matrix_parameters"]
    assert arch.router_parameters == ref["router_parameters"]


@pytest.mark.parametrize("model_id", MODEL_IDS)
def test_kv_bytes_per_token_equal_reference(model_id: str) -> None:
    arch = architecture_from_catalogue(model_id)
    ref = REFERENCE["models"][model_id]
    assert arch is not None
    assert kv_bytes_per_token(arch, 2) == ref["kv_bytes_per_token_bf16"]
    assert (
        kv_bytes_per_token(arch, 2, full_layers_only=True)
        == ref["kv_bytes_per_token_full_layers_bf16"]
    )


@pytest.mark.parametrize(
    ("model_id", "params"),
    [  # memory.md §2 "params (exact)" column
        ("meta-llama/Llama-3.1-8B", 8_030_261_248),
        ("meta-llama/Llama-3.1-405B", 405_853_388_800),
        ("mistralai/Mixtral-8x7B-v0.1", 46_702_792_704),
        ("google/gemma-2-9b", 9_241_705_984),
        ("tiiuae/falcon-7b", 6_921_720_704),
        ("deepseek-ai/DeepSeek-V3", 671_026_404_352),
        ("openai/gpt-oss-120b", 116_829_156_672),
    ],
)
def test_parameters_equal_memory_notes(model_id: str, params: int) -> None:
    arch = architecture_from_catalogue(model_id)
    assert arch is not None and arch.parameters == params


@pytest.mark.parametrize(
    "name",
    [
        "meta-llama/Llama-3.1-8B-Instruct",
        "META-LLAMA/LLAMA-3.1-8B-INSTRUCT",
        "meta-llama/Meta-Llama-3.1-8B-Instruct",
        "Llama-3.1-8B",
        "meta-llama/Llama-3.1-8B-Chat",
    ],
)
def test_catalogue_lookup_variants(name: str) -> None:
    arch = architecture_from_catalogue(name)
    assert arch is not None and arch.parameters == 8_030_261_248


def test_unknown_model_is_none() -> None:
    assert architecture_from_catalogue("acme/not-a-model-7B") is None


def test_gemma3_multimodal_config_uses_text_tower() -> None:
    text: dict[str, Any] = dict(catalog.load("models")["models"][0]["config"])
    arch = architecture_from_hf_config({"model_type": "llava", "text_config": text})
    assert arch.parameters == 8_030_261_248


def test_explicit_head_dim_is_honoured() -> None:
    arch = architecture_from_catalogue("google/gemma-2-9b")
    assert arch is not None
    assert arch.head_dim == 256 and arch.hidden_size // arch.num_attention_heads == 224


def test_unsupported_model_type_raises() -> None:
    with pytest.raises(ArchitectureError, match="mamba2"):
        architecture_from_hf_config({"model_type": "mamba2", "hidden_size": 768})


def test_missing_key_raises_value_error() -> None:
    with pytest.raises(ValueError, match="num_hidden_layers"):
        architecture_from_hf_config({"model_type": "llama", "hidden_size": 64})


def test_bad_value_raises() -> None:
    config = {"model_type": "llama", "hidden_size": "big", "num_hidden_layers": 2}
    with pytest.raises(ArchitectureError, match="hidden_size"):
        architecture_from_hf_config(config)


def test_mistral_without_sliding_key_uses_transformers_default() -> None:
    config = {
        "model_type": "mistral",
        "vocab_size": 32000,
        "hidden_size": 4096,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "intermediate_size": 14336,
    }
    assert architecture_from_hf_config(config).sliding_window == 4096


def test_llama_3_2_vision_is_refused_with_the_reason() -> None:
    with pytest.raises(ArchitectureError, match="cross-attention layers over the image tokens"):
        architecture_from_hf_config({"model_type": "mllama", "text_config": {}})


def test_an_unmodelled_vision_tower_is_refused_not_dropped() -> None:
    text: dict[str, Any] = dict(catalog.load("models")["models"][0]["config"])
    config = {"model_type": "llava", "text_config": text, "vision_config": {"hidden_size": 1024}}
    with pytest.raises(ArchitectureError, match="its vision tower is not modelled"):
        architecture_from_hf_config(config)


def test_vision_tower_profile_peak() -> None:
    """Qwen2.5-VL encodes the largest image (16,384 tokens = 65,536 patches); a gated MLP block
    holds 1,280 + 3 x 3,420 values per patch. Gemma 3 always encodes 4,096 patches into 256."""
    qwen = architecture_from_catalogue("Qwen/Qwen2.5-VL-7B-Instruct")
    gemma = architecture_from_catalogue("google/gemma-3-27b-it")
    assert qwen is not None and qwen.vision is not None
    assert gemma is not None and gemma.vision is not None
    assert qwen.vision.profile_peak_bytes(16_384) == 2 * (65_536 * 11_540 + 16_384 * 3_584)
    assert gemma.vision.profile_peak_bytes(16_384) == 2 * (
        4_096 * (1_152 + 2 * 4_304) + 256 * 5_376
    )


def test_cohere_with_qk_norm_is_refused_not_guessed() -> None:
    config = {
        "model_type": "cohere",
        "vocab_size": 256000,
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "intermediate_size": 128,
        "use_qk_norm": True,
    }
    with pytest.raises(ArchitectureError, match="use_qk_norm"):
        architecture_from_hf_config(config)


@pytest.mark.parametrize("model_type", ["gemma", "gemma2", "gemma3_text"])
def test_gemma_ties_its_embeddings_unless_told_not_to(model_type: str) -> None:
    """transformers' Gemma configs default tie_word_embeddings to true (Google's configs omit
    it): google/gemma-2b is 2,506,172,416 parameters, not 3.03B with a second embedding."""
    config = {
        "model_type": model_type,
        "vocab_size": 1000,
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "head_dim": 16,
        "intermediate_size": 128,
    }
    tied = architecture_from_hf_config(config)
    untied = architecture_from_hf_config({**config, "tie_word_embeddings": False})
    assert tied.tie_word_embeddings and untied.parameters - tied.parameters == 1000 * 64


def test_a_null_value_is_the_default() -> None:
    """DeepSeek-V2-Lite's config says "q_lora_rank": null: queries are projected directly."""
    config = {
        "model_type": "deepseek_v2",
        "vocab_size": 1000,
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "intermediate_size": 128,
        "moe_intermediate_size": 32,
        "n_routed_experts": 4,
        "n_shared_experts": 1,
        "num_experts_per_tok": 2,
        "first_k_dense_replace": 1,
        "kv_lora_rank": 16,
        "q_lora_rank": None,
        "qk_nope_head_dim": 8,
        "qk_rope_head_dim": 4,
        "v_head_dim": 8,
    }
    arch = architecture_from_hf_config(config)
    assert (arch.q_lora_rank, arch.kv_lora_rank, arch.moe_layers) == (0, 16, 1)
    assert arch.parameters == architecture_from_hf_config({**config, "q_lora_rank": 0}).parameters
