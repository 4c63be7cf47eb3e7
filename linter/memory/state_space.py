"""State-space and linear-attention layers: a recurrent state per sequence instead of a KV cache.

vLLM keeps, per sequence and layer, a convolution state and a temporal (SSM) state whose sizes
do not grow with the context (vllm/model_executor/layers/mamba/mamba_utils.py
``MambaStateShapeCalculator``): Mamba-1 ``(d_inner/tp, d_conv - 1)`` and ``(d_inner/tp,
d_state)``; a gated delta net (Qwen3-Next) ``(conv_dim/tp, kernel - 1)`` and ``(v_heads/tp,
k_head_dim, v_head_dim)``, both in the model's dtype by default (``mamba_ssm_cache_dtype``
auto). Parameter counts follow transformers' modules (checked in tests/memory/data/reference.json).
"""

from __future__ import annotations

from typing import Literal

from linter.records import datarecord

MixerKind = Literal["mamba", "gated_delta"]


@datarecord
class StateMixer:
    """One layer's state-space mixer (it replaces attention in that layer)."""

    kind: MixerKind
    matrix_parameters: int  # linear projections (what weight-only formats quantise)
    vector_parameters: int  # conv kernels, decay and skip terms, biases, inner norms
    conv_channels: int
    conv_kernel: int
    state_heads: int  # mamba: d_inner channels; gated delta: value heads
    state_rows: int  # mamba: d_state; gated delta: key head dim
    state_cols: int  # mamba: 1; gated delta: value head dim

    def state_bytes(self, tp: int, element_bytes: int) -> int:
        """Per-sequence state of one layer on one tensor-parallel rank."""
        conv = (self.conv_channels // tp) * (self.conv_kernel - 1)
        temporal = (self.state_heads // tp) * self.state_rows * self.state_cols
        return (conv + temporal) * element_bytes


def mamba_mixer(
    hidden: int,
    inner: int,
    state: int,
    conv_kernel: int,
    dt_rank: int,
    *,
    conv_bias: bool,
    proj_bias: bool,
    inner_norms: bool,
) -> StateMixer:
    """A Mamba-1 mixer: in_proj (h -> 2 d), depthwise conv, x_proj (d -> dt_rank + 2 state),
    dt_proj (dt_rank -> d, with bias), A_log (d x state), D (d), out_proj (d -> h); Jamba adds
    RMS norms on dt, B and C (``inner_norms``)."""
    matrices = hidden * 2 * inner + inner * (dt_rank + 2 * state) + dt_rank * inner + inner * hidden
    vectors = inner * conv_kernel + inner * conv_bias + inner + inner * state + inner
    vectors += proj_bias * (2 * inner + hidden)
    if inner_norms:
        vectors += dt_rank + 2 * state
    return StateMixer("mamba", matrices, vectors, inner, conv_kernel, inner, state, 1)


def gated_delta_mixer(
    hidden: int, key_heads: int, value_heads: int, key_dim: int, value_dim: int, conv_kernel: int
) -> StateMixer:
    """A gated delta net (Qwen3-Next ``linear_attn``): in_proj_qkvz, in_proj_ba, a depthwise
    conv over q, k and v, dt_bias and A_log per value head, a gated RMS norm and out_proj.
    Qwen3.5 splits the two input projections into in_proj_qkv, in_proj_z, in_proj_b and
    in_proj_a of the same total width."""
    keys, values = key_heads * key_dim, value_heads * value_dim
    conv_channels = 2 * keys + values
    matrices = hidden * (2 * keys + 2 * values) + hidden * 2 * value_heads + values * hidden
    vectors = conv_channels * conv_kernel + 2 * value_heads + value_dim
    return StateMixer(
        "gated_delta",
        matrices,
        vectors,
        conv_channels,
        conv_kernel,
        value_heads,
        key_dim,
        value_dim,
    )
