"""The precision catalogue: one list of names, real bits per format, config quantisation."""

from __future__ import annotations

import typing
from fractions import Fraction

import pytest

from linter.catalog.precisions import precision_names
from linter.memory.architecture import ArchitectureError, architecture_from_hf_config
from linter.memory.quantization import checkpoint_precision, precision_of_method
from linter.memory.units import kv_element_bytes, matrix_bits
from linter.model.workload import Precision


def test_workload_literal_equals_the_catalogue() -> None:
    assert typing.get_args(Precision) == precision_names()


@pytest.mark.parametrize(
    ("precision", "bits"),
    [
        ("bf16", Fraction(16)),
        ("int4", Fraction(4) + Fraction(20, 128)),
        ("nf4", Fraction(4) + Fraction(8, 64) + Fraction(32, 64 * 256)),
        ("mxfp4", Fraction(17, 4)),
        ("nvfp4", Fraction(9, 2)),
        ("fp8-block", Fraction(8) + Fraction(32, 16384)),
        ("AWQ", Fraction(4) + Fraction(20, 128)),
    ],
)
def test_bits_per_value(precision: str, bits: Fraction) -> None:
    assert matrix_bits(precision) == bits


def test_kv_dtypes() -> None:
    assert kv_element_bytes("fp8_e4m3", "bf16") == 1
    assert kv_element_bytes(None, "fp32") == 4 and kv_element_bytes(None, "mxfp4") == 2
    with pytest.raises(ValueError, match="kv precision 'nf4'"):
        kv_element_bytes("nf4", "bf16")


@pytest.mark.parametrize(
    ("config", "precision"),
    [
        ({"quantization_config": {"quant_method": "mxfp4"}}, "mxfp4"),
        ({"quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128}}, "int4"),
        ({"quantization_config": {"quant_method": "gptq", "bits": 8}}, "int8"),
        (
            {"quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}},
            "fp8-block",
        ),
        ({"quantization_config": {"quant_method": "fp8"}}, "fp8"),
        ({"quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": True}}, "nf4"),
        ({"quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4"}}, "nvfp4"),
        (
            {
                "quantization_config": {
                    "quant_method": "compressed-tensors",
                    "config_groups": {"group_0": {"weights": {"num_bits": 4, "type": "int"}}},
                }
            },
            "int4",
        ),
        (
            {
                "quantization_config": {
                    "quant_method": "compressed-tensors",
                    "config_groups": {"group_0": {"weights": {"num_bits": 8, "type": "int"}}},
                }
            },
            "int8",
        ),
        ({"torch_dtype": "bfloat16"}, "bf16"),
        ({"dtype": "float16"}, "fp16"),
        ({}, None),
    ],
)
def test_checkpoint_precision_from_config(config: dict[str, object], precision: str) -> None:
    assert checkpoint_precision(config) == precision


def test_method_names_as_vllm_spells_them() -> None:
    assert precision_of_method("awq_marlin") == "int4"
    assert precision_of_method("modelopt_fp4") == "nvfp4"


def test_tgi_bitsandbytes_methods() -> None:
    """TGI --quantize: bitsandbytes-nf4 and -fp4 store 4-bit blocks of 64 (the NF4 layout); TGI's
    plain bitsandbytes is 8-bit (read as bitsandbytes-int8, unlike vLLM's 4-bit default)."""
    assert precision_of_method("bitsandbytes-nf4") == "nf4"
    assert precision_of_method("bitsandbytes-fp4") == "nf4"
    assert precision_of_method("bitsandbytes-int8") == "int8"


def test_unknown_quantisation_is_refused_with_the_reason() -> None:
    config = {"model_type": "llama", "quantization_config": {"quant_method": "hqq"}}
    with pytest.raises(ArchitectureError, match="quantization method 'hqq' is not modelled"):
        architecture_from_hf_config(config)
