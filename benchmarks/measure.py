"""Run a command as a fresh process and measure it: wall time, CPU time, peak memory, and a
hash of what it printed (to compare the outputs of runs that must agree byte for byte).

Peak memory is the largest resident set of the process and every child it waited for (Linux's
``wait4`` reports the maximum over the tree: forked workers included), so no external ``time``
program is needed.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Command:
    """One way of running one tool on one set of files."""

    group: str  # the set of files it reads ("gpulint", "kubernetes", ...)
    name: str  # the column it is reported in: "gpulint cold", "check-jsonschema", ...
    argv: tuple[str, ...]
    env: dict[str, str]
    cwd: Path
    #: A folder removed before every run (the cache of a "first run on a machine").
    fresh: Path | None = None
    #: Run once unmeasured before the first round (to fill its caches, write bytecode).
    warm_up: bool = True


@dataclass(frozen=True)
class Sample:
    wall_s: float
    #: User plus system CPU of the process and every child it waited for: what a shared
    #: machine's load moves far less than wall time.
    cpu_s: float
    peak_mib: float
    exit_code: int
    output_sha256: str


@dataclass
class Series:
    """Every sample of one command, in the order they were taken."""

    command: Command
    output: Path  # where its last run's standard output is
    samples: list[Sample] = field(default_factory=list)

    def summary(self) -> dict[str, object]:
        walls = [s.wall_s for s in self.samples]
        return {
            "median_s": round(statistics.median(walls), 4),
            "min_s": round(min(walls), 4),
            "cpu_s": round(statistics.median(s.cpu_s for s in self.samples), 4),
            "peak_mib": round(max(s.peak_mib for s in self.samples), 1),
            "runs": [[round(s.wall_s, 4), round(s.peak_mib, 1)] for s in self.samples],
            "exit_codes": sorted({s.exit_code for s in self.samples}),
            "outputs": sorted({s.output_sha256 for s in self.samples}),
        }


def run_once(command: Command, output: Path) -> Sample:
    """Run ``command`` once, its standard output into ``output``; errors are discarded."""
    if command.fresh is not None:
        shutil.rmtree(command.fresh, ignore_errors=True)
    with output.open("wb") as sink:
        start = time.perf_counter()
        process = subprocess.Popen(
            command.argv,
            cwd=command.cwd,
            env=command.env,
            stdout=sink,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
        )
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)  # already reaped: keep Popen quiet
    # ru_maxrss: KiB on Linux, bytes on macOS
    peak = usage.ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)
    cpu = usage.ru_utime + usage.ru_stime
    return Sample(wall, cpu, peak, process.returncode, _sha256(output))


def _sha256(path: Path) -> str:
    """The file's hash, read in pieces. Linux carries a process's peak resident set across
    fork and exec, so this runner's own peak is the floor of every later command's
    ``ru_maxrss``: reading an 84 MB report at once made every later command "peak" at 173
    MiB."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for piece in iter(lambda: stream.read(1 << 20), b""):
            digest.update(piece)
    return digest.hexdigest()


def measure_rounds(commands: Sequence[Command], rounds: int, scratch: Path) -> list[Series]:
    """Every command once per round, ``rounds`` rounds, the tools taking turns so that machine
    noise hits them alike. First one unmeasured run of each command that asks for it writes
    bytecode, fills the caches the commands rely on and warms the page cache."""
    scratch.mkdir(parents=True, exist_ok=True)
    series = [Series(command, scratch / f"{index}.out") for index, command in enumerate(commands)]
    for entry in series:
        if entry.command.warm_up:
            run_once(entry.command, entry.output)
    for _ in range(rounds):
        for entry in series:
            entry.samples.append(run_once(entry.command, entry.output))
    return series
