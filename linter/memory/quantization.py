"""Which precision a checkpoint's weights are stored in, from its config or a vLLM method name.

A Hugging Face ``config.json`` of a quantised checkpoint carries ``quantization_config`` with a
``quant_method`` (vLLM's ``--quantization`` names, vllm/model_executor/layers/quantization); its
fields select the storage format: ``bits`` (AWQ, GPTQ), ``weight_block_size`` (block FP8),
``load_in_8bit`` (bitsandbytes), ``config_groups`` (compressed-tensors W8A8 / W4A16 / FP8) and
``quant_algo`` (ModelOpt NVFP4). An unquantised config says ``torch_dtype`` (``dtype`` in
transformers 5). Layers a checkpoint keeps unquantised are listed under the method's own key
(:data:`EXCLUSION_KEYS`): Meta's Llama-3.1-405B FP8 keeps every attention projection and the
first and last MLP in bf16.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.catalog.precisions import find_precision, find_quantization_method, precision_names

_TORCH_DTYPES = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32"}
#: quantization_config keys listing modules stored unquantised: transformers' own and fbgemm
#: (modules_to_not_convert), compressed-tensors (ignore), ModelOpt (exclude_modules), and
#: block FP8 (ignored_layers).
EXCLUSION_KEYS = ("modules_to_not_convert", "ignore", "exclude_modules", "ignored_layers")


class QuantizationError(ValueError):
    """A quantisation method or config gpulint cannot map to a storage format."""


def _compressed_tensors(config: Mapping[str, Any]) -> str:
    groups = config.get("config_groups")
    if not isinstance(groups, Mapping) or not groups:
        raise QuantizationError("compressed-tensors quantization_config without config_groups")
    weights = [g.get("weights") for g in groups.values() if isinstance(g, Mapping)]
    schemes = {(w.get("num_bits"), w.get("type")) for w in weights if isinstance(w, Mapping)}
    if len(schemes) != 1:
        raise QuantizationError(f"compressed-tensors with mixed weight schemes {sorted(schemes)!r}")
    ((bits, kind),) = schemes
    found: dict[tuple[Any, Any], str] = {
        (8, "float"): "fp8",
        (8, "int"): "int8",
        (4, "int"): "int4",
        (4, "float"): "nvfp4",
    }
    if (bits, kind) not in found:
        raise QuantizationError(f"compressed-tensors {bits}-bit {kind} weights are not modelled")
    return found[(bits, kind)]


def precision_of_method(method: str, config: Mapping[str, Any] | None = None) -> str:
    """The precision vLLM's ``--quantization method`` stores weights in; ``config`` (the
    ``quantization_config``) picks among a method's formats."""
    spec = find_quantization_method(method)
    if spec is None:
        raise QuantizationError(f"quantization method {method!r} is not modelled")
    config = config or {}
    selector = spec.precision_from
    if selector == "bits" and config.get("bits") not in (None, 4):
        if config.get("bits") != 8:
            raise QuantizationError(f"{spec.name} with {config.get('bits')} bits is not modelled")
        return "int8"
    if selector == "weight_block_size" and config.get("weight_block_size"):
        return "fp8-block"
    if selector == "load_in_8bit" and config.get("load_in_8bit"):
        return "int8"
    if selector == "config_groups" and config:
        return _compressed_tensors(config)
    if spec.name == "fp8" and str(config.get("quant_algo", "")).upper() in ("NVFP4", "FP4"):
        return "nvfp4"
    return spec.precision


def checkpoint_precision(config: Mapping[str, Any]) -> str | None:
    """Precision of the checkpoint a config describes; None when it does not say."""
    quantization = config.get("quantization_config")
    if isinstance(quantization, Mapping):
        method = quantization.get("quant_method") or quantization.get("quant_algo")
        if not isinstance(method, str):
            raise QuantizationError("quantization_config has no quant_method")
        return precision_of_method(method, quantization)
    declared = config.get("checkpoint_dtype")
    if isinstance(declared, str):
        spec = find_precision(declared)
        if spec is None:
            raise QuantizationError(
                f"checkpoint_dtype {declared!r} is not one of {', '.join(precision_names())}"
            )
        return spec.name
    dtype = config.get("torch_dtype") or config.get("dtype")
    return _TORCH_DTYPES.get(dtype) if isinstance(dtype, str) else None


def unquantised_modules(config: Mapping[str, Any]) -> tuple[str, ...]:
    """Module names (or ``re:`` patterns) a quantised checkpoint stores unquantised; empty for
    an unquantised config."""
    quantization = config.get("quantization_config")
    if not isinstance(quantization, Mapping):
        return ()
    names: list[str] = []
    for key in EXCLUSION_KEYS:
        listed = quantization.get(key)
        if listed is None:
            continue
        if not isinstance(listed, list) or not all(isinstance(n, str) for n in listed):
            raise QuantizationError(f"quantization_config {key!r} must be a list of module names")
        names.extend(listed)
    return tuple(names)
