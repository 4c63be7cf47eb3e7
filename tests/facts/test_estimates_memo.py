"""Memory estimates are remembered under their inputs: equal inputs share one result, and
inputs that differ in value or type (1 and 1.0) do not."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from linter.facts import estimates
from linter.memory import estimate_inference, resolve_gpu
from linter.memory.architecture import architecture_from_catalogue


def settings(**changes: Any) -> dict[str, Any]:
    return {
        "parameters": None,
        "precision": "bf16",
        "kv_precision": None,
        "batch": 8,
        "context": 8192,
        "gpu": resolve_gpu("L40S"),
        "gpus": 1,
        "gpu_memory_utilization": 0.9,
        **changes,
    }


def test_equal_inputs_share_one_estimate_equal_to_the_direct_one() -> None:
    arch = architecture_from_catalogue("Qwen/Qwen2.5-7B")
    first = estimates.inference(arch, **settings())
    again = estimates.inference(arch, **settings())
    assert again is first
    assert first == estimate_inference(arch, **settings())


def test_inputs_that_differ_in_value_or_type_do_not() -> None:
    arch = architecture_from_catalogue("Qwen/Qwen2.5-7B")
    base = estimates.inference(arch, **settings(gpu_memory_utilization=1))
    as_float = estimates.inference(arch, **settings(gpu_memory_utilization=1.0))
    other_gpu = estimates.inference(arch, **settings(gpu=resolve_gpu("H100-80GB")))
    assert as_float is not base
    assert (base.gpu_memory_utilization, as_float.gpu_memory_utilization) == (1, 1.0)
    assert type(as_float.gpu_memory_utilization) is float
    assert other_gpu.gpu == "H100-80GB" and base.gpu == "L40S"


def test_an_equal_architecture_in_another_object_shares_the_estimate() -> None:
    """A model.config read per workload is a new object each time: keyed by its contents, not
    its identity, so equal configs share one estimate while different ones do not."""
    arch = architecture_from_catalogue("Qwen/Qwen2.5-7B")
    assert arch is not None
    copy = replace(arch)
    wider = replace(arch, hidden_size=arch.hidden_size * 2)
    first = estimates.inference(arch, **settings(batch=3))
    assert copy is not arch
    assert estimates.inference(copy, **settings(batch=3)) is first
    assert estimates.inference(wider, **settings(batch=3)) is not first


def test_a_catalogue_architecture_is_spelt_out_once_per_object() -> None:
    """Its ``repr`` (every size and layer) was most of the cost of a key: made once per object
    (a frozen record), then found by identity."""
    arch = architecture_from_catalogue("Qwen/Qwen2.5-7B")
    estimates.inference(arch, **settings(batch=5))
    assert estimates._REPRS[id(arch)] == (arch, repr(arch))
