"""Record independent reference figures for every model in the catalogue.

Builds each catalogue model with Hugging Face transformers on the ``meta`` device (no weights are
allocated; this is what ``accelerate estimate-memory`` does) from the catalogue's config values and
writes, per model:

- ``parameters``: sum of ``numel`` over ``model.parameters()`` (tied weights counted once);
- ``decoder_matrix_parameters``: numel of >=2-D parameters inside the decoder layers, routers,
  (3-D expert) biases and state-space conv kernels and decays excluded (what weight-only
  quantisation formats quantise);
- ``router_parameters``: numel of MoE router weights;
- ``kv_bytes_per_token_bf16``: ``2 * n_kv * head_dim * 2`` summed over attention layers (MLA: the
  ``kv_lora_rank + qk_rope_head_dim`` latent), read from the transformers config object, so
  defaults (``head_dim``, ``layer_types``) are transformers' own, not gpulint's;
- ``kv_bytes_per_token_full_layers_bf16``: the same over full-attention layers only (growth per
  token beyond the sliding windows).

Needs torch and transformers, which gpulint itself does not depend on. Run it in a separate venv:

    python3 -m venv /tmp/refenv
    /tmp/refenv/bin/pip install /opt/wheels/torch-2.13.0+cpu-*.whl transformers ruamel.yaml
    /tmp/refenv/bin/python benchmarks/memory/compute_reference.py

The output, ``tests/memory/data/reference.json``, is committed; tests compare against it and do not
need torch.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import torch
import transformers
from ruamel.yaml import YAML
from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForImageTextToText

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "linter" / "catalog" / "data" / "models.yaml"
OUTPUT = ROOT / "tests" / "memory" / "data" / "reference.json"
DECODER_LAYER = re.compile(r"\.(layers|h|blocks)\.\d+\.")
#: Vision-language model types: built with their vision tower, KV read from the text config.
VISION_LANGUAGE = ("gemma3", "llama4", "qwen2_5_vl", "qwen3_5", "qwen3_vl", "qwen3_vl_moe")


def _is_router(name: str) -> bool:
    return ".router." in name or name.endswith("mlp.gate.weight")


def _kv_bytes(config: Any) -> tuple[int, int]:
    if config.model_type == "dbrx":  # its own names: d_model, n_heads, attn_config.kv_n_heads
        per_layer = 2 * config.attn_config.kv_n_heads * (config.d_model // config.n_heads) * 2
        return config.n_layers * per_layer, config.n_layers * per_layer
    layers = config.num_hidden_layers
    if config.model_type == "mamba":  # a recurrent state, no KV cache
        return 0, 0
    if getattr(config, "kv_lora_rank", None):
        per_layer = (config.kv_lora_rank + config.qk_rope_head_dim) * 2
        return layers * per_layer, layers * per_layer
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    # GPT-2 and OPT have no num_key_value_heads: every head keeps its keys and values
    kv_heads = getattr(config, "num_key_value_heads", None) or config.num_attention_heads
    if config.model_type == "falcon" and config.new_decoder_architecture:
        kv_heads = config.num_kv_heads
    elif config.model_type == "falcon":
        kv_heads = 1 if config.multi_query else config.num_attention_heads
    per_layer = 2 * kv_heads * head_dim * 2
    types = getattr(config, "layer_types", None) or getattr(config, "layers_block_type", None)
    types = types or ["full_attention"] * layers
    if config.model_type == "mistral" and config.sliding_window is not None:
        types = ["sliding_attention"] * layers
    kv_kinds = ("full_attention", "sliding_attention", "chunked_attention", "attention")
    attention = [t for t in types if t in kv_kinds]
    full = sum(1 for t in attention if t in ("full_attention", "attention"))
    return len(attention) * per_layer, full * per_layer


def reference(entry: dict[str, Any]) -> dict[str, Any]:
    fields = {k: v for k, v in entry["config"].items() if k != "model_type"}
    config = AutoConfig.for_model(entry["config"]["model_type"], **fields)
    builder = AutoModelForCausalLM
    if entry["config"]["model_type"] in VISION_LANGUAGE:
        builder = AutoModelForImageTextToText
    with torch.device("meta"):
        model = builder.from_config(config)
    params = sum(p.numel() for p in model.parameters())
    matrix = router = 0
    for name, p in model.named_parameters():
        if not DECODER_LAYER.search(name) or p.ndim < 2 or name.endswith("bias"):
            continue
        if "vision" in name or ".visual." in name:  # a vision tower's own layers
            continue
        if name.endswith(("conv1d.weight", "A_log", "shared_expert_gate.weight")):
            continue  # state-space kernels and the shared expert's 1 x h gate stay 16-bit
        if _is_router(name):
            router += p.numel()
        else:
            matrix += p.numel()
    kv_all, kv_full = _kv_bytes(getattr(config, "text_config", None) or config)
    return {
        "parameters": params,
        "decoder_matrix_parameters": matrix,
        "router_parameters": router,
        "kv_bytes_per_token_bf16": kv_all,
        "kv_bytes_per_token_full_layers_bf16": kv_full,
    }


def main() -> int:
    catalogue = YAML(typ="safe").load(CATALOGUE.read_text("utf-8"))
    out: dict[str, Any] = {
        "generated_by": "benchmarks/memory/compute_reference.py",
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "catalogue_as_of": catalogue["as_of"],
        "models": {},
    }
    for entry in catalogue["models"]:
        out["models"][entry["id"]] = reference(entry)
        print(entry["id"], out["models"][entry["id"]], file=sys.stderr)
    OUTPUT.write_text(json.dumps(out, indent=2, sort_keys=True) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
