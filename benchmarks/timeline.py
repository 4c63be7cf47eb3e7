"""Where the wall time of one run goes: its phases, and each worker's slices.

    python benchmarks/timeline.py SET [--jobs N]

Runs ``gpulint check SET --no-cache`` once in a fresh interpreter (JSON to nowhere, as
``run.py`` runs it) with its phases wrapped, and prints when each began and ended, in
milliseconds since the interpreter started the probe (its own start-up, some 15 ms, is
not in it): the CLI imported, the first pass (its plans built
and its workers forked), the run-wide pass, the findings finalised; and, for each pass that
forked workers, every worker's slices (how many files, how long each took). A worker's first
slice pays what a process pays for its first file (the modules its formats and facts import on
first use, the catalogues they load, the rules' CEL programs), its later slices only their
files: the difference is that warm-up, which every worker pays at the same time. That is
where the wall time of a forked run (``run.py``'s 1,000 Kubernetes Deployments against
checkov) goes beyond its files' CPU; ``stages.py`` says where a file's CPU goes, ``startup.py``
a one-file run's.

One run, not a median: wall time on a shared machine moves from run to run, so read it on a
quiet one and run it more than once.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]

#: Runs ``gpulint check`` with its phases wrapped; each process (the run's and every worker it
#: forks) appends one JSON line per event to the file named by its first argument: the time
#: (ms since the probe started, on the monotonic clock every forked process shares), its pid,
#: what happened, and for a slice the pass, its first file and its end.
PROBE = """\
import functools, json, os, sys, time
START = time.perf_counter()
events = open(sys.argv[1], "a", buffering=1)
def mark(what, **more):
    at = (time.perf_counter() - START) * 1000
    events.write(json.dumps({"ms": at, "pid": os.getpid(), "what": what, **more}) + "\\n")
def phase(module, name):
    function = getattr(module, name)
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        mark(name + " begins")
        try:
            return function(*args, **kwargs)
        finally:
            mark(name + " ends")
    setattr(module, name, wrapper)
import linter.run.runner as runner, linter.run.second_pass as second, linter.run.workers as workers
passes = []
fork_map, run_slice = workers.fork_map, workers._run
def forking(task, total, jobs):
    passes.append(total)
    mark("fork_map called", index=len(passes) - 1)
    return fork_map(task, total, jobs)
def timed_slice(bounds):
    begun = (time.perf_counter() - START) * 1000
    try:
        return run_slice(bounds)
    finally:
        mark("slice", index=len(passes) - 1, begun=begun, files=bounds[1] - bounds[0])
runner.fork_map = second.fork_map = forking
workers._run = timed_slice
for name in ("_first_pass", "run_wide_findings", "finalise"):
    phase(runner, name)
from linter.cli import main
mark("CLI imported")
code = main(["check", "--no-cache", "--format", "json", "--fail-on", "never",
             "--output", os.devnull, *sys.argv[2:]])
mark("done")
"""

#: The phases of the run's own process, as the probe names their marks, and how they read.
PHASES = {
    "CLI imported": "CLI imported",
    "_first_pass begins": "first pass begins (plans, then files)",
    "fork_map called": "workers forked",
    "_first_pass ends": "first pass ends",
    "run_wide_findings begins": "run-wide pass begins (indices, then files)",
    "run_wide_findings ends": "run-wide pass ends",
    "finalise begins": "suppressions and severities begin",
    "finalise ends": "suppressions and severities end",
    "done": "report written",
}
#: A line the probe wrote: ``ms``, ``pid``, ``what``; a slice's ``index``, ``begun``, ``files``.
Event = dict[str, Any]
#: What each fork_map call of a run is, in order.
PASSES = ("first pass", "run-wide pass")


@dataclass(frozen=True)
class Slice:
    """One slice a worker ran: which pass, which worker (numbered in order of first work)."""

    index: int  # the pass
    worker: int
    files: int
    begun: float  # ms
    ended: float  # ms


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("set", type=Path, help="a folder of manifests (benchmarks/generate.py)")
    parser.add_argument("--jobs", type=int, default=None, help="gpulint's --jobs (its default)")
    args = parser.parse_args(argv)
    flags = ["--jobs", str(args.jobs)] if args.jobs is not None else []
    events = record(args.set, flags)
    print(render(str(args.set), events), end="")
    return 0


def record(folder: Path, flags: Sequence[str]) -> list[Event]:
    """The events of one probed run of ``gpulint check folder``, in the order of their times."""
    with tempfile.TemporaryDirectory() as work:
        log = Path(work) / "events.jsonl"
        log.touch()
        subprocess.run(
            [sys.executable, "-c", PROBE, str(log), *flags, str(folder)],
            cwd=REPO,
            check=True,
        )
        lines = log.read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines]
    return sorted(events, key=lambda event: float(event["ms"]))


def render(folder: str, events: Sequence[Event]) -> str:
    """The run's phases, one line each, and a paragraph per pass that forked workers."""
    main_pid = next(event["pid"] for event in events if event["what"] == "done")
    slices = _slices(events)
    forked = {s.index for s in slices}
    lines = [f"One run of gpulint check {folder} (ms since the interpreter started the probe):"]
    for event in events:
        if event["pid"] == main_pid and event["what"] in PHASES:
            what = PHASES[str(event["what"])]
            if event["what"] == "fork_map called":
                index = int(event["index"])
                if index not in forked:
                    continue  # too few files, or one job: the pass ran in this process
                what = f"{PASSES[index]}: {what}"
            lines.append(f"  {float(event['ms']):9.1f}  {what}")
    for index, name in enumerate(PASSES):
        mine = [s for s in slices if s.index == index]
        if mine:
            lines += _pass_lines(name, mine)
    if not slices:
        lines.append("No pass forked workers: every file was read in the run's own process.")
    return "\n".join(lines) + "\n"


def _slices(events: Sequence[Event]) -> list[Slice]:
    """Every worker's slices, each pass's workers numbered from 1 in the order they began."""
    workers: dict[tuple[object, object], int] = {}
    found = []
    for event in sorted(
        (e for e in events if e["what"] == "slice"),
        key=lambda e: float(e["begun"]),
    ):
        index = int(event["index"])
        ordinal = sum(1 for pass_index, _ in workers if pass_index == index) + 1
        worker = workers.setdefault((index, event["pid"]), ordinal)
        found.append(
            Slice(
                index,
                worker,
                int(event["files"]),
                float(event["begun"]),
                float(event["ms"]),
            )
        )
    return found


def _pass_lines(name: str, slices: Sequence[Slice]) -> list[str]:
    """A pass's slices by worker: each worker's first slice, and its others' median."""
    workers = sorted({s.worker for s in slices})
    files = sum(s.files for s in slices)
    lines = [
        f"{name}: {files:,} files in {len(slices)} slices over {len(workers)} workers, "
        f"{min(s.begun for s in slices):.1f} to {max(s.ended for s in slices):.1f} ms"
    ]
    for worker in workers:
        own = sorted((s for s in slices if s.worker == worker), key=lambda s: s.begun)
        first, rest = own[0], own[1:]
        line = (
            f"  worker {worker}: {len(own)} slices, {sum(s.files for s in own):,} files; "
            f"first slice {first.ended - first.begun:.1f} ms for {first.files:,} files"
        )
        if rest:
            per_file = statistics.median((s.ended - s.begun) / s.files for s in rest)
            warm_up = (first.ended - first.begun) - per_file * first.files
            line += (
                f", later ones {per_file:.3f} ms a file (median), so {warm_up:.1f} ms of warm-up"
            )
        lines.append(line)
    return lines


if __name__ == "__main__":
    sys.exit(main())
