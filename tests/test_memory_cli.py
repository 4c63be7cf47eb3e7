"""``gpulint memory``: flags and manifest forms, text and JSON, bad input."""

from __future__ import annotations

import json

import pytest
from conftest import REPO, run_cli

GIB = 1 << 30


def memory_json(*args: str) -> dict:  # type: ignore[type-arg]
    result = run_cli("memory", *args, "--format", "json")
    assert result.code == 0, result.err
    return json.loads(result.out)  # type: ignore[no-any-return]


def test_fits_at_batch_1_not_at_batch_16() -> None:
    flags = ("--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--context", "32768")
    one = memory_json(*flags, "--batch", "1")
    sixteen = memory_json(*flags, "--batch", "16")
    # Llama 3.1 8B: 32 layers x 8 KV heads x 128 head_dim x 2 (K and V) x 2 bytes = 128 KiB/token
    assert one["kv_cache_bytes_per_token"] == sixteen["kv_cache_bytes_per_token"] == 131072
    assert one["kv_cache_bytes"] == 131072 * 32768 == 4 * GIB
    assert sixteen["kv_cache_bytes"] == 16 * 131072 * 32768 == 64 * GIB
    assert (one["fits"], sixteen["fits"]) == (True, False)
    assert sixteen["parameters"] == 8030261248
    assert sixteen["weights_bytes"] == 16060522496  # equals the published safetensors total_size
    assert sixteen["available_bytes"] == 76449344128  # H100 usable total x 0.9
    assert sixteen["required_bytes"] == 87209885368
    assert (sixteen["max_batch_at_context"], sixteen["max_context_at_batch"]) == (13, 27632)
    assert sixteen["fits_one_full_sequence"] is True


def test_70b_needs_tensor_parallel() -> None:
    single = memory_json("--model", "meta-llama/Llama-3.1-70B-Instruct", "--gpu", "h100-80gb")
    assert single["fits"] is False
    four = memory_json(
        "--model",
        "meta-llama/Llama-3.1-70B-Instruct",
        "--gpu",
        "H100",
        "--count",
        "4",
        "--batch",
        "8",
        "--context",
        "8192",
    )
    assert four["weights_bytes"] == 141107412992
    assert four["kv_cache_bytes_per_token"] == 327680  # 80 layers x 8 KV heads x 128 x 2 x 2
    assert four["kv_cache_bytes"] == 8 * 8192 * 327680
    assert four["fits"] is True


def test_instance_type_and_training_mode() -> None:
    data = memory_json(
        "--model",
        "meta-llama/Llama-3.1-8B",
        "--instance-type",
        "p4de.24xlarge",
        "--method",
        "full",
        "--sharding",
        "fsdp",
        "--gradient-checkpointing",
    )
    assert (data["gpu"], data["world_size"], data["method"]) == ("A100-80GB", 8, "full")
    assert data["optimizer_bytes"] < 96363134976  # sharded: less than the unsharded 12 B/param
    full = memory_json(
        "--model", "meta-llama/Llama-3.1-8B", "--gpu", "A100-80GB", "--method", "full"
    )
    assert full["optimizer_bytes"] == 12 * 8030261248  # fp32 master weights + Adam m and v
    assert full["fits"] is False
    assert full["lora_required_bytes"] < full["available_bytes"]


def test_text_view_shows_a_bar_and_the_verdict() -> None:
    out = run_cli(
        "memory",
        "--model",
        "meta-llama/Llama-3.1-8B-Instruct",
        "--gpu",
        "H100",
        "--batch",
        "16",
        "--context",
        "32768",
    ).out.splitlines()
    assert out[0] == "meta-llama/Llama-3.1-8B-Instruct  bf16 on 1 x H100-80GB"
    assert out[3] == "  █ weights         14.96 GiB per GPU"
    assert out[4] == "  ▓ kv cache        64.00 GiB per GPU"
    bar = next(line for line in out if line.startswith("  ["))
    assert bar.endswith("] 114% of usable") and "|" in bar
    assert (
        out[-1]
        == "  DOES NOT FIT: largest batch at 32768 tokens: 13; longest context at batch 16: 27632"
    )


def test_manifest_form_uses_the_same_estimate() -> None:
    reports = memory_json(str(REPO / "examples" / "inference-chat.yaml"))
    (chat,) = reports
    assert (chat["name"], chat["gpu"], chat["batch"], chat["context"]) == (
        "support-chat",
        "L40S",
        16,
        8192,
    )
    assert chat["kv_cache_bytes"] == 16 * 8192 * 131072
    assert chat["fits"] is True


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--model", "meta-llama/Llama-3.1-8B", "--gpu", "H1000"),
            "gpulint: error: unknown GPU 'H1000'; known: T4,",
        ),
        (
            ("--model", "acme/unknown", "--gpu", "L4"),
            "gpulint: error: model 'acme/unknown' is not in the catalogue",
        ),
        (
            ("--model", "meta-llama/Llama-3.1-8B"),
            "gpulint: error: give exactly one of --gpu or --instance-type",
        ),
        (
            ("--parameters", "lots", "--gpu", "L4"),
            "gpulint: error: --parameters 'lots' is not a count",
        ),
    ],
)
def test_bad_flags_are_one_line_errors(args: tuple[str, ...], message: str) -> None:
    result = run_cli("memory", *args)
    assert result.code == 2
    assert result.err.startswith(message)
    assert len(result.err.splitlines()) == 1
