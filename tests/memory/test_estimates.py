"""estimate_inference / estimate_training outcomes and the KV rules they rely on."""

from __future__ import annotations

import json

import pytest

from linter.memory import (
    architecture_from_catalogue,
    estimate_inference,
    estimate_training,
    resolve_gpu,
)
from linter.memory.architecture import Architecture
from linter.memory.kv_cache import kv_bytes_per_token
from linter.memory.right_sizing import GpuSpec
from linter.memory.units import GIB
from linter.memory.weights import weight_bytes


def arch(model_id: str) -> Architecture:
    found = architecture_from_catalogue(model_id)
    assert found is not None
    return found


def gpu(name: str) -> GpuSpec:
    found = resolve_gpu(name)
    assert found is not None
    return found


def test_kv_tensor_parallel_divides_then_replicates() -> None:
    llama70 = arch("meta-llama/Llama-3.1-70B")
    assert kv_bytes_per_token(llama70, 2, tp=1) == 327_680
    assert kv_bytes_per_token(llama70, 2, tp=8) == 327_680 // 8
    assert kv_bytes_per_token(llama70, 2, tp=16) == 327_680 // 8  # 8 KV heads: replicated


def test_kv_mla_is_latent_and_replicated() -> None:
    v3 = arch("deepseek-ai/DeepSeek-V3")
    assert kv_bytes_per_token(v3, 2) == 70_272
    assert kv_bytes_per_token(v3, 2, tp=8) == 70_272


def test_kv_fp8_halves() -> None:
    assert kv_bytes_per_token(arch("Qwen/Qwen3-8B"), 1) == 147_456 // 2


def test_8b_fits_at_batch_1_not_16_at_32k() -> None:
    llama = arch("meta-llama/Llama-3.1-8B-Instruct")
    kwargs = dict(
        parameters=None,
        precision="bf16",
        kv_precision=None,
        context=32_768,
        gpu=gpu("H100"),
        gpus=1,
    )
    one = estimate_inference(llama, batch=1, **kwargs)  # type: ignore[arg-type]
    sixteen = estimate_inference(llama, batch=16, **kwargs)  # type: ignore[arg-type]
    assert one.fits and one.fits_one_full_sequence
    assert not sixteen.fits
    assert one.kv_cache_bytes == 4 * GIB and sixteen.kv_cache_bytes == 64 * GIB
    assert one.max_batch_at_context == sixteen.max_batch_at_context == 13
    assert sixteen.max_context_at_batch == 26_912
    assert one.required_bytes == 16_060_522_496 + 4 * GIB + one.activation_bytes + (
        one.overhead_bytes
    )
    assert one.available_bytes == 78_148_218_442  # ceil(84,943,715,697 x 0.92), vLLM 0.33
    # the sampler warm-up over 1,024 sequences (1,024 x 128,256 x 38 B) outgrows the
    # 8,192-token forward (8,192 x 110,592 B); they run one after the other (H100-class defaults)
    assert one.activation_bytes == 1024 * 128_256 * 38
    assert one.overhead_bytes == int(0.2 * GIB) + int(0.4 * GIB)  # non-torch + CUDA graphs


def test_engine_version_selects_the_accounting() -> None:
    llama = arch("meta-llama/Llama-3.1-8B-Instruct")
    kwargs = dict(
        parameters=None, precision=None, kv_precision=None, batch=1, context=20_000, gpus=1
    )
    v0 = estimate_inference(llama, gpu=gpu("RTX 3090"), engine_version="0.6.4", **kwargs)  # type: ignore[arg-type]
    assert v0.activation_bytes == 20_000 * 110_592  # one max_model_len prefill
    assert v0.cuda_graph_bytes == 0 and v0.gpu_memory_utilization == 0.9
    assert v0.accounting.startswith("vLLM 0.6.4, V0 engine")
    v1 = estimate_inference(llama, gpu=gpu("RTX 3090"), engine_version="0.11", **kwargs)  # type: ignore[arg-type]
    assert v1.activation_bytes == 256 * 128_256 * 38  # the sampler outgrows 2,048 tokens
    eager = estimate_inference(
        llama,
        gpu=gpu("RTX 3090"),
        engine_version="0.21",
        enforce_eager=True,
        **kwargs,  # type: ignore[arg-type]
    )
    assert eager.cuda_graph_bytes == 0
    with pytest.raises(ValueError, match="engine version 'next'"):
        estimate_inference(llama, gpu=gpu("L4"), engine_version="next", **kwargs)  # type: ignore[arg-type]


def test_chunked_prefill_default_arrived_in_0_5_4() -> None:
    llama = arch("meta-llama/Llama-3.1-8B-Instruct")
    kwargs = dict(parameters=None, precision=None, kv_precision=None, batch=1, context=65_536)
    old = estimate_inference(llama, gpu=gpu("H100"), gpus=1, engine_version="0.5.3", **kwargs)  # type: ignore[arg-type]
    new = estimate_inference(llama, gpu=gpu("H100"), gpus=1, engine_version="0.5.4", **kwargs)  # type: ignore[arg-type]
    assert old.activation_bytes == 65_536 * 110_592  # the whole max_model_len in one prefill
    # a 512-token chunk (512 x 110,592 B) is below the sampler's fp32 logits of 256 sequences
    assert new.activation_bytes == 256 * 128_256 * 4


def test_v0_2_5_keeps_every_all_reduce_input_under_tensor_parallelism() -> None:
    llama = arch("meta-llama/Llama-2-70b-hf")
    kwargs = dict(parameters=None, precision=None, kv_precision=None, batch=1, context=4096)
    tp1 = estimate_inference(llama, gpu=gpu("A100-80GB"), gpus=1, engine_version="0.2.5", **kwargs)  # type: ignore[arg-type]
    tp4 = estimate_inference(llama, gpu=gpu("A100-80GB"), gpus=4, engine_version="0.2.5", **kwargs)  # type: ignore[arg-type]
    fixed = estimate_inference(
        llama, gpu=gpu("A100-80GB"), gpus=4, engine_version="0.2.6", **kwargs
    )  # type: ignore[arg-type]
    retained = 2 * 80 * 4096 * 8192 * 2  # two all-reduces per layer, [tokens, hidden] in 16 bits
    assert tp4.activation_bytes is not None and fixed.activation_bytes is not None
    assert tp4.activation_bytes - fixed.activation_bytes == retained
    assert tp1.activation_bytes == 4096 * 2 * (3 * 28_672 + 3 * 8192)  # no all-reduce on one GPU


def test_unknown_checkpoint_precision_is_assumed_and_said() -> None:
    est = estimate_inference(
        None,
        parameters=7e9,
        precision=None,
        kv_precision=None,
        batch=1,
        context=4096,
        gpu=gpu("L4"),
        gpus=1,
    )
    assert est.precision == "bf16"
    assert "weights bf16 (the checkpoint's precision unknown)" in est.assumed
    assert est.starts is None and est.kv_cache_tokens is None


def test_70b_bf16_does_not_fit_one_h100_but_int4_does() -> None:
    llama = arch("meta-llama/Llama-3.1-70B-Instruct")
    kwargs = dict(
        parameters=None, kv_precision=None, batch=1, context=8192, gpu=gpu("H100"), gpus=1
    )
    bf16 = estimate_inference(llama, precision="bf16", **kwargs)  # type: ignore[arg-type]
    int4 = estimate_inference(llama, precision="int4", **kwargs)  # type: ignore[arg-type]
    assert not bf16.fits and bf16.kv_pool_bytes is not None and bf16.kv_pool_bytes < 0
    assert int4.fits and int4.headroom_fraction > 0.3


def test_tensor_parallel_splits_weights() -> None:
    llama = arch("meta-llama/Llama-3.1-70B-Instruct")
    est = estimate_inference(
        llama,
        parameters=None,
        precision="bf16",
        kv_precision="fp8",
        batch=8,
        context=8192,
        gpu=gpu("H100"),
        gpus=4,
    )
    assert est.weights_bytes_per_gpu == 141_107_412_992 // 4
    assert est.kv_cache_bytes_per_token == 327_680 // 2  # fp8, all GPUs together
    assert est.fits


def test_without_architecture_kv_is_unknown() -> None:
    est = estimate_inference(
        None,
        parameters=8e9,
        precision="bf16",
        kv_precision=None,
        batch=1,
        context=4096,
        gpu=gpu("L4"),
        gpus=1,
    )
    assert est.weights_bytes == 16_000_000_000
    assert est.kv_cache_bytes is None and est.kv_cache_bytes_per_token is None
    assert est.fits_one_full_sequence is None and est.max_batch_at_context is None
    assert est.as_dict()["kv_known"] is False


def test_context_beyond_model_max_is_flagged() -> None:
    est = estimate_inference(
        arch("microsoft/Phi-3-mini-4k-instruct"),
        parameters=None,
        precision="bf16",
        kv_precision=None,
        batch=1,
        context=8192,
        gpu=gpu("A10G"),
        gpus=1,
    )
    assert est.context_exceeds_model_max and est.model_max_context == 4096
    assert est.max_context_at_batch == 4096


def test_as_dict_is_json_ready_with_int_bytes() -> None:
    est = estimate_inference(
        arch("Qwen/Qwen2.5-7B"),
        parameters=None,
        precision="bf16",
        kv_precision=None,
        batch=4,
        context=8192,
        gpu=gpu("L4"),
        gpus=1,
    )
    data = json.loads(json.dumps(est.as_dict()))
    for key in (
        "parameters",
        "weights_bytes",
        "kv_cache_bytes",
        "required_bytes",
        "available_bytes",
        "kv_cache_bytes_per_token",
        "activation_bytes",
    ):
        assert isinstance(data[key], int), key
    assert data["per_gpu"]["required_bytes"] == est.required_bytes


def test_bad_inputs_raise() -> None:
    with pytest.raises(ValueError):
        estimate_inference(
            None,
            parameters=None,
            precision="bf16",
            kv_precision=None,
            batch=1,
            context=1,
            gpu=gpu("L4"),
            gpus=1,
        )
    with pytest.raises(ValueError, match="kv precision"):
        estimate_inference(
            arch("Qwen/Qwen2.5-7B"),
            parameters=None,
            precision="bf16",
            kv_precision="int2",
            batch=1,
            context=1,
            gpu=gpu("L4"),
            gpus=1,
        )


def train(model: Architecture | None, **overrides: object):  # type: ignore[no-untyped-def]
    kwargs: dict[str, object] = dict(
        parameters=None,
        precision="bf16",
        method="full",
        optimizer="adamw",
        micro_batch=1,
        sequence_length=4096,
        gradient_checkpointing=True,
        sharding="none",
        world_size=1,
        gpu=gpu("H100"),
        gpus_per_node=8,
    )
    kwargs.update(overrides)
    return estimate_training(model, **kwargs)  # type: ignore[arg-type]


def test_full_mixed_precision_is_16_bytes_per_param() -> None:
    """Trainer's bf16=True on an fp32 model: fp32 weights and gradients, AdamW's fp32 moments."""
    llama = arch("meta-llama/Llama-3.1-8B")
    est = train(llama)
    n = 8_030_261_248
    assert (est.weights_bytes, est.gradients_bytes, est.optimizer_bytes) == (4 * n, 4 * n, 8 * n)
    assert est.step_workspace_bytes == 4 * n  # foreach AdamW's sqrt(exp_avg_sq)
    assert est.peak_phase == "optimizer step"
    assert not est.fits  # ~120 GiB of model state on one 80 GB GPU
    assert est.lora_required_bytes < est.available_bytes
    assert est.qlora_required_bytes < est.lora_required_bytes < est.full_required_bytes


def test_zero3_shards_everything() -> None:
    llama = arch("meta-llama/Llama-3.1-8B")
    est = train(llama, sharding="zero3", world_size=8)
    n = 8_030_261_248
    assert est.weights_bytes == 2 * n // 8 and est.optimizer_bytes == 12 * n // 8
    assert est.fits and est.nodes == 1
    zero1 = train(llama, sharding="zero1", world_size=8)
    assert zero1.weights_bytes == 2 * n and zero1.optimizer_bytes == 12 * n // 8


def test_qlora_base_is_nf4() -> None:
    llama = arch("meta-llama/Llama-3.1-70B")
    est = train(llama, method="qlora", gpu=gpu("A100-80GB"))
    base = weight_bytes(llama, None, "nf4")
    assert round(base / GIB, 2) == 36.80  # memory.md §2 NF4 column
    assert est.weights_bytes == base + 4 * est.trainable_parameters  # + fp32 adapters
    assert est.fits


def test_training_without_architecture() -> None:
    est = train(None, parameters=7e9, sharding="fsdp", world_size=16)
    assert est.activation_bytes is None and est.lora_required_bytes is None
    assert est.nodes == 2
    with pytest.raises(ValueError, match="architecture"):
        train(None, parameters=7e9, method="lora")


def test_training_bad_options() -> None:
    with pytest.raises(ValueError, match="optimizer"):
        train(arch("meta-llama/Llama-3.2-1B"), optimizer="lion")
    with pytest.raises(ValueError, match="full training"):
        train(arch("meta-llama/Llama-3.2-1B"), precision="int4")


def test_hybrid_state_pages_set_the_block_size() -> None:
    """Qwen3-Next: 36 gated-delta layers keep (8,192 x 3 conv + 32 x 128 x 128) bf16 values per
    sequence; vLLM raises the attention block to 544 tokens so a page of 2,048-byte tokens holds
    one state, and pads the state to that page."""
    from linter.memory.kv_cache import block_tokens, sequence_kv_bytes, state_page_bytes

    nxt = arch("Qwen/Qwen3-Next-80B-A3B-Instruct")
    assert (nxt.attention_layers, nxt.state_layers) == (12, 36)
    assert state_page_bytes(nxt, 2) == (8192 * 3 + 32 * 128 * 128) * 2 == 1_097_728
    assert block_tokens(nxt, 2) == 544
    assert sequence_kv_bytes(nxt, 262_144, 2) == 12 * 262_208 * 2048 + 36 * 544 * 2048
    # TP4: 2 KV heads replicate to 1 per rank (1,024 B/token); the state splits 4 ways
    assert block_tokens(nxt, 2, tp=4) == 16 * -(-274_432 // (16 * 1024)) == 272


def test_mamba_state_does_not_grow_with_context() -> None:
    from linter.memory.kv_cache import sequence_kv_bytes

    mamba = arch("state-spaces/mamba-2.8b-hf")
    assert kv_bytes_per_token(mamba, 2) == 0
    per_sequence = 64 * (5120 * 3 + 5120 * 16) * 2
    assert sequence_kv_bytes(mamba, 4096, 2) == sequence_kv_bytes(mamba, 1_000_000, 2)
    assert sequence_kv_bytes(mamba, 4096, 2) == per_sequence
    est = estimate_inference(
        mamba,
        parameters=None,
        precision=None,
        kv_precision=None,
        batch=1,
        context=1_000_000,
        gpu=gpu("L4"),
        gpus=1,
    )
    assert est.precision == "bf16"  # vLLM's --dtype auto serves float32 checkpoints in 16-bit
    assert est.starts is True
    assert est.max_concurrency == round(est.kv_pool_bytes / per_sequence, 2)


def test_chunked_attention_holds_one_chunk() -> None:
    """Llama 4 Scout: 36 chunked-attention layers keep at most one 8,192-token chunk (plus the
    tokens of one scheduler step); only the 12 full layers grow with the context."""
    from linter.memory.kv_cache import sequence_kv_bytes

    scout = arch("meta-llama/Llama-4-Scout-17B-16E-Instruct")
    per_layer = 2 * 8 * 128 * 2
    assert (scout.full_attention_layers, scout.chunked_attention_layers) == (12, 36)
    assert sequence_kv_bytes(scout, 1_000_000, 2) == (12 * 1_000_000 + 36 * 8192) * per_layer
    assert sequence_kv_bytes(scout, 4096, 2) == 48 * 4096 * per_layer
    assert (
        sequence_kv_bytes(scout, 100_000, 2, in_flight_tokens=2048)
        == (12 * 100_000 + 36 * (8192 + 2048)) * per_layer
    )
