"""Print the training estimate's error on every step measured on an H200.

    python benchmarks/memory/training_h200.py [--cases]

The measurements are tests/memory/data/training_h200.jsonl (its README says how they were
taken). The error is ``(required - measured) / measured`` with ``measured`` the allocated peak
plus the CUDA context the process took; the summary gives the median and worst |error| of the
development sets (``reference`` and ``session``, which the estimate was fitted to) and, apart,
of the ``validation`` set (measured after the fit), each by regime, and the fit verdicts that
disagree with the runs (those that ran out of memory and those that did not). ``--cases``
prints every case.
"""

from __future__ import annotations

import json
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from linter.memory import estimate_training, resolve_gpu
from linter.memory.architecture import architecture_from_hf_config
from linter.memory.training import TrainingEstimate

DATA = Path(__file__).resolve().parents[2] / "tests" / "memory" / "data" / "training_h200.jsonl"
#: The measured regimes as estimate inputs: (method, precision, optimizer).
REGIMES = {
    "full_fp32master": ("full", "bf16", "adamw"),
    "full_bf16": ("full", "bf16", "adamw_bf16"),
    "lora_bf16": ("lora", "bf16", "adamw"),
}
Row = dict[str, Any]
#: The sets the estimate was fitted to; ``validation`` was measured after the fit.
DEVELOPMENT = ("reference", "session")


def load() -> tuple[dict[str, Any], list[Row]]:
    """(meta, rows) of the measurements."""
    lines = [json.loads(line) for line in DATA.read_text("utf-8").splitlines()]
    return lines[0]["meta"], lines[1:]


def label(row: Row) -> str:
    shape = f"{row['micro_batch']}x{row['seq']}{'-ckpt' if row['ckpt'] else ''}"
    lora = ""
    if "lora_r" in row:
        lora = f"-r{row['lora_r']}-{row['lora_targets']}-{row['lora_dropout']}"
    return f"{row['set']}:{row['model']}:{row['regime']}:{shape}{lora}"


def estimate(meta: dict[str, Any], row: Row) -> TrainingEstimate:
    """The estimate for the measured case (the reference loop keeps its logits)."""
    gpu = resolve_gpu("H200")
    assert gpu is not None
    method, precision, optimizer = REGIMES[row["regime"]]
    targets = row.get("lora_targets", "all-linear")
    return estimate_training(
        architecture_from_hf_config(meta["configs"][row["model"]]),
        parameters=None,
        precision=precision,
        method=method,
        optimizer=optimizer,
        micro_batch=row["micro_batch"],
        sequence_length=row["seq"],
        gradient_checkpointing=row["ckpt"],
        sharding="none",
        world_size=1,
        gpu=gpu,
        gpus_per_node=1,
        lora_rank=row.get("lora_r", 16),
        lora_targets=tuple(targets) if isinstance(targets, list) else targets,
        lora_dropout=row.get("lora_dropout", 0.0),
        logits_held=row["set"] == "reference",
    )


def error(meta: dict[str, Any], row: Row, result: TrainingEstimate) -> float:
    measured = row["peak_alloc"] + meta["cuda_context_bytes"]
    return (result.required_bytes - measured) / measured


def _summary(name: str, errors: list[float]) -> str:
    if not errors:
        return f"{name:<36}-"
    worst = max(abs(e) for e in errors)
    median = statistics.median(abs(e) for e in errors)
    return (
        f"{name:<36}n={len(errors):>3}  median {100 * median:5.2f}%  worst {100 * worst:5.2f}%  "
        f"range {100 * min(errors):+6.2f} .. {100 * max(errors):+6.2f}%"
    )


def main(argv: list[str]) -> int:
    meta, rows = load()
    results = [(row, estimate(meta, row)) for row in rows]
    errors = [(row, error(meta, row, result)) for row, result in results if row["ok"]]
    if "--cases" in argv:
        for row, value in errors:
            print(f"{100 * value:+6.2f}%  {label(row)}")
    scopes: list[tuple[str, Callable[[Row], bool]]] = [
        ("reference set", lambda r: r["set"] == "reference"),
        ("session set", lambda r: r["set"] == "session"),
        ("development (reference + session)", lambda r: r["set"] in DEVELOPMENT),
        ("validation set", lambda r: r["set"] == "validation"),
    ]
    for scope, chosen in scopes:
        print(_summary(scope, [e for r, e in errors if chosen(r)]))
        for regime in REGIMES:
            for ckpt in (False, True):
                picked = [
                    e
                    for r, e in errors
                    if chosen(r) and r["regime"] == regime and r["ckpt"] == ckpt
                ]
                print(_summary(f"  {regime}{' ckpt' if ckpt else ''}", picked))
    for scope, chosen in scopes[-2:]:
        picked = [(row, result) for row, result in results if chosen(row)]
        wrong = [label(row) for row, result in picked if result.fits != row["ok"]]
        right = f"{len(picked) - len(wrong)} of {len(picked)} right"
        print(f"fit verdicts, {scope}: {right}", *wrong, sep="\n  ")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
