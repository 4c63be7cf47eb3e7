"""KV-cache bytes per token and per sequence, as vLLM's paged cache accounts them.

Sources (memory.md §1.2, §1.3): vLLM ``AttentionSpec.page_size_bytes = block_size * n_kv *
(head_size + head_size_v) * dtype``; ``get_num_kv_heads`` replicates KV heads when the tensor
parallel degree exceeds them (per rank: ``max(1, n_kv // tp)``); ``MLAAttentionSpec`` caches one
latent of ``kv_lora_rank + qk_rope_head_dim`` per token and layer, replicated on every TP rank;
``SlidingWindowSpec.max_admission_blocks_per_request = cdiv(min(W - 1 + max_in_flight_tokens,
max_model_len), block) + 1``; ``ChunkedLocalAttentionSpec`` (Llama 4) ``cdiv(min(chunk +
max_num_batched_tokens, max_model_len), block)``; ``CacheConfig.DEFAULT_BLOCK_SIZE = 16``.
Hybrid models (attention plus state-space layers) get one page per state layer and sequence;
vLLM raises the attention block size until an attention page is at least a state page and pads
the state page to the same size (``HybridAttentionMambaModelConfig.verify_and_update_config``:
"Setting attention block size to N tokens to ensure that attention page size is >= mamba page
size").
"""

from __future__ import annotations

from dataclasses import replace

from linter.memory.architecture import Architecture

BLOCK_SIZE = 16


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def pipeline_stage(arch: Architecture, stages: int) -> Architecture:
    """The layers of the pipeline stage holding the most of them: vLLM's ``get_pp_indices``
    gives each stage ``L // stages`` layers and one more to ``L % stages`` of them."""
    if stages < 1:
        raise ValueError("pipeline stages must be >= 1")
    if stages == 1:
        return arch
    layers = _cdiv(arch.num_hidden_layers, stages)
    moe = min(arch.moe_layers, layers)
    return replace(
        arch, num_hidden_layers=layers, layer_types=arch.layer_types[:layers], moe_layers=moe
    )


def kv_bytes_per_token_per_layer(arch: Architecture, element_bytes: int, tp: int = 1) -> int:
    """Bytes one token adds to one attention layer on one tensor-parallel rank."""
    if tp < 1:
        raise ValueError("tensor-parallel degree must be >= 1")
    if arch.is_mla:
        return (arch.kv_lora_rank + arch.qk_rope_head_dim) * element_bytes
    return 2 * max(1, arch.num_key_value_heads // tp) * arch.head_dim * element_bytes


def kv_bytes_per_token(
    arch: Architecture, element_bytes: int, tp: int = 1, *, full_layers_only: bool = False
) -> int:
    """Per-rank bytes per token over all attention layers (or only full-attention layers: the
    growth per token once the sliding windows are full)."""
    layers = arch.full_attention_layers if full_layers_only else arch.attention_layers
    return layers * kv_bytes_per_token_per_layer(arch, element_bytes, tp)


def state_page_bytes(arch: Architecture, element_bytes: int, tp: int = 1) -> int:
    """One state layer's per-sequence state on one rank (0 without state layers); states stay
    in the model's 16-bit dtype when the KV cache is fp8."""
    if arch.state_mixer is None or not arch.state_layers:
        return 0
    return arch.state_mixer.state_bytes(tp, max(element_bytes, 2))


def block_tokens(arch: Architecture, element_bytes: int, tp: int = 1) -> int:
    """Tokens per KV block: 16, or for a hybrid model the multiple of 16 whose attention page
    holds one state page."""
    state = state_page_bytes(arch, element_bytes, tp)
    if not state or not arch.attention_layers:
        return BLOCK_SIZE
    per_token = kv_bytes_per_token_per_layer(arch, element_bytes, tp)
    return BLOCK_SIZE * max(1, _cdiv(state, BLOCK_SIZE * per_token))


def sequence_kv_bytes(
    arch: Architecture,
    tokens: int,
    element_bytes: int,
    tp: int = 1,
    *,
    in_flight_tokens: int = 0,
    block_size: int = BLOCK_SIZE,
) -> int:
    """Per-rank KV bytes one sequence of ``tokens`` holds, in whole blocks."""
    if tokens <= 0:
        return 0
    per_layer = kv_bytes_per_token_per_layer(arch, element_bytes, tp)
    state = state_page_bytes(arch, element_bytes, tp)
    if state:
        block_size = block_tokens(arch, element_bytes, tp)
    full_tokens = _cdiv(tokens, block_size) * block_size
    total = arch.full_attention_layers * full_tokens
    if arch.sliding_attention_layers:
        window = arch.sliding_window or tokens
        kept = min(window - 1 + in_flight_tokens, tokens)
        sliding_tokens = (_cdiv(kept, block_size) + 1) * block_size
        total += arch.sliding_attention_layers * sliding_tokens
    if arch.chunked_attention_layers:
        chunk = arch.attention_chunk_size or tokens
        chunk_tokens = _cdiv(min(chunk + in_flight_tokens, tokens), block_size) * block_size
        total += arch.chunked_attention_layers * chunk_tokens
    page = max(state, block_size * per_layer) if arch.attention_layers else state
    return total * per_layer + arch.state_layers * page


def max_tokens_within(
    arch: Architecture,
    budget_bytes: int,
    element_bytes: int,
    tp: int = 1,
    *,
    batch: int = 1,
    in_flight_tokens: int = 0,
    limit: int = 1 << 24,
) -> int:
    """Largest sequence length whose KV for ``batch`` sequences fits ``budget_bytes`` (binary
    search, as vLLM's "estimated maximum model length"), capped at ``limit``."""

    def fits(n: int) -> bool:
        return (
            batch * sequence_kv_bytes(arch, n, element_bytes, tp, in_flight_tokens=in_flight_tokens)
            <= budget_bytes
        )

    if budget_bytes <= 0 or not fits(1):
        return 0
    low, high = 1, limit
    if fits(high):
        return high
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if fits(mid) else (low, mid)
    return low
