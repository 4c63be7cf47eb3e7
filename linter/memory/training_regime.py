"""What one training step holds per parameter, and in which dtypes it computes.

A regime follows from the method, the precision and the optimizer, the way Hugging Face's Trainer,
torch.optim and peft set a run up:

- ``full`` with an fp32 optimizer (``adamw``, ``adamw_fused``, ``adamw_8bit``, ``sgd``) at
  precision bf16/fp16 is mixed precision: the model is held in fp32 (it is loaded in fp32 and
  Trainer's ``bf16=True`` wraps the forward in ``torch.autocast``), gradients are fp32 like their
  parameters, and autocast computes every ``nn.Linear`` in 16 bits from a cast copy of its weight
  (torch ``aten/src/ATen/autocast_mode.cpp`` ``cached_cast``: casts of fp32 leaf weights that
  require grad are cached until the outermost autocast region exits). Adds and norms see fp32
  inputs, so the residual stream stays fp32.
- ``full`` with ``adamw_bf16`` is pure 16-bit training: weights, gradients and AdamW's two moments
  in the model's 16-bit dtype (torch.optim.AdamW creates ``exp_avg``/``exp_avg_sq`` with
  ``torch.zeros_like(param)``, so they take the parameter's dtype).
- precision fp32 computes everything in fp32.
- sharded full training (DeepSpeed ZeRO, FSDP) at bf16/fp16 keeps 16-bit parameters and
  gradients and moves the fp32 master copy into the optimizer's state (DeepSpeed's ``bf16``
  optimizer, FSDP's ``MixedPrecision(param_dtype=bfloat16)``): 2 + 2 + 12 bytes with AdamW.
- ``lora`` freezes the base in its precision; peft's ``get_peft_model(autocast_adapter_dtype=True)``
  (the default) upcasts bf16/fp16 adapter weights to fp32, so adapters, their gradients and their
  optimizer state are fp32. ``qlora`` is the same over a bitsandbytes NF4 base computing in bf16
  (``Linear4bit``; its dequantisation buffer is a transient of
  :mod:`linter.memory.training_backward`). No QLoRA step was measured; peft's
  ``prepare_model_for_kbit_training``, which casts the remaining 16-bit parameters (embeddings,
  norms, lm_head) to fp32, is not assumed.

Optimizer state per trainable parameter (:data:`OPTIMIZERS`): AdamW keeps two moments in the
parameter's dtype; bitsandbytes' 8-bit AdamW (``adamw_8bit``, ``paged_adamw_8bit``) two 1-byte
moments; SGD with momentum one buffer. The step's transient: torch's default (foreach) AdamW takes
``torch._foreach_sqrt(exp_avg_sq)`` into a new list of state-sized tensors before the in-place
update (torch ``optim/adam.py`` ``_multi_tensor_adam``); the fused kernel (``adamw_fused``, HF
Trainer's default ``adamw_torch_fused`` on torch >= 2.8) and bitsandbytes' kernels update in place.
"""

from __future__ import annotations

from dataclasses import replace

from linter.records import datarecord

METHODS = ("full", "lora", "qlora")
COMPUTE_PRECISIONS = ("fp32", "bf16", "fp16")


@datarecord
class Optimizer:
    """State an optimizer keeps and the step's transient, in elements of a given width."""

    #: State elements per trainable parameter.
    state_elements: int
    #: Bytes of one state element; None: the parameter's own dtype.
    state_element_bytes: int | None
    #: State-sized elements the step allocates at once (foreach intermediates).
    step_elements: int
    #: The optimizer holds 16-bit parameters (full training without an fp32 copy).
    sixteen_bit_params: bool = False


OPTIMIZERS: dict[str, Optimizer] = {
    "adamw": Optimizer(2, None, 1),
    "adamw_fused": Optimizer(2, None, 0),
    "adamw_bf16": Optimizer(2, 2, 1, sixteen_bit_params=True),
    "adamw_8bit": Optimizer(2, 1, 0),
    "paged_adamw_8bit": Optimizer(2, 1, 0),
    "sgd": Optimizer(1, None, 0),
}


@datarecord
class Regime:
    """Dtypes and per-parameter bytes of one training regime."""

    method: str
    #: Matmul outputs, attention tensors and logits (2: bf16/fp16, 4: fp32).
    compute_bytes: int
    #: The residual stream between decoder layers and the norms' inputs.
    residual_bytes: int
    #: fp32 weights computed in 16 bits under torch.autocast.
    autocast: bool
    #: Every base weight is trained (full); otherwise only adapters are.
    base_trainable: bool
    #: Bytes per trainable parameter as held (fp32 master weights, 16-bit weights, fp32 adapters).
    param_bytes: int
    #: Precision the frozen or trained base weights are stored in.
    base_precision: str
    #: Optimizer state bytes per trainable parameter.
    state_bytes: int
    #: Bytes per trainable parameter the optimizer step allocates at once.
    step_bytes: int

    @property
    def grad_bytes(self) -> int:
        """Gradients take their parameter's dtype."""
        return self.param_bytes


def training_regime(method: str, precision: str, optimizer: str, sharded: bool = False) -> Regime:
    """The regime of ``method`` at ``precision`` (canonical precision names) with ``optimizer``;
    ``sharded``: DeepSpeed ZeRO or FSDP, whose mixed precision keeps 16-bit parameters and
    gradients and an fp32 master copy beside the optimizer's moments (DeepSpeed ``bf16``
    optimizer, FSDP ``MixedPrecision``) instead of autocast over fp32 weights."""
    spec = OPTIMIZERS[optimizer]
    if method == "full":
        if precision not in COMPUTE_PRECISIONS:
            raise ValueError("full training needs precision fp32, bf16 or fp16")
        compute = 4 if precision == "fp32" else 2
        if sharded and compute == 2 and not spec.sixteen_bit_params:
            regime = _regime(method, spec, 4, compute, residual=2, autocast=False)
            master = 4  # the fp32 master weights move into the optimizer's state
            return replace(
                regime,
                param_bytes=2,
                state_bytes=regime.state_bytes + master,
                base_precision=precision,
            )
        sixteen = precision != "fp32" and spec.sixteen_bit_params
        param = 2 if sixteen else 4
        return _regime(
            method, spec, param, compute, residual=param, autocast=param == 4 and compute == 2
        )
    base = "nf4" if method == "qlora" else precision
    compute = 4 if precision == "fp32" and method == "lora" else 2
    return _regime(method, spec, 4, compute, residual=compute, autocast=False, base=base)


def _regime(
    method: str,
    spec: Optimizer,
    param: int,
    compute: int,
    *,
    residual: int,
    autocast: bool,
    base: str | None = None,
) -> Regime:
    state_element = spec.state_element_bytes or param
    return Regime(
        method=method,
        compute_bytes=compute,
        residual_bytes=residual,
        autocast=autocast,
        base_trainable=method == "full",
        param_bytes=param,
        state_bytes=spec.state_elements * state_element,
        step_bytes=spec.step_elements * state_element,
        base_precision=base or ("fp32" if param == 4 else "bf16"),
    )
