"""The decoder's weight matrices by their checkpoint names, and the ones a quantised checkpoint
keeps unquantised (``modules_to_not_convert``, ``ignore``, ...).

Names follow transformers' modules (``model.layers.3.self_attn.q_proj``,
``model.layers.0.mlp.down_proj``; routed and shared experts as ``model.layers.5.mlp.experts``
and ``...mlp.shared_experts``; an MLA attention block as ``model.layers.7.self_attn``). An
exclusion matches a module when it names it, a module it contains (``model.layers.0.mlp``), the
module's last part (``o_proj``), or, written ``re:PATTERN``, fully matches it (compressed-tensors'
syntax); vLLM skips quantisation for the same layers (``is_layer_skipped``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from linter.memory.architecture import STATE, Architecture

_PREFIX = "model."


def matrix_modules(arch: Architecture) -> Iterator[tuple[str, int]]:
    """(module name, parameters) of every decoder weight matrix weight-only formats quantise."""
    h = arch.hidden_size
    dense_projections = (
        ("gate_proj", "up_proj", "down_proj") if arch.gated_mlp else ("up_proj", "down_proj")
    )
    first_moe = arch.dense_layers
    for index in range(arch.num_hidden_layers):
        layer = f"model.layers.{index}"
        if arch.layer_types[index] == STATE and arch.state_mixer is not None:
            yield f"{layer}.mixer", arch.state_mixer.matrix_parameters
        elif arch.is_mla:
            yield f"{layer}.self_attn", arch.attention_matrix_parameters
        else:
            yield f"{layer}.self_attn.q_proj", h * arch.q_dim
            yield f"{layer}.self_attn.k_proj", h * arch.kv_dim
            yield f"{layer}.self_attn.v_proj", h * arch.kv_dim
            yield f"{layer}.self_attn.o_proj", arch.q_dim * h
        if arch.moe_layers and index >= first_moe:
            yield f"{layer}.mlp.experts", arch.expert_parameters // arch.moe_layers
            if arch.shared_expert_intermediate_size:
                shared = len(dense_projections) * h * arch.shared_expert_intermediate_size
                yield f"{layer}.mlp.shared_experts", shared
        else:
            for name in dense_projections:
                yield f"{layer}.mlp.{name}", h * arch.intermediate_size


@functools.lru_cache(maxsize=1024)
def _pattern(entry: str) -> re.Pattern[str] | None:
    if not entry.startswith("re:"):
        return None
    try:
        return re.compile(entry[3:])
    except re.error:
        return None


def excluded(module: str, entries: tuple[str, ...]) -> bool:
    """Whether ``module`` is one of (or inside one of) the excluded ``entries``."""
    short = module.removeprefix(_PREFIX)
    last = module.rsplit(".", 1)[-1]
    for entry in entries:
        pattern = _pattern(entry)
        if pattern is not None:
            if pattern.fullmatch(module) or pattern.fullmatch(short):
                return True
            continue
        bare = entry.removeprefix(_PREFIX)
        if bare in (short, last) or short.startswith(bare + "."):
            return True
    return False


def unquantised_matrix_parameters(arch: Architecture) -> int:
    """Parameters of the decoder matrices the checkpoint keeps unquantised."""
    entries = arch.unquantised_modules
    if not entries:
        return 0
    return sum(count for name, count in matrix_modules(arch) if excluded(name, entries))
