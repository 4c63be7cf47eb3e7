"""Weight bytes per precision against published checkpoint sizes and memory.md §2 derived sizes."""

from __future__ import annotations

import pytest

from linter.memory import architecture_from_catalogue
from linter.memory.units import GIB
from linter.memory.weights import weight_bytes


@pytest.mark.parametrize(
    ("model_id", "total_size"),
    [  # published model.safetensors.index.json total_size (memory.md §2)
        ("meta-llama/Llama-3.1-8B", 16_060_522_496),
        ("meta-llama/Llama-3.1-70B", 141_107_412_992),
        ("mistralai/Mistral-7B-v0.3", 14_496_047_104),
        ("mistralai/Mixtral-8x7B-v0.1", 93_405_585_408),
        ("Qwen/Qwen2.5-7B", 15_231_233_024),
        ("Qwen/Qwen2.5-3B", 6_171_877_376),
    ],
)
def test_bf16_weights_match_published_checkpoints(model_id: str, total_size: int) -> None:
    arch = architecture_from_catalogue(model_id)
    assert arch is not None
    assert abs(weight_bytes(arch, None, "bf16") / total_size - 1) < 0.02
    # the count alone, without the catalogued checkpoint size, is also exact for these
    assert 2 * arch.parameters == total_size


@pytest.mark.parametrize(
    ("model_id", "precision", "gib"),
    [  # memory.md §2 "Derived sizes" table
        ("meta-llama/Llama-3.1-8B", "fp8", 8.46),
        ("meta-llama/Llama-3.1-8B", "int4", 5.33),
        ("meta-llama/Llama-3.1-8B", "nf4", 5.31),
        ("meta-llama/Llama-3.1-70B", "int8", 67.67),
        ("meta-llama/Llama-3.1-70B", "int4", 37.04),
        ("Qwen/Qwen2.5-72B", "nf4", 38.38),
        ("google/gemma-2-9b", "int4", 5.74),
        ("deepseek-ai/DeepSeek-V3", "fp8", 626.8),
        ("openai/gpt-oss-120b", "mxfp4", 65.89),  # as vLLM pads it: 65.97 logged (#23278)
        ("openai/gpt-oss-20b", "int4", 11.73),
    ],
)
def test_quantised_sizes_match_notes(model_id: str, precision: str, gib: float) -> None:
    arch = architecture_from_catalogue(model_id)
    assert arch is not None
    assert weight_bytes(arch, None, precision) / GIB == pytest.approx(gib, abs=0.1)


def test_exact_bytes_llama_8b_int4() -> None:
    arch = architecture_from_catalogue("meta-llama/Llama-3.1-8B")
    # 6,979,321,856 matrix params x 4.15625 bits / 8 + 1,050,939,392 other params x 2 B
    assert weight_bytes(arch, None, "int4") == 3_625_975_808 + 2_101_878_784


def test_parameters_only() -> None:
    assert weight_bytes(None, 7e9, "bf16") == 14_000_000_000
    assert weight_bytes(None, 7e9, "int8") == 7_000_000_000
    with pytest.raises(ValueError):
        weight_bytes(None, None, "bf16")
    with pytest.raises(ValueError, match="precision"):
        weight_bytes(None, 7e9, "int3")
