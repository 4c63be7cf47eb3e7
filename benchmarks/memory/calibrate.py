"""Print gpulint's error on every public vLLM start-up log in vllm_logs.json.

    python benchmarks/memory/calibrate.py

Columns: weights per GPU (logged, predicted, error), KV capacity (logged tokens or available GiB,
predicted, error) and the start-up verdict (logged, predicted). The summary gives the median and
worst KV-capacity error over the cases whose GPU, parallelism and utilisation the log states.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from typing import Any

from linter.catalog.gpus import resolve_gpu
from linter.memory.architecture import architecture_from_catalogue
from linter.memory.replay import Logged, ReplayComparison, Settings, replay

CASES = Path(__file__).with_name("vllm_logs.json")
#: When a log does not name its GPU, size it on this one (the case is outside the target).
UNNAMED_GPU = "H100-80GB"


def cases() -> list[dict[str, Any]]:
    data: dict[str, Any] = json.loads(CASES.read_text(encoding="utf-8"))
    return list(data["cases"])


def evaluate(case: dict[str, Any]) -> ReplayComparison:
    arch = architecture_from_catalogue(case["model"])
    gpu = resolve_gpu(case["gpu"] or UNNAMED_GPU)
    if arch is None or gpu is None:
        raise LookupError(f"{case['id']}: model or GPU not in the catalogue")
    settings = Settings(
        tensor_parallel=case["tensor_parallel"],
        expert_parallel=case.get("expert_parallel", 1),
        gpu_memory_utilization=case["gpu_memory_utilization"],
        engine_version=case["engine_version"],
        engine=case.get("engine"),
        max_model_len=case["max_model_len"],
        max_num_seqs=case["max_num_seqs"],
        max_num_batched_tokens=case["max_num_batched_tokens"],
        kv_cache_dtype=case["kv_cache_dtype"],
        enforce_eager=case["enforce_eager"],
        precision=case["precision"],
    )
    logged = case["logged"]
    return replay(
        arch,
        gpu,
        settings,
        Logged(
            weights_gib=logged["weights_gib"],
            available_kv_gib=logged["available_kv_gib"],
            kv_cache_tokens=logged["kv_cache_tokens"],
            max_concurrency=logged["max_concurrency"],
            refused=logged["refused"],
        ),
    )


def _pct(value: float | None) -> str:
    return "" if value is None else f"{100 * value:+.1f}%"


def _kv(comparison: ReplayComparison) -> tuple[str, str]:
    logged = comparison.logged
    if logged.kv_cache_tokens:
        return f"{logged.kv_cache_tokens:,} tok", f"{comparison.estimate.kv_cache_tokens:,} tok"
    if logged.available_kv_gib is not None:
        predicted = comparison.predicted_available_gib
        return f"{logged.available_kv_gib:.2f} GiB", f"{predicted:.2f} GiB" if predicted else ""
    return "", ""


def _verdict(refused: bool | None) -> str:
    return "" if refused is None else ("refuses" if refused else "starts")


def main() -> int:
    header = (
        f"{'case':<28}{'weights':>9}{'pred':>9}{'err':>8}  {'KV logged':>14}{'KV pred':>16}"
        f"{'err':>8}  {'logged':>8}{'pred':>9}"
    )
    print(header)
    kv_errors: list[float] = []
    weight_errors: list[float] = []
    missed: list[str] = []  # logged refusals predicted to start
    false_alarms: list[str] = []  # logged starts predicted to refuse
    for case in cases():
        comparison = evaluate(case)
        logged_kv, predicted_kv = _kv(comparison)
        weights_error, kv_error = comparison.weights_error(), comparison.kv_tokens_error()
        if weights_error is not None:
            weight_errors.append(abs(weights_error))
        if kv_error is not None and case["in_target"]:
            kv_errors.append(abs(kv_error))
        if comparison.refusal_matches() is False:
            (missed if comparison.logged.refused else false_alarms).append(case["id"])
        starts = comparison.estimate.starts
        print(
            f"{case['id']:<28}{case['logged']['weights_gib'] or '':>9}"
            f"{comparison.predicted_weights_gib:>9.2f}{_pct(weights_error):>8}  "
            f"{logged_kv:>14}{predicted_kv:>16}{_pct(kv_error):>8}  "
            f"{_verdict(comparison.logged.refused):>8}"
            f"{_verdict(None if starts is None else not starts):>9}"
        )
    print()
    print(
        f"weights: median {_pct(statistics.median(weight_errors))}, "
        f"worst {_pct(max(weight_errors))} over {len(weight_errors)} logs"
    )
    print(
        f"KV capacity (GPU, parallelism and utilisation stated): median "
        f"{_pct(statistics.median(kv_errors))}, worst {_pct(max(kv_errors))} over "
        f"{len(kv_errors)} logs"
    )
    print(f"logged refusals predicted as refusals: {'all' if not missed else ', '.join(missed)}")
    print(f"logged starts predicted as refusals: {', '.join(false_alarms) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
