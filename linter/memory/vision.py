"""Vision towers of vision-language models: their exact parameter count and the activation peak
vLLM measures when it profiles the encoder on the largest image.

Counts reproduce transformers' modules (checked on the meta device in
tests/memory/data/reference.json): Qwen2.5-VL (RMSNorm blocks, gated MLP with biases, a
2x2-patch merger) and Qwen3-VL and Qwen3.5 (LayerNorm blocks, plain MLP, learned position
embeddings and, in Qwen3-VL, "deepstack" mergers feeding intermediate layers into the language
model), Gemma 3 (a SigLIP
encoder pooled to a fixed 256 tokens per image), and Llama 4 (a ViT
over 14-pixel patches, a pixel-shuffle adapter and a projector into the language model). vLLM
profiles the
encoder with one item of the maximum feature size (its log: "Encoder cache will be initialized
with a budget of 16384 tokens, and profiled with 1 image items of the maximum feature size");
the peak is one vision block's live tensors over every patch of that image plus the merged
embeddings it hands to the language model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.records import datarecord

#: Language-model type of each vision-language model type (transformers' text_config types).
TEXT_TYPES = {
    "gemma3": "gemma3_text",
    "llama4": "llama4_text",
    "qwen2_5_vl": "qwen2",
    "qwen3_5": "qwen3_5_text",
    "qwen3_vl": "qwen3",
    "qwen3_vl_moe": "qwen3_moe",
}


class VisionError(ValueError):
    """A vision config that cannot be counted exactly."""


@datarecord
class VisionTower:
    parameters: int
    hidden_size: int
    intermediate_size: int
    gated_mlp: bool
    merge_factor: int  # patches per language-model token (spatial_merge_size squared)
    out_hidden_size: int
    #: Language-model tokens of every image when the tower emits a fixed number (Gemma 3: 256);
    #: None when it grows with the image (then the engine's largest profiled image is used).
    image_tokens: int | None = None

    def profile_peak_bytes(self, image_tokens: int, element_bytes: int = 2) -> int:
        """Activation peak of encoding one image of ``image_tokens`` language-model tokens (or
        of the tower's fixed count)."""
        image_tokens = self.image_tokens or image_tokens
        patches = image_tokens * self.merge_factor
        h, i = self.hidden_size, self.intermediate_size
        mlp = h + (3 if self.gated_mlp else 2) * i
        per_patch = max(5 * h, mlp)
        return element_bytes * (patches * per_patch + image_tokens * self.out_hidden_size)


def _int(config: Mapping[str, Any], key: str, default: int | None = None) -> int:
    value = config.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise VisionError(f"vision_config {key!r} must be a positive integer, got {value!r}")
    return value


def _qwen2_5(config: Mapping[str, Any], out: int) -> VisionTower:
    h, i = _int(config, "hidden_size"), _int(config, "intermediate_size")
    depth, patch = _int(config, "depth"), _int(config, "patch_size", 14)
    temporal, merge = _int(config, "temporal_patch_size", 2), _int(config, "spatial_merge_size", 2)
    channels = _int(config, "in_channels", config.get("in_chans", 3))
    merged = merge * merge * h
    block = 2 * h + (3 * h * h + 3 * h) + (h * h + h) + (3 * h * i + 2 * i + h)
    merger = h + (merged * merged + merged) + (merged * out + out)
    params = channels * temporal * patch * patch * h + depth * block + merger
    return VisionTower(params, h, i, True, merge * merge, out)


def _qwen3(config: Mapping[str, Any], out: int) -> VisionTower:
    h, i = _int(config, "hidden_size"), _int(config, "intermediate_size")
    depth, patch = _int(config, "depth"), _int(config, "patch_size", 16)
    temporal, merge = _int(config, "temporal_patch_size", 2), _int(config, "spatial_merge_size", 2)
    channels = _int(config, "in_channels", 3)
    positions = _int(config, "num_position_embeddings", 2304)
    deepstack = config.get("deepstack_visual_indexes") or []
    if not isinstance(deepstack, list):
        raise VisionError("vision_config 'deepstack_visual_indexes' must be a list")
    merged = merge * merge * h
    block = 4 * h + (3 * h * h + 3 * h) + (h * h + h) + (2 * h * i + i + h)
    mlp = (merged * merged + merged) + (merged * out + out)
    merger = 2 * h + mlp
    deepstack_mergers = len(deepstack) * (2 * merged + mlp)
    embed = channels * temporal * patch * patch * h + h + positions * h
    params = embed + depth * block + merger + deepstack_mergers
    return VisionTower(params, h, i, False, merge * merge, out)


def _llama4(config: Mapping[str, Any], text_hidden: int) -> VisionTower:
    h, i = _int(config, "hidden_size"), _int(config, "intermediate_size")
    layers, patch = _int(config, "num_hidden_layers"), _int(config, "patch_size", 14)
    image, channels = _int(config, "image_size", 448), _int(config, "num_channels", 3)
    adapter_in, adapter_out = (
        _int(config, "projector_input_dim", 4096),
        _int(config, "projector_output_dim", 4096),
    )
    output = _int(config, "vision_output_dim", 7680)
    ratio = config.get("pixel_shuffle_ratio", 0.5)
    if not isinstance(ratio, (int, float)) or not 0 < ratio <= 1:
        raise VisionError(f"vision_config 'pixel_shuffle_ratio' must be in (0, 1], got {ratio!r}")
    positions = (image // patch) ** 2 + 1
    embed = h + positions * h + h * channels * patch * patch + 2 * (2 * h)
    layer = 4 * (h * h + h) + (h * i + i) + (i * h + h) + 2 * (2 * h)
    adapter = i * adapter_in + adapter_out * adapter_out
    projector = output * text_hidden
    params = embed + layers * layer + adapter + projector
    return VisionTower(params, h, i, False, round(1 / (ratio * ratio)), text_hidden)


def _siglip(config: Mapping[str, Any], text_hidden: int, image_tokens: int) -> VisionTower:
    """Gemma 3's SigLIP encoder and its projector (a soft-embedding RMS norm and one matrix)."""
    h, i = _int(config, "hidden_size"), _int(config, "intermediate_size")
    layers, patch = _int(config, "num_hidden_layers"), _int(config, "patch_size", 14)
    image, channels = _int(config, "image_size", 896), _int(config, "num_channels", 3)
    patches = (image // patch) ** 2
    embed = h * channels * patch * patch + h + patches * h
    mlp = (h * i + i) + (i * h + h)
    layer = 4 * (h * h + h) + 2 * (2 * h) + mlp
    head = h + (3 * h * h + 3 * h) + (h * h + h) + 2 * h + mlp
    params = embed + layers * layer + 2 * h + (head if config.get("vision_use_head") else 0)
    params += h * text_hidden + h
    return VisionTower(params, h, i, False, patches // image_tokens, text_hidden, image_tokens)


def vision_tower(model_type: str, config: Mapping[str, Any], text_hidden: int) -> VisionTower:
    """The vision tower of a ``model_type`` config (its ``vision_config``)."""
    vision = config.get("vision_config")
    if not isinstance(vision, Mapping):
        raise VisionError(f"{model_type} config has no vision_config")
    if model_type == "llama4":
        return _llama4(vision, text_hidden)
    if model_type == "gemma3":
        return _siglip(vision, text_hidden, _int(config, "mm_tokens_per_image", 256))
    out = _int(vision, "out_hidden_size", text_hidden)
    if model_type == "qwen2_5_vl":
        return _qwen2_5(vision, out)
    if model_type in ("qwen3_vl", "qwen3_vl_moe", "qwen3_5"):  # Qwen3.5: no deepstack mergers
        return _qwen3(vision, out)
    raise VisionError(f"the vision tower of {model_type!r} is not modelled")
