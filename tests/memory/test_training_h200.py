"""The training estimate against 92 training steps measured on an H200 (data/training_h200.jsonl,
its source in data/README.md): 77 it was developed on and 15 measured after as validation; every
case within its band, every fit verdict right."""

from __future__ import annotations

import importlib.util
import statistics
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from linter.memory import resolve_gpu
from linter.memory.training import TrainingEstimate

REPO = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    """benchmarks/memory/training_h200.py, which prints the same comparison."""
    path = REPO / "benchmarks" / "memory" / "training_h200.py"
    spec = importlib.util.spec_from_file_location("training_h200", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SCRIPT = _script()
META, ROWS = SCRIPT.load()
_label = SCRIPT.label
#: Each case's band: the estimate is within 1.5% of the measured peak plus the CUDA context.
#: The validation set is held to the same band: allocations are deterministic, and what the
#: estimate leaves out (kernels' internal buffers, the cuBLAS workspaces an earlier case left
#: in the baseline, routed experts summed rather than walked) stays under 1.1% on every set.
BAND = 0.015
#: The two cuBLAS workspaces the estimate holds: earlier cases' are already in the baseline the
#: script measures the phases from.
WORKSPACES = 2 * 32 * 2**20


def estimate(row: dict[str, Any]) -> TrainingEstimate:
    return SCRIPT.estimate(META, row)  # type: ignore[no-any-return]


def error(row: dict[str, Any]) -> float:
    return SCRIPT.error(META, row, estimate(row))  # type: ignore[no-any-return]


def test_the_catalogue_h200_is_the_measured_card() -> None:
    gpu = resolve_gpu("H200")
    assert gpu is not None
    assert gpu.usable_bytes == META["torch_total_bytes"] == 150_109_880_320
    assert gpu.cuda_context_bytes == META["cuda_context_bytes"]


def test_the_data_has_three_sets() -> None:
    sets = [row["set"] for row in ROWS]
    counts = (sets.count("reference"), sets.count("session"), sets.count("validation"))
    assert (*counts, len(ROWS)) == (30, 47, 15, 92)


VALIDATION = [r for r in ROWS if r["set"] == "validation"]


@pytest.mark.parametrize("row", [r for r in ROWS if r["ok"]], ids=_label)
def test_each_case_within_its_band(row: dict[str, Any]) -> None:
    result = estimate(row)
    assert (result.parameters, result.trainable_parameters) == (row["params"], row["trainable"])
    assert abs(error(row)) <= BAND
    assert result.fits


@pytest.mark.parametrize("row", [r for r in ROWS if not r["ok"]], ids=_label)
def test_cases_that_ran_out_of_memory_do_not_fit(row: dict[str, Any]) -> None:
    result = estimate(row)
    assert row["oom"] and result.trainable_parameters == row["trainable"]
    assert not result.fits
    assert result.required_bytes > META["torch_total_bytes"]


@pytest.mark.parametrize(
    ("subset", "median", "worst"),
    [
        ("reference", 0.005, 0.005),
        ("session", 0.005, BAND),
        ("validation", 0.005, 0.005),
        (None, 0.005, BAND),
    ],
)
def test_error_over_the_sets(subset: str | None, median: float, worst: float) -> None:
    """The issue's targets are median 3% and worst 7% on the development sets; the estimate is
    held far inside them, and inside them on the validation set too."""
    errors = [abs(error(r)) for r in ROWS if r["ok"] and subset in (None, r["set"])]
    assert statistics.median(errors) <= median
    assert max(errors) <= worst


def test_validation_within_the_held_aside_bands() -> None:
    """The issue's bands for a set the estimate was not fitted to: median 5%, worst 10%, no
    wrong fit verdict."""
    errors = [abs(error(r)) for r in VALIDATION]
    assert all(r["ok"] for r in VALIDATION)
    assert all(estimate(r).fits for r in VALIDATION)
    assert statistics.median(errors) <= 0.05
    assert max(errors) <= 0.10


def test_phases_follow_the_step() -> None:
    """Where the session and validation sets record the second step's phases, the estimate's
    phases are within 1.5% of each, plus the two cuBLAS workspaces."""
    context = META["cuda_context_bytes"]
    names = {
        "fwd_peak": ("forward (loss)", "forward (layer)"),
        "bwd_peak": (
            "loss backward",
            "backward (last layer)",
            "backward (first layer)",
            "backward (embedding)",
        ),
        "opt_peak": ("optimizer step",),
    }
    checked = 0
    for row in ROWS:
        if not row["ok"] or "fwd_peak" not in row:
            continue
        phases = estimate(row).phases
        for measured, ours in names.items():
            predicted = max(phases[name] for name in ours if name in phases) - context
            slack = BAND * row[measured] + WORKSPACES
            assert abs(predicted - row[measured]) <= slack, (_label(row), measured)
            checked += 1
    assert checked == 3 * (45 + 15)


def test_a_checkpointed_layer_backward_is_not_its_kept_tensors_plus_every_gradient() -> None:
    """Mistral-7B-v0.3, LoRA on every linear, checkpointed, 2 x 4096 tokens (validation set):
    the last layer's backward peaks while its forward is recomputed, below the loss's backward,
    which the run measured (the sum of everything kept and every gradient was 0.4 GiB over)."""
    row = next(r for r in VALIDATION if r["model"] == "mistralai/Mistral-7B-v0.3" and r["ckpt"])
    phases = estimate(row).phases
    measured = row["bwd_peak"] + META["cuda_context_bytes"]
    assert phases["backward (last layer)"] < phases["loss backward"]
    assert phases["backward (last layer)"] - WORKSPACES <= measured
    assert abs(error(row)) <= 0.005
