"""The training estimate term by term, on small architectures whose bytes can be counted by hand."""

from __future__ import annotations

from typing import Any

import pytest

from linter.memory import architecture_from_catalogue, estimate_training, resolve_gpu
from linter.memory.architecture import Architecture, architecture_from_hf_config
from linter.memory.lora import LoraConfig, lora_parameters, resolve_targets
from linter.memory.right_sizing import GpuSpec
from linter.memory.training import term_groups
from linter.memory.training_activations import ActivationSetting, layer_saved
from linter.memory.training_backward import layer_backward, summed_flight
from linter.memory.training_layout import layer_layout
from linter.memory.training_peak import FRAGMENT_PER_BLOCK, cublas_workspace_bytes
from linter.memory.training_regime import training_regime
from linter.memory.weights import weight_bytes

MIB = 1 << 20
#: h 64, 4 heads x 16 (q 64), 2 key/value heads (kv 32), intermediate 128, vocabulary 1000.
LLAMA = {
    "model_type": "llama",
    "vocab_size": 1000,
    "hidden_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "intermediate_size": 128,
    "tie_word_embeddings": True,
}
#: The same with 6 routed experts of 32, two per token, and no dense layer.
MOE = {
    **LLAMA,
    "model_type": "qwen3_moe",
    "head_dim": 16,
    "moe_intermediate_size": 32,
    "num_experts": 6,
    "num_experts_per_tok": 2,
}


def tiny(**changes: Any) -> Architecture:
    return architecture_from_hf_config({**LLAMA, **changes})


def h200() -> GpuSpec:
    found = resolve_gpu("H200")
    assert found is not None
    return found


def saved(arch: Architecture, regime: tuple[str, str, str], index: int = 1, **kw: Any) -> Any:
    lora = kw.pop("lora", None)
    setting = ActivationSetting(
        training_regime(*regime), lora, kw.pop("batch", 1), kw.pop("sequence", 8)
    )
    return layer_saved(arch, index, setting).per_token


def train(arch: Architecture | None, **overrides: Any) -> Any:
    kwargs: dict[str, Any] = dict(
        parameters=None,
        precision="bf16",
        method="full",
        optimizer="adamw",
        micro_batch=1,
        sequence_length=8,
        gradient_checkpointing=False,
        sharding="none",
        world_size=1,
        gpu=h200(),
        gpus_per_node=1,
    )
    kwargs.update(overrides)
    return estimate_training(arch, **kwargs)


FULL = ("full", "bf16", "adamw_bf16")
MIXED = ("full", "bf16", "adamw")
LORA = ("lora", "bf16", "adamw")


@pytest.mark.parametrize(
    ("regime", "sharded", "bytes_", "autocast"),
    [
        (MIXED, False, (4, 4, 8, 4), True),  # fp32 master weights under autocast
        (FULL, False, (2, 2, 4, 2), False),  # pure bf16: moments in bf16
        (("full", "fp32", "adamw"), False, (4, 4, 8, 4), False),
        (MIXED, True, (2, 2, 12, 4), False),  # ZeRO/FSDP: fp32 master in the optimizer
        (("full", "bf16", "adamw_fused"), False, (4, 4, 8, 0), True),
        (("full", "bf16", "adamw_8bit"), False, (4, 4, 2, 0), True),
        (("full", "bf16", "sgd"), False, (4, 4, 4, 0), True),
        (LORA, False, (4, 4, 8, 4), False),  # fp32 adapters
    ],
)
def test_regime_bytes_per_trainable_parameter(
    regime: tuple[str, str, str], sharded: bool, bytes_: tuple[int, ...], autocast: bool
) -> None:
    spec = training_regime(*regime, sharded)
    assert (spec.param_bytes, spec.grad_bytes, spec.state_bytes, spec.step_bytes) == bytes_
    assert spec.autocast is autocast
    assert spec.residual_bytes == (4 if autocast or regime[1] == "fp32" else 2)


def test_regime_bases() -> None:
    assert training_regime("lora", "bf16", "adamw").base_precision == "bf16"
    assert training_regime("qlora", "bf16", "adamw").base_precision == "nf4"
    with pytest.raises(ValueError, match="full training needs"):
        training_regime("full", "int4", "adamw")


def test_lora_parameters_are_rank_times_in_plus_out() -> None:
    arch = tiny()
    r = 8
    attention = (64 + 64) + 2 * (64 + 32) + (64 + 64)
    mlp = 2 * (64 + 128) + (128 + 64)
    assert lora_parameters(arch, LoraConfig(r)) == 2 * r * (attention + mlp)
    qv = LoraConfig(r, ("q_proj", "v_proj"))
    assert lora_parameters(arch, qv) == 2 * r * ((64 + 64) + (64 + 32))
    assert resolve_targets(arch, "attention") == ("q_proj", "k_proj", "v_proj", "o_proj")
    assert resolve_targets(arch, "mlp") == ("gate_proj", "up_proj", "down_proj")
    assert resolve_targets(arch, "all-linear") is None
    with pytest.raises(ValueError, match="match no projection"):
        lora_parameters(arch, LoraConfig(r, ("c_attn",)))


def test_lora_on_fused_experts_doubles_the_gate_up_rank() -> None:
    """peft's v4 -> v5 conversion: gate_up_proj at 2r over all experts, down_proj at r, the
    router weight at r."""
    arch = architecture_from_hf_config(MOE)
    r, e, h, i = 16, 6, 64, 32
    attention = (64 + 64) + 2 * (64 + 32) + (64 + 64)
    experts = 2 * r * e * (h + 2 * i) + r * e * (i + h)
    router = r * (h + e)
    assert lora_parameters(arch, LoraConfig(r)) == 2 * (r * attention + experts + router)
    assert lora_parameters(arch, LoraConfig(r, ("q_proj",))) == 2 * r * (64 + 64)
    with pytest.raises(ValueError, match="gate_proj or up_proj alone"):
        lora_parameters(arch, LoraConfig(r, ("gate_proj",)))
    with pytest.raises(ValueError, match="lora_dropout"):
        train(arch, method="lora", lora_dropout=0.05)


@pytest.mark.parametrize(
    ("model_id", "trainable"),
    [
        # peft 0.21.2 get_peft_model(all-linear, r=16) on transformers 5.25 models built from
        # these catalogue configs on the meta device (counted 2026-12-04)
        ("mistralai/Mixtral-8x7B-v0.1", 359_665_664),
        ("deepseek-ai/DeepSeek-V3", 7_645_254_656),  # dense layers and shared experts not adapted
        ("zai-org/GLM-4.5-Air", 1_815_963_648),
        ("Qwen/Qwen3-Next-80B-A3B-Instruct", 3_443_233_536),
        ("ai21labs/AI21-Jamba-Mini-1.5", 38_123_520),
        ("meta-llama/Llama-4-Scout-17B-16E-Instruct", 59_781_120),  # a Linear router, no experts
        ("openai/gpt-oss-20b", 7_962_624),  # attention only
        ("tiiuae/falcon-7b", 32_636_928),
        ("microsoft/Phi-3-mini-4k-instruct", 25_165_824),
        ("google/gemma-2-9b", 54_018_048),
    ],
)
def test_lora_parameters_as_peft_counts_them(model_id: str, trainable: int) -> None:
    arch = architecture_from_catalogue(model_id)
    assert arch is not None
    assert lora_parameters(arch, LoraConfig(16)) == trainable


def test_peft_refuses_mamba_out_proj() -> None:
    mamba = architecture_from_catalogue("state-spaces/mamba-2.8b-hf")
    with pytest.raises(ValueError, match="out_proj of Mamba"):
        lora_parameters(mamba, LoraConfig(16))  # type: ignore[arg-type]
    assert lora_parameters(mamba, LoraConfig(16, ("in_proj",))) > 0  # type: ignore[arg-type]
    assert train(mamba, method="full").lora_required_bytes is None


def test_full_bf16_layer_terms() -> None:
    """Norms: fp32 input, rsqrt, bf16 normalized (each of two); q/k/v share the norm output and
    gate/up another, down keeps its input; SDPA keeps q, k and v at kv width (enable_gqa), the
    output and the fp32 log-sum-exp per head; the MLP gate, activation and up outputs."""
    terms = saved(tiny(), FULL)
    h, q, kv, i, heads = 64, 64, 32, 128, 4
    assert terms == {
        "norms": 2 * (4 * h + 4 + 2 * h),
        "projection_inputs": 2 * h + 2 * h + 2 * i,
        "attention": 2 * (2 * q + 2 * kv) + 4 * heads,
        "mlp": 3 * 2 * i,
    }


def test_autocast_keeps_casts_and_weight_copies() -> None:
    arch = tiny()
    setting = ActivationSetting(training_regime(*MIXED), None, 1, 8)
    layer = layer_saved(arch, 1, setting)
    h, i = 64, 128
    assert layer.per_token["norms"] == 2 * (4 * h + 4 + 4 * h)  # the fp32 residual, normalized
    assert layer.per_token["projection_inputs"] == 2 * 5 * h + 2 * i  # a cast per projection
    weights = 64 * 64 * 2 + 2 * 64 * 32 + 3 * 64 * 128
    assert layer.per_layer == {"autocast_weight_copies": 2 * weights}


def test_lora_layer_terms() -> None:
    """A frozen base keeps no projection inputs; peft casts each adapted input to fp32 and keeps
    it and lora_A's output; dropout adds a one-byte mask per input element; the first layer's
    first norm keeps nothing (a frozen embedding feeds it)."""
    arch = tiny()
    h, q, i, r = 64, 64, 128, 8
    adapters = 5 * (4 * h + 4 * r) + (4 * q + 4 * r) + (4 * i + 4 * r)
    first = saved(arch, LORA, index=0, lora=LoraConfig(r))
    assert first["norms"] == 4 * h + 4
    assert "projection_inputs" not in first
    assert first["adapter_activations"] == adapters
    later = saved(arch, LORA, index=1, lora=LoraConfig(r, lora_dropout=0.1))
    assert later["norms"] == 2 * (4 * h + 4)
    assert later["adapter_activations"] == adapters + 5 * h + q + i


def test_masked_layers_keep_a_bias_and_repeat_kv() -> None:
    """A sliding window within the sequence: a boolean mask, so repeat_kv copies k and v to the
    query width (a view with one key/value head) and SDPA keeps the additive bias."""
    arch = tiny(model_type="mistral", sliding_window=8)
    q, kv, heads = 64, 32, 4
    masked = saved(arch, FULL, sequence=20)
    assert masked["attention"] == 2 * (4 * q) + 4 * heads
    assert masked["attention_masks"] == 2 * 32  # 20 rounded up to 16s
    assert "attention_masks" not in saved(arch, FULL, sequence=7)
    mqa = tiny(model_type="mistral", sliding_window=8, num_key_value_heads=1)
    assert saved(mqa, FULL, sequence=20)["attention"] == 2 * (2 * q + 2 * 16) + 4 * heads
    assert kv == 32


def test_fused_qkv_keeps_its_whole_output() -> None:
    """Phi-3's v is a view of qkv_proj's output, which stays alive whole; its window masks
    every layer once the sequence reaches it."""
    phi = tiny(model_type="phi3", num_key_value_heads=4, sliding_window=16)
    assert phi.training_sliding_window == 16
    q = kv = 64
    short = saved(phi, FULL, sequence=8)
    assert short["attention"] == 2 * (2 * q + 2 * kv) + 4 * 4 + 2 * (q + kv)
    assert saved(phi, FULL, sequence=16)["attention_masks"] == 2 * 16


def test_expert_dispatch_and_merged_expert_weights() -> None:
    arch = architecture_from_hf_config(MOE)
    k, e, h, i, c = 2, 6, 64, 32, 2
    full = saved(arch, FULL)
    assert full["moe_routing"] == 4 * e + 8 * k
    assert full["expert_dispatch"] == k * (24 + c * (3 * i + h) + c + c * (h + i))
    attention_only = LoraConfig(16, ("q_proj",))
    frozen = saved(arch, LORA, lora=attention_only)
    assert frozen["expert_dispatch"] == k * (24 + c * (3 * i + h) + c)
    setting = ActivationSetting(training_regime(*LORA), LoraConfig(16), 1, 8)
    merged = layer_saved(arch, 1, setting).per_layer["merged_expert_weights"]
    stacks = e * 2 * i * h + e * h * i
    factors = 32 * e * (h + 2 * i) + 16 * e * (i + h)
    assert merged == c * (stacks + factors) + c * e * h
    flight = summed_flight(arch, layer_layout(arch, 1), setting).per_layer["backward_in_flight"]
    assert flight == c * (e * 2 * i * h - e * h * i)  # gate_up's gradient once down's is freed
    # routed experts are not walked: the layer holds all it kept and that flight at once
    held = layer_backward(arch, 1, setting, True).held.per_layer
    assert held["backward_in_flight"] == flight


def _peak(regime: tuple[str, str, str], recompute: bool, lora: LoraConfig | None = None) -> Any:
    """Layer 1 of :func:`tiny` over 2048 tokens, where what is in flight outweighs the layer's
    own gradients (made or not, they decide between moments too)."""
    setting = ActivationSetting(training_regime(*regime), lora, 1, 2048)
    return layer_backward(tiny(), 1, setting, recompute)


def test_a_recomputed_lora_layer_peaks_at_its_up_projection() -> None:
    """Checkpointed, LoRA on every linear: the rerun forward stops at the last tensor it saves;
    at up_proj, lora_B's fp32 output and its scaled copy sit beside the base output, while the
    residual, the normed input, the arriving gradient and down's two branch gradients wait;
    down's tensors and up's output do not exist yet, and no gradient of the layer is made."""
    h, i, r = 64, 128, 8
    lora = LoraConfig(r)
    kept = saved(tiny(), LORA, lora=lora)
    peak = _peak(LORA, True, lora)
    stream = 2 * h + 2 * h + 2 * h + (4 * h + 2 * h)
    assert peak.held.per_token == {
        **kept,
        "adapter_activations": kept["adapter_activations"] - (4 * i + 4 * r),
        "mlp": kept["mlp"] - 2 * i,
        "recompute_in_flight": stream + 2 * i + 8 * i,
    }
    assert peak.pending_gradients == 4 * lora_parameters(tiny(), lora) // 2


def test_a_lora_layer_backward_peaks_at_down_projection() -> None:
    """Without checkpointing: down's input gradient in fp32 from lora_A while the base branch's
    16-bit gradient waits, beside everything the layer kept and the arriving gradient; the
    product's (3 x I) and up's (8 x I) moments come after down's tensors are freed."""
    h, i = 64, 128
    lora = LoraConfig(8)
    peak = _peak(LORA, False, lora)
    assert peak.held.per_token == {
        **saved(tiny(), LORA, lora=lora),
        "backward_in_flight": 2 * h + 4 * i + 2 * h,
    }


@pytest.mark.parametrize(
    ("regime", "lora", "freed", "flight"),
    [
        # full: down's input is freed before the product's gradient and both factors' exist
        (FULL, None, {"projection_inputs": 2 * 128}, 2 * 64 + 3 * 2 * 128),
        # LoRA on attention only: the frozen MLP keeps nothing of down's
        (LORA, LoraConfig(8, ("q_proj", "v_proj")), {}, 2 * 64 + 3 * 2 * 128),
    ],
)
def test_the_gated_product_backward(
    regime: tuple[str, str, str], lora: LoraConfig | None, freed: dict[str, int], flight: int
) -> None:
    kept = saved(tiny(), regime, lora=lora)
    peak = _peak(regime, True, lora)
    assert peak.held.per_token == {
        **{name: value - freed.get(name, 0) for name, value in kept.items()},
        "backward_in_flight": flight,
    }


def test_full_training_holds_only_the_mlp_gradients_it_has_made() -> None:
    """At the product's backward only down's weight gradient exists; the attention's, gate's
    and up's come later."""
    peak = _peak(FULL, False)
    attention = 64 * 64 + 2 * 64 * 32 + 64 * 64
    assert peak.pending_gradients == 2 * (attention + 2 * 64 * 128)


def test_a_trained_embedding_backward_holds_every_gradient() -> None:
    """The input embedding's backward comes last: every gradient, the gradient reaching it, the
    kernel's fp32 partial sums and int64 indices; a tied embedding's gradient is a new tensor
    until it is added to the lm_head's."""
    arch = tiny()
    est = train(arch, optimizer="adamw_fused", sequence_length=512, logits_held=False)
    tokens, h, vocab = 512, 64, 1000
    phase = est.phases["backward (embedding)"] - est.terms["cuda_context"]
    state = {"weights": 4, "optimizer_states": 8, "gradients": 4}
    per_token = 4 * h + 4 * h + 48
    expected = sum(state.values()) * arch.parameters + 2 * 32 * MIB
    assert phase == expected + per_token * tokens + 4 * vocab * h
    assert "backward (embedding)" not in train(arch, method="lora").phases


def test_a_checkpointed_moe_forward_builds_the_merged_expert_weights() -> None:
    arch = architecture_from_hf_config(MOE)
    est = train(arch, method="lora", gradient_checkpointing=True, sequence_length=512)
    merged = layer_saved(
        arch, 1, ActivationSetting(training_regime(*LORA), LoraConfig(16), 1, 512)
    ).per_layer["merged_expert_weights"]
    layer_inputs = 2 * 512 * 64 * 2
    base = est.phases["forward (layer)"] - est.phases["optimizer step"]
    assert base == layer_inputs + merged - 2 * est.trainable_parameters * 4
    assert "forward (layer)" not in train(arch, method="lora", sequence_length=512).phases


def test_loss_terms_and_held_logits() -> None:
    """At the loss's backward: nll_loss's gradient, log_softmax's output and its gradient, fp32;
    a loop keeping the model output adds its bf16 logits."""
    arch = tiny()
    held = train(arch, method="lora", micro_batch=2, sequence_length=64)
    freed = train(arch, method="lora", micro_batch=2, sequence_length=64, logits_held=False)
    tokens, vocab = 128, 1000
    assert held.peak_phase == "loss backward"
    assert held.terms["loss_fp32"] == 3 * 4 * vocab * tokens
    assert held.terms["held_logits"] == 2 * vocab * tokens
    assert held.required_bytes - freed.required_bytes == 2 * vocab * tokens
    assert "held_logits" not in freed.terms


def test_checkpointing_keeps_layer_inputs() -> None:
    """At the loss's backward a checkpointed model holds each layer's input and nothing of the
    layers' insides; the recomputed layer's tensors come back in the layer phases."""
    arch = tiny()
    est = train(arch, method="lora", gradient_checkpointing=True, sequence_length=512)
    assert est.peak_phase == "loss backward"
    assert est.terms["checkpointed_inputs"] == 2 * 512 * 64 * 2
    assert not {"norms", "attention", "mlp", "adapter_activations"} & set(est.terms)
    plain = train(arch, method="lora", sequence_length=512)
    assert plain.terms["adapter_activations"] > 0 and "checkpointed_inputs" not in plain.terms


def test_optimizer_step_holds_everything_and_its_buffer() -> None:
    llama = architecture_from_catalogue("meta-llama/Llama-3.1-8B")
    n = 8_030_261_248
    foreach = train(llama, sequence_length=512, gradient_checkpointing=True)
    fused = train(llama, sequence_length=512, gradient_checkpointing=True, optimizer="adamw_fused")
    assert foreach.peak_phase == "optimizer step"
    assert foreach.terms["optimizer_step"] == 4 * n and "optimizer_step" not in fused.terms
    # the fused step adds nothing to the gradients: the embedding's backward, which holds
    # them all and its own transients, is the peak
    embedding = 512 * (4 * 4096 + 4 * 4096 + 48)
    assert fused.peak_phase == "backward (embedding)"
    assert foreach.required_bytes - fused.required_bytes == 4 * n - embedding


def test_persisting_gradients_join_every_phase() -> None:
    arch = tiny()
    kept = train(arch, optimizer="adamw_bf16", sequence_length=256, gradients_persist=True)
    freed = train(arch, optimizer="adamw_bf16", sequence_length=256)
    assert kept.peak_phase == freed.peak_phase == "loss backward"
    assert kept.required_bytes - freed.required_bytes == 2 * arch.parameters


def test_zero3_shards_weights_and_gathers_two_layers() -> None:
    llama = architecture_from_catalogue("meta-llama/Llama-3.1-8B")
    assert llama is not None
    est = train(llama, sharding="zero3", world_size=8, sequence_length=512)
    n = llama.parameters
    assert (est.weights_bytes, est.optimizer_bytes) == (-(-2 * n // 8), -(-12 * n // 8))
    layer = 4096 * (4096 + 2 * 1024) + 4096 * 4096 + 3 * 4096 * 14336
    assert est.terms["gathered_weights"] == 2 * layer * 2


def test_qlora_dequantises_its_largest_weight_in_backward() -> None:
    llama = architecture_from_catalogue("meta-llama/Llama-3.1-8B")
    assert llama is not None
    est = train(llama, method="qlora", sequence_length=512, gradient_checkpointing=True)
    assert est.weights_bytes == weight_bytes(llama, None, "nf4") + 4 * est.trainable_parameters
    setting = ActivationSetting(training_regime("qlora", "bf16", "adamw"), LoraConfig(16), 1, 512)
    held = layer_backward(llama, 0, setting, True).held.per_layer
    assert held["dequantization_buffer"] == 2 * 4096 * 14336


def test_fragmentation_counts_large_blocks_only() -> None:
    """Small tensors share 2 MiB segments: a tiny model strands nothing; a large one half a
    granule per large live block."""
    assert train(tiny()).fragmentation_bytes == 0
    llama = architecture_from_catalogue("meta-llama/Llama-3.1-8B")
    est = train(llama, sequence_length=512, gradient_checkpointing=True)
    matrices = 32 * 7 + 2
    # the optimizer step: weights, gradients, two moments and the step's buffer of each
    # matrix, and the logits the loop still holds
    assert est.fragmentation_bytes == (5 * matrices + 1) * FRAGMENT_PER_BLOCK
    assert est.available_bytes == h200().usable_bytes - est.fragmentation_bytes


def test_runtime_terms() -> None:
    assert cublas_workspace_bytes("9.0") == 32 * MIB
    assert cublas_workspace_bytes("8.0") == 4096 * 2 * 1024 + 16 * 8 * 1024
    est = train(tiny())
    assert est.terms["cuda_context"] == est.overhead_bytes == 647_561_216  # measured, H200
    assert est.terms["cublas_workspaces"] == 2 * 32 * MIB
    a100 = resolve_gpu("A100-80GB")
    assert train(tiny(), gpu=a100).overhead_bytes == int(0.75 * 2**30)
    groups = dict(term_groups(est.terms))
    assert [name for name, _ in groups["overhead"]] == ["cuda_context", "cublas_workspaces"]
    assert sum(v for items in groups.values() for _, v in items) == est.required_bytes


def test_as_dict_names_every_term() -> None:
    data = train(tiny(), method="lora", lora_targets=("q_proj", "v_proj")).as_dict()
    assert data["lora_targets"] == ["q_proj", "v_proj"]
    assert data["peak_phase"] in data["phases"]
    assert sum(data["terms"].values()) == data["required_bytes"]
