"""Which projections LoRA adapts, as peft resolves ``target_modules``, and their parameters.

``all-linear`` (peft ``tuners/tuners_utils.py`` ``_maybe_include_all_linear_layers``) targets every
``nn.Linear`` but the model's output embeddings (``lm_head``). An explicit list matches a module by
its last name (``check_target_module_exists``: the key equals the name or ends in ``.name``).

Routed experts: transformers 5 fuses them into 3-D parameters and turns the router into a module
holding a weight, so neither is an ``nn.Linear`` any more. For the model types transformers
converts from their v4 layout (``conversion_mapping._MODEL_TO_CONVERSION_PATTERN``: Mixtral- and
Qwen2-MoE-style, :data:`CONVERTED_MOE_TYPES`), peft maps the v4 names onto the fused parameters
(``utils/transformers_weight_conversion.py`` ``_convert_peft_config_moe``): ``gate`` becomes the
router weight, ``gate_proj`` + ``up_proj`` (Mixtral ``w1`` + ``w3``) the fused ``gate_up_proj``
with rank and alpha doubled, ``down_proj`` (``w2``) ``down_proj``; ``all-linear`` includes all
three. Each is wrapped in a ``ParamWrapper`` whose ``lora_A`` is ``Linear(in, r x E)`` and
``lora_B`` ``Linear(r x E, out)`` over all ``E`` experts at once (``tuners/lora/layer.py``), so
Qwen3-30B-A3B at r=16 trains 996,507,648 parameters (counted on an H200, tests/memory/data). A
``ParamWrapper`` refuses ``lora_dropout`` > 0. Other MoE types keep their experts out of reach of
``all-linear``; Llama 4's router is an ``nn.Linear`` and is adapted.
"""

from __future__ import annotations

import functools

from linter.memory.architecture import Architecture
from linter.memory.training_layout import (
    REMEMBERED,
    Projection,
    layer_layout,
    layer_layout_counts,
)
from linter.records import datarecord

#: Model types whose fused experts and router peft adapts through its v4 -> v5 conversion.
CONVERTED_MOE_TYPES = (
    "deepseek_v3",
    "glm4_moe",
    "mixtral",
    "olmoe",
    "qwen3_moe",
    "qwen3_next",
)
#: The v4 expert names whose targeting reaches each fused parameter, per convention.
_FUSED_NAMES = {
    "mixtral": {"gate_up_proj": ("w1", "w3"), "down_proj": ("w2",)},
    "default": {"gate_up_proj": ("gate_proj", "up_proj"), "down_proj": ("down_proj",)},
}
#: Expert projections' rank multiplier: gate and up are fused, each keeps its own rank.
_FUSED_RANK = {"gate_up_proj": 2, "down_proj": 1}
#: Names peft's conversion moves from ``target_modules`` to the fused parameters, so no
#: ``nn.Linear`` of these names (dense MLPs of the first layers, shared experts) is adapted.
_CONVERTED_NAMES = {
    "mixtral": ("gate", "w1", "w2", "w3"),
    "default": ("gate", "gate_proj", "up_proj", "down_proj"),
}
#: peft refuses these modules of Mamba models (``tuners_utils.py``, "incompatible with
#: Mamba-based models").
_MAMBA_REFUSED = ("out_proj", "conv1d")


@datarecord
class LoraConfig:
    """The adapter settings the estimate needs (peft ``LoraConfig`` fields of the same names).

    ``target_modules`` None means ``"all-linear"``; otherwise module names (``q_proj``, ``v_proj``,
    ``gate_proj``, ...; for routed experts the v4 names ``gate_proj``/``up_proj``/``down_proj``
    and ``gate`` for the router).
    """

    r: int = 16
    target_modules: tuple[str, ...] | None = None
    lora_dropout: float = 0.0

    def __post_init__(self) -> None:
        if self.r < 1:
            raise ValueError("lora rank must be at least 1")
        if not 0 <= self.lora_dropout < 1:
            raise ValueError("lora_dropout must be in [0, 1)")
        if self.target_modules is not None and not self.target_modules:
            raise ValueError("lora target_modules is empty")


def adapter_rank(arch: Architecture, config: LoraConfig, projection: Projection) -> int:
    """The rank peft gives ``projection`` (0 when it is not adapted)."""
    targets = config.target_modules
    converted = arch.model_type in CONVERTED_MOE_TYPES
    if projection.experts:
        if not converted:
            return 0
        names = _FUSED_NAMES.get(arch.model_type, _FUSED_NAMES["default"])[projection.name]
        hits = len(names) if targets is None else sum(name in targets for name in names)
        if 0 < hits < len(names):
            raise ValueError(
                f"peft cannot target {' or '.join(names)} alone: they are fused into "
                f"{projection.name}"
            )
        return config.r * _FUSED_RANK[projection.name] if hits else 0
    leaf = projection.name.rsplit(".", 1)[-1]
    if projection.name == "gate" and arch.is_moe:
        hit = converted and (targets is None or "gate" in targets)
        return config.r if hit else 0  # converted: the router's weight; otherwise not a Linear
    if projection.name == "router" and arch.model_type != "llama4_text":
        return 0
    if converted and leaf in _CONVERTED_NAMES.get(arch.model_type, _CONVERTED_NAMES["default"]):
        return 0
    if targets is not None and leaf not in targets and projection.name not in targets:
        return 0
    if arch.model_type == "mamba" and leaf in _MAMBA_REFUSED:
        raise ValueError(f"peft refuses LoRA on {leaf} of Mamba models")
    return config.r


def adapter_parameters(projection: Projection, rank: int) -> int:
    """``lora_A`` (rank x in) plus ``lora_B`` (out x rank), per expert for a fused stack."""
    return rank * max(1, projection.experts) * (projection.in_features + projection.out_features)


@functools.lru_cache(maxsize=4 * REMEMBERED)
def lora_parameters(arch: Architecture, config: LoraConfig) -> int:
    """Trainable adapter parameters over every layer; ValueError when the targets match no
    projection (peft raises too). Remembered: every alternative of every workload that adapts
    the model asks again."""
    total = 0
    for layout, layers in layer_layout_counts(arch):
        for projection in layout.projections:
            rank = adapter_rank(arch, config, projection)
            total += layers * adapter_parameters(projection, rank)
    if not total:
        raise ValueError(
            f"lora targets {', '.join(config.target_modules or ())} match no projection of "
            f"{arch.model_type}"
        )
    return total


def check_dropout(arch: Architecture, config: LoraConfig) -> None:
    """peft's ParamWrapper (fused experts, routers) raises on lora_dropout > 0."""
    if config.lora_dropout <= 0 or arch.model_type not in CONVERTED_MOE_TYPES or not arch.is_moe:
        return
    layout = layer_layout(arch, arch.num_hidden_layers - 1)
    wrapped = layout.experts + ((layout.router,) if layout.router else ())
    if any(adapter_rank(arch, config, p) for p in wrapped):
        raise ValueError(
            "peft refuses lora_dropout > 0 on fused MoE experts and routers (ParamWrapper)"
        )


#: Shorthands beside peft's own ``all-linear``: the attention (or mixer) projections, or the MLP's
#: (dense, shared and routed experts, by their v4 names).
SHORTHANDS = ("all-linear", "attention", "mlp")


def resolve_targets(
    arch: Architecture | None, targets: str | tuple[str, ...] | None
) -> tuple[str, ...] | None:
    """``targets`` as module names; None for ``all-linear``."""
    if targets is None or targets in ("all-linear", "all_linear"):
        return None
    if isinstance(targets, str):
        if targets not in SHORTHANDS or arch is None:
            return (targets,)
        layout = layer_layout(arch, arch.num_hidden_layers - 1)
        if targets == "attention":
            return tuple(p.name for p in layout.mixer_projections)
        names = [p.name.rsplit(".", 1)[-1] for p in layout.mlp_projections]
        dense = layer_layout(arch, 0).mlp_projections
        names += [p.name.rsplit(".", 1)[-1] for p in dense]
        if layout.experts:
            fused = _FUSED_NAMES.get(arch.model_type, _FUSED_NAMES["default"])
            names += [name for parts in fused.values() for name in parts]
        if not names:
            raise ValueError(f"{arch.model_type} has no MLP projections to adapt")
        return tuple(dict.fromkeys(names))
    return tuple(targets)
