"""The targets of issue 16, judged on one run's measurements: each is met, not met, or not
measured in that run. Nothing here is asserted anywhere; the verdicts go to RESULTS.md.

A measurement is a dict with ``set`` (``gpulint``: generated gpulint manifests; ``kubernetes``:
GPU Deployments; ``shared`` / ``separate``: see generate.py --sharing), ``count``, ``tool`` (the
column: ``gpulint cold``, ``check-jsonschema``, ...) and the figures of
``measure.Series.summary``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

COLD, FIRST, WARM, ONE_JOB = "gpulint cold", "gpulint first", "gpulint warm", "gpulint one job"
CJS, CHECKOV = "check-jsonschema", "checkov"
#: The gpulint runs whose outputs must be byte-identical (every --jobs value, cold and warm).
SAME_OUTPUT = (COLD, FIRST, WARM, ONE_JOB)


@dataclass(frozen=True)
class Verdict:
    target: str  # the wording
    measured: str  # what was measured, for people
    met: bool | None  # None: not measured in this run
    value: float | None = None


class Table:
    """Look up one measurement by set, count and tool."""

    def __init__(self, measurements: Sequence[dict[str, Any]]) -> None:
        self._rows = {(m["set"], m["count"], m["tool"]): m for m in measurements}

    def get(self, set_name: str, count: int, tool: str) -> dict[str, Any] | None:
        return self._rows.get((set_name, count, tool))

    def median(self, set_name: str, count: int, tool: str) -> float | None:
        row = self.get(set_name, count, tool)
        return None if row is None else float(row["median_s"])

    def peak(self, set_name: str, count: int, tool: str) -> float | None:
        row = self.get(set_name, count, tool)
        return None if row is None else float(row["peak_mib"])

    def counts(self, set_name: str) -> list[int]:
        return sorted({count for (name, count, _) in self._rows if name == set_name})


def _ratio(top: float | None, bottom: float | None) -> float | None:
    return None if top is None or bottom is None or bottom == 0 else top / bottom


def _judge(
    target: str, value: float | None, passes: Callable[[float], bool], shown: str
) -> Verdict:
    if value is None:
        return Verdict(target, "not measured", None)
    return Verdict(target, shown.format(value), passes(value), round(value, 3))


def evaluate(measurements: Sequence[dict[str, Any]]) -> list[Verdict]:
    """Every target of the issue's "Done when", in its order."""
    t = Table(measurements)
    cold_10k = t.median("gpulint", 10000, COLD)
    per_file = _ratio(
        _per_file(t.median("gpulint", 20000, COLD), 20000),
        _per_file(t.median("gpulint", 1000, COLD), 1000),
    )
    verdicts = [
        _judge("10,000 manifests cold in under 5 s", cold_10k, lambda v: v < 5, "{:.2f} s"),
        _judge(
            "10,000 manifests at least 2x faster than check-jsonschema",
            _ratio(t.median("gpulint", 10000, CJS), cold_10k),
            lambda v: v >= 2,
            "{:.2f}x faster",
        ),
        _judge(
            "1,000 Kubernetes Deployments at least 10x faster than checkov",
            _ratio(t.median("kubernetes", 1000, CHECKOV), t.median("kubernetes", 1000, COLD)),
            lambda v: v >= 10,
            "{:.1f}x faster",
        ),
        _judge(
            "one manifest cold no slower than check-jsonschema",
            _ratio(t.median("gpulint", 1, COLD), t.median("gpulint", 1, CJS)),
            lambda v: v <= 1,
            "{:.2f}x its time",
        ),
        _judge(
            "peak memory at 20,000 manifests within 1.5x of the peak at 1,000 (findings "
            "excluded: the finding-free set)",
            _ratio(t.peak("separate", 20000, COLD), t.peak("separate", 1000, COLD)),
            lambda v: v <= 1.5,
            "{:.2f}x",
        ),
        _judge(
            "time per file at 20,000 within 10% of the time per file at 1,000",
            per_file,
            lambda v: v <= 1.1,
            "{:.2f}x",
        ),
        _judge(
            "10,000 workloads sharing one pool and one quota no more than 1.2x the time of "
            "10,000 that do not",
            _ratio(t.median("shared", 10000, COLD), t.median("separate", 10000, COLD)),
            lambda v: v <= 1.2,
            "{:.2f}x",
        ),
        _judge(
            "warm re-run of 10,000 unchanged manifests at least 8x faster than cold",
            _ratio(cold_10k, t.median("gpulint", 10000, WARM)),
            lambda v: v >= 8,
            "{:.1f}x faster",
        ),
        _judge(
            "warm re-run of 10,000 with a peak under 100 MiB",
            t.peak("gpulint", 10000, WARM),
            lambda v: v < 100,
            "{:.0f} MiB",
        ),
    ]
    identical = same_outputs(measurements)
    target = "output byte-identical across --jobs values and between cold and warm runs"
    if identical is None:
        verdicts.append(Verdict(target, "not measured", None))
    else:
        verdicts.append(Verdict(target, "identical" if identical else "differs", identical))
    return verdicts


def _per_file(seconds: float | None, count: int) -> float | None:
    return None if seconds is None else seconds / count


def same_outputs(measurements: Sequence[dict[str, Any]]) -> bool | None:
    """Did every gpulint run of each gpulint set (cold, first, warm, one job) print the same
    bytes? None when no count had two of them."""
    compared = False
    t = Table(measurements)
    for count in t.counts("gpulint"):
        outputs: set[str] = set()
        runs = [t.get("gpulint", count, tool) for tool in SAME_OUTPUT]
        present = [run for run in runs if run is not None]
        for run in present:
            outputs.update(run["outputs"])
        if len(present) > 1:
            compared = True
            if len(outputs) > 1:
                return False
    return True if compared else None
