"""The targets of issue 31 (and those of issue 16 still in force), judged on one run's
measurements: each is met, not met, or not measured in that run. Nothing here is asserted
anywhere; the verdicts go to RESULTS.md.

A measurement is a dict with ``set`` (``gpulint``: generated gpulint manifests; ``kubernetes``:
GPU Deployments; ``shared`` / ``separate``: see generate.py --sharing), ``count``, ``tool`` (the
column: ``gpulint cold``, ``check-jsonschema``, ...) and the figures of
``measure.Series.summary`` (``median_s`` wall, ``cpu_s`` CPU, ``peak_mib``).

Ratios are of two commands measured in the same rounds, taking turns. A ratio of start-up or of
work per file is judged on CPU-seconds, which the load of a shared machine moves far less than
wall time; "faster than" a tool is judged on wall time, as users feel it, with the CPU ratio
shown beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

COLD, FIRST, WARM, ONE_JOB = "gpulint cold", "gpulint first", "gpulint warm", "gpulint one job"
CJS, CHECKOV, YAMLLINT = "check-jsonschema", "checkov", "yamllint"
#: benchmarks/reference.py: the lean pipeline gpulint's CPU per file is compared with.
REFERENCE = "reference pipeline"
#: The same in one process (``--jobs 1``), beside gpulint's one job.
REFERENCE_ONE_JOB = "reference pipeline, one job"
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

    def cpu(self, set_name: str, count: int, tool: str) -> float | None:
        row = self.get(set_name, count, tool)
        return None if row is None or "cpu_s" not in row else float(row["cpu_s"])

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
    """Every target of issue 31's list, then issue 16's that still hold, in their order."""
    t = Table(measurements)
    cold_10k = t.median("gpulint", 10000, COLD)
    return [
        _judge(
            "one manifest cold at most 0.6x check-jsonschema (CPU)",
            _ratio(t.cpu("gpulint", 1, COLD), t.cpu("gpulint", 1, CJS)),
            lambda v: v <= 0.6,
            "{:.2f}x its CPU",
        ),
        _judge(
            "one manifest cold at most 2x yamllint (CPU)",
            _ratio(t.cpu("gpulint", 1, COLD), t.cpu("gpulint", 1, YAMLLINT)),
            lambda v: v <= 2,
            "{:.2f}x its CPU",
        ),
        _per_file_cpu(t),
        _faster(t, "gpulint", 10000, CJS, 3),
        _faster(t, "kubernetes", 1000, CHECKOV, 10),
        _flat(t),
        _judge(
            "at most 0.5 KiB of peak memory per finding (growth from 1,000 manifests to the "
            "largest count, less the finding-free set's growth over the same counts)",
            per_finding_kib(t),
            lambda v: v <= 0.5,
            "{:.2f} KiB",
        ),
        _judge(
            "stretch: 10,000 manifests in 5 s on 2 quiet cores (read off CPU-seconds / 2)",
            _halved(t.cpu("gpulint", 10000, COLD)),
            lambda v: v <= 5,
            "{:.1f} s",
        ),
        _judge(
            "time per file at 20,000 within 10% of the time per file at 1,000",
            _ratio(
                _per_file(t.median("gpulint", 20000, COLD), 20000),
                _per_file(t.median("gpulint", 1000, COLD), 1000),
            ),
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
        _identity(measurements),
    ]


def _per_file_cpu(t: Table) -> Verdict:
    """gpulint's CPU per file at 10,000 against the reference pipeline's: judged with one
    process each where both ran so, the ratio with their default workers beside. Two workers on
    two shared CPUs slow each other by anything from nothing to half again (gpulint's CPU-seconds
    at 10,000 were 0.96x to 1.49x its one-job figure in three runs of nearly the same code on one
    machine), which is contention, not work per file."""
    target = "CPU per file at 10,000 manifests at most 2x the lean reference pipeline"
    workers = _ratio(t.cpu("gpulint", 10000, COLD), t.cpu("gpulint", 10000, REFERENCE))
    alone = _ratio(t.cpu("gpulint", 10000, ONE_JOB), t.cpu("gpulint", 10000, REFERENCE_ONE_JOB))
    if alone is None:
        return _judge(target, workers, lambda v: v <= 2, "{:.2f}x its CPU")
    beside = "" if workers is None else f" ({workers:.2f}x with their workers)"
    return Verdict(
        target, f"{alone:.2f}x its CPU, one process each{beside}", alone <= 2, round(alone, 3)
    )


def _faster(t: Table, set_name: str, count: int, anchor: str, times: float) -> Verdict:
    """gpulint cold at least ``times`` faster than ``anchor`` in wall time, CPU shown too."""
    what = "manifests" if set_name == "gpulint" else "Kubernetes Deployments"
    target = f"{count:,} {what} at least {times:g}x faster than {anchor} (wall; CPU beside)"
    wall = _ratio(t.median(set_name, count, anchor), t.median(set_name, count, COLD))
    cpu = _ratio(t.cpu(set_name, count, anchor), t.cpu(set_name, count, COLD))
    if wall is None:
        return Verdict(target, "not measured", None)
    shown = f"{wall:.1f}x faster" + ("" if cpu is None else f" ({cpu:.1f}x in CPU)")
    return Verdict(target, shown, wall >= times, round(wall, 3))


def _flat(t: Table) -> Verdict:
    """The finding-free set's peak at its largest count within 1.5x of its peak at 1,000."""
    target = (
        "peak memory flat without findings: the finding-free set's peak at its largest count "
        "within 1.5x of its peak at 1,000"
    )
    largest = max((c for c in t.counts("separate") if c > 1000), default=None)
    ratio = (
        None
        if largest is None
        else _ratio(t.peak("separate", largest, COLD), t.peak("separate", 1000, COLD))
    )
    if largest is None or ratio is None:
        return Verdict(target, "not measured", None)
    return Verdict(target, f"{ratio:.2f}x at {largest:,}", ratio <= 1.5, round(ratio, 3))


def per_finding_kib(t: Table) -> float | None:
    """Peak memory per finding, in KiB: how the peak grows from 1,000 gpulint manifests to the
    largest count measured, less how the finding-free set grows over the same counts (memory
    that is not the findings'), over the findings added."""
    larger = [count for count in t.counts("gpulint") if count > 1000]
    small, big = t.get("gpulint", 1000, COLD), t.get("gpulint", max(larger, default=0), COLD)
    if small is None or big is None or not big.get("findings") or small.get("findings") is None:
        return None
    added = big["findings"] - small["findings"]
    growth = big["peak_mib"] - small["peak_mib"]
    free = _difference(t.peak("separate", big["count"], COLD), t.peak("separate", 1000, COLD))
    return None if added <= 0 else max(0.0, growth - (free or 0.0)) * 1024 / added


def _difference(top: float | None, bottom: float | None) -> float | None:
    return None if top is None or bottom is None else top - bottom


def _halved(seconds: float | None) -> float | None:
    return None if seconds is None else seconds / 2


def _identity(measurements: Sequence[dict[str, Any]]) -> Verdict:
    identical = same_outputs(measurements)
    target = "output byte-identical across --jobs values and between cold and warm runs"
    if identical is None:
        return Verdict(target, "not measured", None)
    return Verdict(target, "identical" if identical else "differs", identical)


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
