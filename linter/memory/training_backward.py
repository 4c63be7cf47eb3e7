"""What one decoder layer holds at the worst moment of its backward, term by term.

Autograd frees what a node saved once the node has run (``Node::release_variables`` after
``apply``) and a gradient once its consumer has run, and the engine runs a layer's nodes in the
reverse order of its forward (its ready queue is ordered by sequence number). So a layer never
holds everything it kept plus every gradient it makes at once: the widest tensors, the dense
MLP's, come and go at a few moments. Traced on CPU (live storages per op) through transformers
5's Llama-family MLP (``down_proj(act_fn(gate_proj(x)) * up_proj(x))``) and peft's
``lora.Linear`` (``result = base_layer(x)``, ``result + lora_B(lora_A(dropout(x.to(fp32)))) *
scaling``, ``result.to(dtype)``), with ``I`` the intermediate width, the moments are:

- down projection: its input's gradient, in fp32 from peft's ``lora_A`` (4 x I) while the base
  branch's 16-bit cast of the output gradient waits, or from the base matmul (I wide);
- the gated product (``act(gate) * up``): its gradient and both factors' at once, down's saved
  tensors already freed (a plain MLP: the activation's input and output gradients);
- an adapted input projection (up, then gate; Phi-3's fused gate_up): its output gradient becomes
  peft's fp32 cast and the scaled fp32 copy beside the base branch's 16-bit cast, with down's
  tensors and the product's factors gone (at up, the activation's gradient waits; at gate, the
  normed input's gradient from up);
- under gradient checkpointing (torch ``utils/checkpoint.py``, non-reentrant), the first saved
  tensor the layer's backward unpacks re-runs its forward, which stops at the last tensor it
  saves (early stop): at an adapted input projection, its base output, ``lora_B``'s fp32 output
  and the scaled copy, with the attention block's residual and the normed MLP input still
  referenced and the gradients that reached the unpacking node waiting (peft's fp32 copy and the
  base branch's cast, when down is adapted); at the end, the product and down's base output.

Every moment also holds the gradient arriving from the layer above, kept for the residual
branch. The attention block's moments are smaller: its widest tensors are h or q wide. The bf16
gradient of the largest autocast weight copy (before its cast to fp32) is added to the backward
moments, and a QLoRA base's dequantised weight (bitsandbytes ``MatMul4Bit`` dequantises in
forward and backward) to all.

Routed-expert layers, and layers without a dense MLP, are not walked: they hold everything they
kept plus the gradients of their widest tensors at once (:func:`summed_flight`).
"""

from __future__ import annotations

from dataclasses import field
from typing import NamedTuple

from linter.memory.architecture import Architecture
from linter.memory.lora import adapter_parameters, adapter_rank
from linter.memory.training_activations import (
    ActivationSetting,
    LayerSaved,
    adapter_kept,
    layer_saved,
    merge_terms,
)
from linter.memory.training_layout import (
    MLP_INPUT,
    MLP_PRODUCT,
    LayerLayout,
    Projection,
    layer_layout,
)
from linter.records import datarecord

#: peft's output gradient of an adapted projection, bytes per output element: the fp32 cast of
#: the incoming gradient (``result.to(dtype)``'s backward) and its scaled copy (``* scaling``).
_LORA_OUTPUT_GRAD = 4 + 4
#: The same projection's forward, under recomputation: ``lora_B``'s fp32 output and its scaled
#: copy (the sum that replaces the first is no larger).
_LORA_OUTPUT = 4 + 4


@datarecord
class _Moment:
    """What the layer has freed of what it kept (by term) and what is in flight: per token, and
    per layer (autocast's weight copies and their gradients)."""

    freed: dict[str, int]
    flight: int
    #: The projections whose gradients (of the weight, or of peft's adapters) exist by then.
    made: tuple[Projection, ...] = ()
    #: Whether the moment is inside the checkpointed layer's recomputed forward.
    recomputing: bool = False
    layer_freed: dict[str, int] = field(default_factory=dict)
    layer_flight: int = 0


@datarecord
class LayerPeak:
    """A layer at the worst moment of its backward: what it holds, and the bytes of its own
    gradients not made yet (backward makes them projection by projection)."""

    held: LayerSaved
    pending_gradients: int


class _InputStep(NamedTuple):
    """A projection reading the MLP's normed input, as the walk meets it."""

    projection: Projection
    #: ``mlp`` factors not made yet when its recomputed forward runs.
    not_yet: int
    #: What the later input projection keeps (not made yet in forward, freed in backward).
    later: dict[str, int]
    #: ``mlp`` factors freed when backward reaches it.
    released: int
    #: Gradients waiting beside its own when backward reaches it.
    waiting: int


@datarecord
class _MlpWalk:
    """The moments of one layer's dense MLP: its projections reading the normed input (in
    forward order) and down."""

    arch: Architecture
    setting: ActivationSetting
    inputs: tuple[Projection, ...]
    down: Projection

    @property
    def wide(self) -> int:
        return self.down.in_features

    @property
    def fused(self) -> bool:
        """Phi-3's gate_up: one projection chunked into gate and up."""
        return len(self.inputs) == 1 and self.inputs[0].out_features == 2 * self.wide

    @property
    def gated(self) -> bool:
        return len(self.inputs) == 2 or self.fused

    def rank(self, projection: Projection) -> int:
        lora = self.setting.lora
        return adapter_rank(self.arch, lora, projection) if lora else 0

    def kept(self, projection: Projection) -> dict[str, int]:
        """What the projection alone keeps: peft's tensors, or a trained down's input."""
        lora, regime = self.setting.lora, self.setting.regime
        if lora is not None and self.rank(projection):
            return {"adapter_activations": adapter_kept(projection, self.rank(projection), lora)}
        if regime.base_trainable and projection is self.down:
            return {"projection_inputs": regime.compute_bytes * self.wide}
        return {}

    def _input_steps(self) -> list[_InputStep]:
        """The projections reading the normed input, in forward order (gate, then up)."""
        c, h, wide = self.setting.regime.compute_bytes, self.arch.hidden_size, self.wide
        if self.fused:  # the fused output (2 x I) and the activation: three factors
            return [_InputStep(self.inputs[0], 3 * c * wide, {}, 3 * c * wide, 0)]
        if not self.gated:  # the activation's input
            return [_InputStep(self.inputs[0], c * wide, {}, c * wide, 0)]
        gate, up = self.inputs
        return [
            # gate: its output, the activation and up's output come after it in forward; up's
            # backward (and silu's) before it, leaving the normed input's gradient from up
            _InputStep(gate, 3 * c * wide, self.kept(up), 3 * c * wide, c * h),
            # up: only its output comes after; the product's backward has freed the activation
            # and up's output, and left the activation's gradient waiting
            _InputStep(up, c * wide, {}, 2 * c * wide, c * wide),
        ]

    def moments(self, recompute: bool) -> list[_Moment]:
        """Every moment of the MLP's backward, and with ``recompute`` of its rerun forward."""
        return self._backward() + (self._recomputed() if recompute else [])

    def _backward(self) -> list[_Moment]:
        regime = self.setting.regime
        c, h, wide = regime.compute_bytes, self.arch.hidden_size, self.wide
        arriving = regime.residual_bytes * h
        down = self.kept(self.down)
        products = 3 if self.gated else 2  # the product's gradient and its factors'
        # under autocast, down's 16-bit weight copy has a 16-bit gradient before its fp32 cast,
        # and both are gone once down's backward has run
        copy = 2 * self.down.parameters if regime.autocast else 0
        made: tuple[Projection, ...] = (self.down,)
        moments = [
            _Moment(
                {},
                arriving + (4 * wide + c * h if self.rank(self.down) else c * wide),
                made,
                layer_flight=copy,
            ),
            _Moment(
                down,
                arriving + products * c * wide,
                made,
                layer_freed={"autocast_weight_copies": copy} if copy else {},
            ),
        ]
        for step in self._input_steps():
            if self.rank(step.projection):
                out = step.projection.out_features
                flight = arriving + step.waiting + _LORA_OUTPUT_GRAD * out + c * out
                freed = merge_terms(down, {"mlp": step.released}, step.later)
                moments.append(_Moment(freed, flight, made))
            made += (step.projection,)
        return moments

    def _recomputed(self) -> list[_Moment]:
        regime, lora = self.setting.regime, self.setting.lora
        c, res, h, wide = (
            regime.compute_bytes,
            regime.residual_bytes,
            self.arch.hidden_size,
            self.wide,
        )
        dropout = lora is not None and lora.lora_dropout > 0
        down_rank = self.rank(self.down)
        down = self.kept(self.down)
        normed = 0 if regime.base_trainable and not regime.autocast else res * h
        # the arriving gradient, the residual, the normed input, and what reached the node that
        # unpacked first (down's branch gradients when it is adapted)
        stream = 2 * res * h + normed + (4 * h + c * h if down_rank else 0)
        moments = []
        for step in self._input_steps():
            if self.rank(step.projection):
                out = step.projection.out_features
                cast = 4 * step.projection.in_features if dropout else 0
                flight = stream + c * out + _LORA_OUTPUT * out + cast
                freed = merge_terms(down, {"mlp": step.not_yet}, step.later)
                moments.append(_Moment(freed, flight, recomputing=True))
        # the end: the product, and down's base output and peft's cast of its input
        product = 0 if regime.base_trainable else c * wide
        tail = c * h + (4 * wide if dropout else 0) if down_rank else 0
        moments.append(_Moment({}, stream + product + tail, recomputing=True))
        return moments


def _dense_mlp(
    arch: Architecture, layout: LayerLayout, setting: ActivationSetting
) -> _MlpWalk | None:
    if layout.is_moe:
        return None
    inputs = tuple(p for p in layout.mlp_projections if p.reads == MLP_INPUT)
    down = next((p for p in layout.mlp_projections if p.reads == MLP_PRODUCT), None)
    return _MlpWalk(arch, setting, inputs, down) if inputs and down else None


def _largest(layout: LayerLayout) -> int:
    return max(p.parameters for p in layout.mixer_projections + layout.mlp_projections)


def _dequantised(layout: LayerLayout, setting: ActivationSetting) -> dict[str, int]:
    """A QLoRA base's largest weight, dequantised for a matmul in forward and in backward."""
    regime = setting.regime
    if regime.method != "qlora":
        return {}
    return {"dequantization_buffer": regime.compute_bytes * _largest(layout)}


def _at(
    saved: LayerSaved, moment: _Moment, layout: LayerLayout, setting: ActivationSetting
) -> LayerSaved:
    term = "recompute_in_flight" if moment.recomputing else "backward_in_flight"
    per_token = {name: value - moment.freed.get(name, 0) for name, value in saved.per_token.items()}
    per_token[term] = per_token.get(term, 0) + moment.flight
    per_layer = {
        name: value - moment.layer_freed.get(name, 0) for name, value in saved.per_layer.items()
    }
    return LayerSaved(
        merge_terms(per_token),
        merge_terms(per_layer, {term: moment.layer_flight}, _dequantised(layout, setting)),
    )


def summed_flight(
    arch: Architecture, layout: LayerLayout, setting: ActivationSetting
) -> LayerSaved:
    """Gradients held at once in a layer that is not walked, beyond what it keeps.

    The MLP's (or the routed experts') product, activation and up gradients (three
    intermediate-wide tensors) and two of the residual stream; peft's adapters add their fp32
    casts of those gradients. A LoRA'd expert stack materialises the gradient of its merged
    weight; the largest autocast weight copy has a 16-bit gradient before its fp32 cast; a QLoRA
    base dequantises its largest weight.
    """
    regime, lora = setting.regime, setting.lora
    c, h = regime.compute_bytes, arch.hidden_size
    flight = LayerSaved()
    wide = max((p.in_features for p in layout.mlp_projections if p.reads != MLP_INPUT), default=0)
    if layout.is_moe:
        wide += arch.experts_per_token * arch.moe_intermediate_size
    flight.add("backward_in_flight", 3 * c * wide + 2 * regime.residual_bytes * h)
    if lora is not None:
        adapted = [
            p
            for p in layout.mixer_projections + layout.mlp_projections
            if adapter_rank(arch, lora, p)
        ]
        if adapted:
            flight.add("backward_in_flight", 4 * max(p.out_features for p in adapted))
        # backward meets the stacks in reverse; each one's merged weight is freed once its
        # gradient has gone into the factors, before the next stack's gradient exists
        freed, largest = 0, 0
        for stack in reversed(layout.experts):
            if adapter_rank(arch, lora, stack):
                largest = max(largest, c * stack.parameters - freed)
                freed += c * stack.parameters
        flight.add("backward_in_flight", per_layer=largest)
    if regime.autocast:  # the largest weight copy's 16-bit gradient, before its fp32 cast
        flight.add("backward_in_flight", per_layer=2 * _largest(layout))
    for name, value in _dequantised(layout, setting).items():
        flight.add(name, per_layer=value)
    return flight


def _gradient_bytes(walk: _MlpWalk, projections: tuple[Projection, ...]) -> int:
    regime = walk.setting.regime
    if regime.base_trainable:
        return regime.grad_bytes * sum(p.parameters for p in projections)
    return regime.grad_bytes * sum(adapter_parameters(p, walk.rank(p)) for p in projections)


def layer_backward(
    arch: Architecture, index: int, setting: ActivationSetting, recompute: bool
) -> LayerPeak:
    """Decoder layer ``index`` at the worst moment of its backward (with ``recompute``, of its
    checkpointed forward's rerun too): what it kept, less what autograd has freed by then, plus
    what is in flight, and the gradients it has not made yet."""
    saved = layer_saved(arch, index, setting)
    layout = layer_layout(arch, index)
    walk = _dense_mlp(arch, layout, setting)
    if walk is None:
        flight = summed_flight(arch, layout, setting)
        held = LayerSaved(
            merge_terms(saved.per_token, flight.per_token),
            merge_terms(saved.per_layer, flight.per_layer),
        )
        return LayerPeak(held, 0)
    tokens = setting.batch * setting.sequence
    every = layout.mixer_projections + layout.mlp_projections
    peaks = [
        LayerPeak(
            _at(saved, moment, layout, setting),
            _gradient_bytes(walk, tuple(p for p in every if p not in moment.made)),
        )
        for moment in walk.moments(recompute)
    ]
    return max(
        peaks,
        key=lambda peak: sum(peak.held.terms(tokens).values()) - peak.pending_gradients,
    )
