"""GPT-2 and OPT: learned position tables, biases everywhere, LayerNorm, plain MLPs.

Counts are transformers' ``GPT2LMHeadModel`` / ``OPTForCausalLM`` on the meta device
(tests/memory/data/reference.json); the layouts below spell out where each number comes from.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

from linter.memory import (
    ArchitectureError,
    architecture_from_catalogue,
    architecture_from_hf_config,
)
from linter.memory.kv_cache import kv_bytes_per_token
from linter.memory.training_layout import layer_layout
from linter.memory.weights import weight_bytes

OPT_125M: dict[str, Any] = {
    "model_type": "opt",
    "hidden_size": 768,
    "num_hidden_layers": 12,
    "num_attention_heads": 12,
    "ffn_dim": 3072,
    "max_position_embeddings": 2048,
    "vocab_size": 50272,
    "word_embed_proj_dim": 768,
    "do_layer_norm_before": True,
    "torch_dtype": "float16",
}

GPT2: dict[str, Any] = {
    "model_type": "gpt2",
    "n_embd": 768,
    "n_layer": 12,
    "n_head": 12,
    "n_positions": 1024,
    "n_inner": None,
    "vocab_size": 50257,
}


def _layer(h: int, ffn: int) -> int:
    """One biased MHA + plain-MLP layer with two LayerNorms."""
    return 4 * h * h + 4 * h + 2 * h * ffn + ffn + h + 2 * 2 * h


def test_opt_125m_counts_its_position_table_with_the_offset_of_two() -> None:
    arch = architecture_from_hf_config(OPT_125M)
    h = 768
    expected = 50272 * h + (2048 + 2) * h + 12 * _layer(h, 3072) + 2 * h
    assert arch.parameters == expected == 125_239_296
    assert arch.position_embeddings == 2050
    assert arch.tie_word_embeddings and arch.final_norm
    assert arch.checkpoint_precision == "fp16"
    assert weight_bytes(arch, None, "fp16") == 250_478_592
    assert kv_bytes_per_token(arch, 2) == 12 * 2 * 768 * 2


def test_opt_350m_projects_a_narrow_embedding_and_has_no_final_norm() -> None:
    arch = architecture_from_catalogue("facebook/opt-350m")
    assert arch is not None
    h, width = 1024, 512
    expected = 50272 * width + 2050 * h + 2 * h * width + 24 * _layer(h, 4096)
    assert arch.parameters == expected == 331_196_416
    assert not arch.final_norm
    assert arch.token_embedding_parameters == 50272 * 512


def test_opt_without_biases_drops_every_linear_bias() -> None:
    biased = architecture_from_hf_config(OPT_125M)
    plain = architecture_from_hf_config({**OPT_125M, "enable_bias": False})
    per_layer = 4 * 768 + 3072 + 768
    assert biased.parameters - plain.parameters == 12 * per_layer


def test_gpt2_counts_conv1d_biases_and_its_position_table() -> None:
    arch = architecture_from_hf_config(GPT2)
    h = 768
    expected = 50257 * h + 1024 * h + 12 * _layer(h, 4 * h) + 2 * h
    assert arch.parameters == expected == 124_439_808
    assert arch.max_position_embeddings == 1024
    assert arch.checkpoint_precision is None  # float32 on the Hub, served in 16-bit
    assert weight_bytes(arch, None, "bf16") == 248_879_616


def test_gpt2_n_inner_sets_the_mlp_width() -> None:
    arch = architecture_from_hf_config({**GPT2, "n_inner": 1024})
    assert arch.intermediate_size == 1024


@pytest.mark.parametrize(
    ("model_id", "params"),
    [
        ("gpt2", 124_439_808),
        ("distilgpt2", 81_912_576),
        ("gpt2-medium", 354_823_168),
        ("gpt2-xl", 1_557_611_200),
        ("facebook/opt-6.7b", 6_658_473_984),
        ("facebook/opt-66b", 65_719_701_504),
        ("facebook/opt-iml-max-30b", 29_974_540_288),  # OPT-IML tunes keep their OPT shape
    ],
)
def test_catalogued_sizes(model_id: str, params: int) -> None:
    arch = architecture_from_catalogue(model_id)
    assert arch is not None and arch.parameters == params


def test_training_layout_uses_each_models_module_names() -> None:
    gpt2 = architecture_from_hf_config(GPT2)
    opt = architecture_from_hf_config(OPT_125M)
    assert [p.name for p in layer_layout(gpt2, 0).projections] == [
        "c_attn",
        "c_proj",
        "c_fc",
        "c_proj",
    ]
    assert [p.name for p in layer_layout(opt, 0).projections] == [
        "q_proj",
        "k_proj",
        "v_proj",
        "out_proj",
        "fc1",
        "fc2",
    ]


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({**GPT2, "add_cross_attention": True}, "add_cross_attention"),
        ({**OPT_125M, "layer_norm_elementwise_affine": False}, "layer-norm weights"),
        ({**GPT2, "n_positions": "long"}, "position_embeddings"),
    ],
)
def test_unmodelled_or_malformed_configs_are_refused(config: dict[str, Any], message: str) -> None:
    with pytest.raises(ArchitectureError, match=message):
        architecture_from_hf_config(config)


FIXTURE = (
    Path(__file__).parents[1] / "formats" / "production_stack" / "good" / "small-models-values.yaml"
)


def test_memory_command_sizes_opt_125m_on_an_l4() -> None:
    result = run_cli("memory", "--model", "facebook/opt-125m", "--gpu", "L4", "--format", "json")
    assert result.code == 0
    report = json.loads(result.out)
    assert (report["parameters"], report["precision"]) == (125_239_296, "fp16")
    assert report["weights_bytes"] == 250_478_592
    assert report["kv_cache_bytes_per_token"] == 36_864
    assert report["model_max_context"] == 2048 and report["fits"] is True


def test_production_stack_values_size_opt_and_distilgpt2() -> None:
    result = run_cli("facts", str(FIXTURE))
    assert result.err == ""
    by_name = {
        entry["workload"]["metadata"]["name"]: entry["facts"] for entry in json.loads(result.out)
    }
    opt = by_name["opt125m"]
    assert opt["memory"]["status"] == "no-accelerator"
    assert {k: opt["unpinned"][k] for k in ("sized", "requiredGiB", "smallestGpu")} == {
        "sized": True,
        "requiredGiB": 1.36,
        "smallestGpu": "M60",
    }
    distil = by_name["distilgpt2"]["memory"]
    assert (distil["status"], distil["gpu"], distil["parameters"]) == ("checked", "L4", 81_912_576)
    assert (distil["precision"], distil["requiredGiB"]) == ("bf16", 0.83)
    assert distil["inference"]["weightsGiB"] == 0.15
    assert distil["inference"]["modelMaxContext"] == 1024
