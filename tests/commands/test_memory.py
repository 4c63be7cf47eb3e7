"""``gpulint memory``: flags and manifest forms, text and JSON, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import REPO, run_cli

GIB = 1 << 30


def memory_json(*args: str) -> dict:  # type: ignore[type-arg]
    result = run_cli("memory", *args, "--format", "json")
    data = json.loads(result.out)
    fits = [entry.get("fits") for entry in (data if isinstance(data, list) else [data])]
    assert result.code == (1 if False in fits else 0), result.err
    return data  # type: ignore[no-any-return]


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
    assert sixteen["available_bytes"] == 78148218442  # H100 usable total x 0.92 (vLLM 0.33)
    assert sixteen["required_bytes"] == 90414941797
    assert (sixteen["max_batch_at_context"], sixteen["max_context_at_batch"]) == (13, 26912)
    assert sixteen["fits_one_full_sequence"] is True
    assert (sixteen["kv_cache_tokens"], sixteen["max_concurrency"]) == (430688, 13.14)
    assert sixteen["starts"] is True and sixteen["refusal"] is None


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
    # fp32 master weights under autocast, fp32 gradients, Adam m and v in fp32
    assert (full["weights_bytes"], full["optimizer_bytes"]) == (4 * 8030261248, 8 * 8030261248)
    assert full["fits"] is False
    assert full["lora_required_bytes"] < full["available_bytes"]


def test_training_flags_reach_the_estimate() -> None:
    flags = ("--model", "meta-llama/Llama-3.2-1B", "--gpu", "H200", "--method", "lora")
    shape = ("--batch", "4", "--context", "2048")
    custom = memory_json(*flags, *shape)
    trainer = memory_json(
        *flags,
        *shape,
        "--lora-rank",
        "8",
        "--lora-targets",
        "q_proj,v_proj",
        "--loop",
        "trainer",
        "--gradient-accumulation",
        "4",
    )
    assert (custom["lora_targets"], custom["logits_held"]) == (None, True)
    assert custom["trainable_parameters"] == 11272192  # all-linear r=16, as peft counts it
    assert trainer["lora_targets"] == ["q_proj", "v_proj"]
    assert trainer["trainable_parameters"] == 16 * 8 * (2048 + 2048 + 2048 + 512)
    assert (trainer["logits_held"], trainer["gradients_persist"]) == (False, True)
    assert custom["terms"]["held_logits"] == 2 * 8192 * 128256  # bf16 logits of 4 x 2048 tokens
    assert "held_logits" not in trainer["terms"]
    assert sum(custom["terms"].values()) == custom["required_bytes"]


def test_training_text_names_the_terms_at_the_peak() -> None:
    out = run_cli(
        "memory",
        "--model",
        "meta-llama/Llama-3.2-1B",
        "--gpu",
        "H200",
        "--method",
        "lora",
        "--batch",
        "4",
        "--context",
        "2048",
    ).out.splitlines()
    assert out[1].endswith("LoRA r=16 on all-linear")
    assert out[2] == "peak: loss backward"
    assert "      adapter activations           10.05 GiB" in out
    assert "      loss fp32                     11.74 GiB" in out
    assert "      cuda context                   0.60 GiB" in out


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (("--lora-targets", ","), "--lora-targets names no module"),
        (("--gradient-accumulation", "0"), "--gradient-accumulation must be at least 1"),
        (("--lora-targets", "c_attn"), "match no projection"),
    ],
)
def test_bad_training_flags(flags: tuple[str, ...], message: str) -> None:
    result = run_cli(
        "memory", "--model", "meta-llama/Llama-3.2-1B", "--gpu", "H200", "--method", "lora", *flags
    )
    assert result.code == 2 and message in result.err


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
    assert bar.endswith("] 116% of usable") and "|" in bar
    assert out[-7:] == [
        "  DOES NOT FIT: largest batch at 32768 tokens: 13; longest context at batch 16: 26912",
        "",
        "  vLLM 0.33.0 (default: a current release), V1 engine: profiles one scheduler step; "
        "CUDA graphs inside the KV budget",
        "  GPU KV cache size: 430,688 tokens",
        "  Maximum concurrency for 32,768 tokens per request: 13.14x",
        "  vLLM starts",
        "  assumed: vLLM 0.33.0 (serving.engineVersion unset)",
    ]


def test_default_precision_is_the_checkpoints() -> None:
    """issue 13: gpt-oss-20b is an MXFP4 checkpoint, not 39 GiB of bf16."""
    data = memory_json("--model", "openai/gpt-oss-20b", "--gpu", "L4")
    assert data["precision"] == "mxfp4"
    assert data["weights_bytes"] == 14_678_736_000
    assert data["starts"] is True


def test_vllm_flags_change_the_budget() -> None:
    flags = ("--model", "openai/gpt-oss-120b", "--gpu", "H100", "--engine-version", "0.11")
    refused = memory_json(
        *flags, "--gpu-memory-utilization", "0.95", "--max-num-batched-tokens", "1024"
    )
    assert refused["starts"] is False and refused["max_startable_model_len"] == 51488
    assert refused["refusal"].startswith(
        "To serve at least one request with the model's max seq len (131072)"
    )
    fewer = memory_json(
        *flags,
        "--gpu-memory-utilization",
        "0.95",
        "--max-num-batched-tokens",
        "1024",
        "--max-num-seqs",
        "64",
        "--enforce-eager",
    )
    assert fewer["starts"] is True and fewer["max_num_seqs"] == 64
    assert fewer["kv_pool_bytes"] > refused["kv_pool_bytes"]


def test_quantization_flag_names_vllms_methods() -> None:
    flags = ("--model", "Qwen/Qwen2.5-7B-Instruct", "--gpu", "L4")
    awq = memory_json(*flags, "--quantization", "awq_marlin")
    assert awq["precision"] == "int4"
    bad = run_cli("memory", *flags, "--quantization", "hqq")
    assert (bad.code, bad.err) == (
        2,
        "gpulint: error: quantization method 'hqq' is not modelled\n",
    )


LOG = """\
(APIServer pid=1) INFO 04-18 20:22:57 [utils.py:299] version 0.19.0
(APIServer pid=1) INFO [utils.py:233] non-default args: {'model': 'openai/gpt-oss-20b', \
'max_model_len': 131072, 'gpu_memory_utilization': 0.65}
(EngineCore_DP0 pid=2) INFO [gpu_model_runner.py:3659] Model loading took 13.72 GiB memory
(EngineCore_DP0 pid=2) INFO [gpu_worker.py:360] Available KV cache memory: 36.56 GiB
"""


def test_from_log_prints_prediction_beside_measurement(tmp_path: Path) -> None:
    log = tmp_path / "vllm.log"
    log.write_text(LOG, encoding="utf-8")
    result = run_cli("memory", "--from-log", str(log), "--gpu", "A100-80GB")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0] == "openai/gpt-oss-20b on 1 x A100-80GB, max_model_len 131072"
    assert lines[4] == "  weights per GPU            13.72 GiB       13.67 GiB"
    assert lines[5] == "  available KV cache         36.56 GiB       35.27 GiB"
    assert lines[8] == "  start-up                     started          starts"
    assert lines[11:13] == ["    - gpu: A100-80GB", '      engine_version: "0.19.0"']
    assert "      non_kv_delta_bytes: -1387786162" in lines


def test_from_log_reads_the_gpu_the_log_names_or_asks_for_it(tmp_path: Path) -> None:
    log = tmp_path / "vllm.log"
    log.write_text(LOG, encoding="utf-8")
    unnamed = run_cli("memory", "--from-log", str(log))
    assert (unnamed.code, unnamed.out) == (2, "")
    assert unnamed.err == (
        f"gpulint: error: {log}: the log does not name its GPU (no 'GPU 0: ...' line); "
        "give --gpu or --instance-type\n"
    )
    log.write_text("INFO GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1)\n" + LOG, encoding="utf-8")
    named = run_cli("memory", "--from-log", str(log))
    assert named.code == 0, named.err
    assert named.out.splitlines()[0] == "openai/gpt-oss-20b on 1 x A100-80GB, max_model_len 131072"


def test_a_log_that_names_no_model_asks_for_one(tmp_path: Path) -> None:
    log = tmp_path / "vllm.log"
    log.write_text("INFO [gpu_model_runner.py] Model loading took 14.99 GiB memory\n")
    result = run_cli("memory", "--from-log", str(log), "--gpu", "H100")
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        f"gpulint: error: {log}: the log names no model; give --model or --model-config\n"
    )


def test_calibration_file_corrects_the_estimate(tmp_path: Path) -> None:
    calibration = tmp_path / "calibration.yaml"
    calibration.write_text(
        "calibrations:\n"
        "  - gpu: A100-80GB\n"
        '    engine_version: "0.19"\n'
        "    non_kv_delta_bytes: -1387786162\n"
        '    source: "a start-up log"\n',
        encoding="utf-8",
    )
    flags = ("--model", "openai/gpt-oss-20b", "--gpu", "A100-80GB", "--engine-version", "0.19.0")
    flags += ("--gpu-memory-utilization", "0.65")
    data = memory_json(*flags, "--calibration", str(calibration))
    assert data["kv_pool_bytes"] == round(36.56 * GIB)


def test_bad_calibration_file_is_one_line_with_a_position(tmp_path: Path) -> None:
    calibration = tmp_path / "calibration.yaml"
    calibration.write_text("calibrations:\n  - gpu: H100\n    engine_version: x\n", "utf-8")
    result = run_cli(
        "memory", "--model", "Qwen/Qwen2.5-7B", "--gpu", "L4", "--calibration", str(calibration)
    )
    assert result.code == 2
    assert result.err.startswith(
        f"gpulint: error: {calibration}:3:5: calibrations.0.engine_version"
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


def test_readme_memory_example_is_real_output() -> None:
    """README's "The memory calculator" shows what the current code prints (serving, then
    training)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## The memory calculator", 1)[1].split("\n## ", 1)[0]
    blocks = [part.split("```", 1)[0] for part in section.split("```text\n")[1:]]
    assert len(blocks) == 2
    for block in blocks:
        command, shown = block.split("\n", 1)
        assert command.startswith("$ gpulint memory ")
        result = run_cli(*command.removeprefix("$ gpulint ").split())
        assert result.code == 1, result.err  # both examples show DOES NOT FIT
        assert result.out == shown


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--context", "8192"), 0),
        (("--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4"), 1),
        (("--model", "Qwen/Qwen3-30B-A3B", "--gpu", "H200", "--method", "lora"), 1),
        (("--model", "Qwen/Qwen2.5-7B", "--gpu", "H200", "--method", "lora"), 0),
    ],
)
def test_does_not_fit_exits_1_as_check_does(args: tuple[str, ...], code: int) -> None:
    for form in ((), ("--format", "json")):
        result = run_cli("memory", *args, *form)
        assert result.code == code, result.err
        assert ("DOES NOT FIT" in result.out or '"fits": false' in result.out) == (code == 1)


def test_a_manifest_that_does_not_fit_exits_1(tmp_path: Path) -> None:
    fits = run_cli("memory", str(REPO / "examples" / "inference-chat.yaml"))
    assert fits.code == 0, fits.err
    manifest = tmp_path / "big.yaml"
    text = (REPO / "examples" / "inference-chat.yaml").read_text(encoding="utf-8")
    assert "maxContextTokens: 8192" in text
    manifest.write_text(text.replace("maxContextTokens: 8192", "maxContextTokens: 131072"), "utf-8")
    result = run_cli("memory", str(manifest))
    assert result.code == 1, result.err
    assert "DOES NOT FIT" in result.out


SERVE = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata:
  name: chat
spec:
  profile: inference
  model:
    id: openai/gpt-oss-20b
  serving:
    engine: vllm
    engineVersion: "0.19.0"
    gpuMemoryUtilization: 0.65
    maxBatchSize: 16
    maxContextTokens: 131072
  resources:
    accelerator: {type: A100-80GB, count: 1}
  lifecycle: {scaleToZero: true}
"""
CALIBRATION = """\
calibrations:
  - gpu: A100-80GB
    engine_version: "0.19"
    non_kv_delta_bytes: -1387786162
    source: "a start-up log"
"""


@pytest.mark.parametrize("cached", [False, True])
def test_check_applies_calibration_as_memory_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cached: bool
) -> None:
    """The same correction in both commands (1,387,786,162 bytes less outside the KV cache
    moves it from 1,609,570 to 1,665,977 tokens); a kept report is not reused across it."""
    if cached:
        monkeypatch.delenv("GPULINT_NO_CACHE")
        monkeypatch.setenv("GPULINT_CACHE_DIR", str(tmp_path / "cache"))
    manifest = tmp_path / "serve.yaml"
    manifest.write_text(SERVE, encoding="utf-8")
    calibration = tmp_path / "calibration.yaml"
    calibration.write_text(CALIBRATION, encoding="utf-8")
    plain = run_cli("check", "--select", "GL102", str(manifest))
    calibrated = run_cli(
        "check", "--select", "GL102", "--calibration", str(calibration), str(manifest)
    )
    prefix = f"{manifest}:13:5: GL102 [warning] spec.serving.maxBatchSize 16, but the KV cache"
    assert (plain.code, calibrated.code) == (0, 0)
    message = f"{prefix} holds 12 sequences of 131072 tokens per A100-80GB: vLLM queues the rest"
    advice = (
        "    help: lower spec.serving.maxBatchSize to 12, or spec.serving.maxContextTokens to "
        "{context} tokens, or add GPUs; at 131072 tokens each of 1 x A100-80GB holds 12 sequences "
        "at once (GPU KV cache size {tokens} tokens, maximum concurrency {concurrency}x)"
    )
    assert plain.out.splitlines()[:2] == [
        message,
        advice.format(context=98512, tokens=1609570, concurrency=12.28),
    ]
    assert calibrated.out.splitlines()[:2] == [
        message,
        advice.format(context=102032, tokens=1665977, concurrency=12.71),
    ]
    sized = memory_json(str(manifest), "--calibration", str(calibration))
    assert sized[0]["kv_cache_tokens"] == 1665977
    assert memory_json(str(manifest))[0]["kv_cache_tokens"] == 1609570


def test_check_refuses_a_bad_calibration_file(tmp_path: Path) -> None:
    calibration = tmp_path / "calibration.yaml"
    calibration.write_text("calibrations:\n  - gpu: H100\n    engine_version: x\n", "utf-8")
    result = run_cli("check", "--calibration", str(calibration), str(REPO / "examples"))
    assert (result.code, result.out) == (2, "")
    assert result.err.startswith(
        f"gpulint: error: {calibration}:3:5: calibrations.0.engine_version"
    )


def test_the_gpus_memory_shown_is_what_the_estimate_multiplied(tmp_path: Path) -> None:
    """79.11 GiB for an H100 (the catalogue's torch-visible total), or a calibration's measured
    total where it applies; usable is that times gpuMemoryUtilization (0.9 for vLLM 0.11)."""
    calibration = tmp_path / "calibration.yaml"
    calibration.write_text(
        'calibrations:\n  - gpu: H100-80GB\n    engine_version: "0.11"\n'
        '    torch_visible_bytes: 85000000000\n    source: "a start-up log"\n',
        encoding="utf-8",
    )
    flags = ("--model", "Qwen/Qwen2.5-7B", "--gpu", "H100", "--engine-version", "0.11.0")
    flags += ("--context", "8192")
    for extra, line in (
        ((), "    usable          71.20 GiB per GPU (of 79.11 GiB)"),
        (
            ("--calibration", str(calibration)),
            "    usable          71.25 GiB per GPU (of 79.16 GiB)",
        ),
    ):
        result = run_cli("memory", *flags, *extra)
        assert result.code == 0, result.err
        assert line in result.out.splitlines()
    data = memory_json(*flags, "--calibration", str(calibration))
    assert (data["usable_bytes"], data["gpu_usable_bytes"]) == (85000000000, 85000000000)
