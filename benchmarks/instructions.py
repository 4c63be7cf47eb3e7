"""Instructions a run executes, for trees of gpulint compared on one set: a lever's worth
measured without the noise of time.

    python benchmarks/instructions.py SET [--tree DIR ...] [--jobs N]

On a shared machine CPU time moves 10-30% between runs of the same command, so a change that
saves 2% cannot be told from noise by timing it; the count of instructions executed (valgrind's
cachegrind, without its cache simulation) moves by well under 0.1%. Each tree (a checkout or
worktree of gpulint; default: this one) runs ``gpulint check --no-cache`` over SET (a folder of
manifests: ``benchmarks/generate.py``, or ``run.py``'s ``--work`` folder's ``sets/``) with the
installed dependencies and that tree's ``linter`` first on the import path, its worker
processes counted too. Each tree runs once unmeasured first, so that its bytecode is compiled
and its start-up cache (parsed rules and catalogues) filled, as a user's runs find them.

A forked worker starts with a copy of its parent's counters: valgrind's count for it includes
everything the parent executed before the fork (a worker that did nothing reported the
parent's whole start-up, 2.2 billion). With ``--jobs`` above 1 the runs are measured with
callgrind instead, told to zero a process's counts where CPython's ``fork`` returns in the
child (``PyOS_AfterFork_Child``), so that each worker counts its own work; callgrind is about
2.5 times slower, and its counts differ from cachegrind's by up to 1% on the same run, so
compare figures of one ``--jobs`` only.

With ``--reference``, the first tree is also compared per file with the lean reference
pipeline (``benchmarks/reference.py``, the yardstick of issue 31's CPU-per-file target): each
runs over SET and over its last file (in path order) alone, and what SET costs beyond the one
file, divided by the files beyond it, is the instructions per file, start-up left out.

Instructions are not time (an instruction of the YAML parser's C code is not one of the
interpreter's), so the figures say which way a change goes and by how much; the speed targets
stay ratios of CPU time in ``run.py``. Needs valgrind (``apt-get install valgrind``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

#: cachegrind's (and callgrind's) summary line for each process it ran:
#: ``==123== I   refs:      1,846,617,757``.
_REFS = re.compile(r"^==\d+== I\s+refs:\s+([\d,]+)\s*$", re.M)


def instructions(report: str) -> int:
    """The instructions of every process in a cachegrind report (stderr), summed."""
    counts = [int(found.replace(",", "")) for found in _REFS.findall(report)]
    if not counts:
        raise ValueError("no instruction count in valgrind's output")
    return sum(counts)


#: The reference pipeline (benchmarks/reference.py), beside this script.
REFERENCE = Path(__file__).resolve().parent / "reference.py"


def reference_command(set_folder: Path, jobs: int) -> list[str]:
    """The reference pipeline over the set, with as many workers."""
    return [sys.executable, str(REFERENCE), str(set_folder), "--jobs", str(jobs)]


def command(set_folder: Path, jobs: int) -> list[str]:
    """The run measured: the JSON report (what CI reads), no result cache, never failing."""
    return [
        sys.executable,
        "-m",
        "linter",
        "check",
        "--format",
        "json",
        "--fail-on",
        "never",
        "--no-cache",
        "--jobs",
        str(jobs),
        str(set_folder),
    ]


def valgrind(jobs: int) -> list[str]:
    """The valgrind command line for a run with ``jobs`` workers (see the module's docstring for
    why forked workers need callgrind)."""
    if jobs <= 1:
        return [
            "valgrind",
            "--tool=cachegrind",
            "--cache-sim=no",
            "--trace-children=yes",
            "--cachegrind-out-file=/dev/null",
        ]
    return [
        "valgrind",
        "--tool=callgrind",
        "--trace-children=yes",
        "--zero-before=PyOS_AfterFork_Child",
        "--callgrind-out-file=/dev/null",
    ]


def measure(
    tree: Path, set_folder: Path, jobs: int, cache: Path, run: list[str] | None = None
) -> int:
    """The instructions of one run of ``tree``'s gpulint over the set (or of ``run``, with that
    tree on the import path), after one unmeasured."""
    environment = {**os.environ, "PYTHONPATH": str(tree), "GPULINT_CACHE_DIR": str(cache)}
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    environment.pop("GPULINT_NO_CACHE", None)
    run = run or command(set_folder, jobs)
    # Run from the cache folder: ``python -m linter`` puts its working directory first on the
    # import path, so run from inside a checkout it would measure that checkout's code for
    # every tree.
    cache.mkdir(parents=True, exist_ok=True)
    subprocess.run(run, env=environment, cwd=cache, capture_output=True, check=True)
    done = subprocess.run(
        [*valgrind(jobs), *run],
        env=environment,
        cwd=cache,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{tree}: exit {done.returncode}: {done.stderr[-2000:]}")
    return instructions(done.stderr)


def per_file(whole: int, one: int, files: int) -> int:
    """Instructions per file beyond the first: a run over ``files`` files less a run over one."""
    return round((whole - one) / (files - 1))


def against_reference(tree: Path, set_folder: Path, jobs: int, scratch: Path) -> str:
    """gpulint's instructions per file and the reference pipeline's, on the set and on its
    last file alone, with their ratio."""
    files = sorted(set_folder.rglob("*.yaml"))
    if len(files) < 2:
        raise ValueError("--reference needs a set of two files or more")
    one = scratch / "one"
    one.mkdir()
    shutil.copyfile(files[-1], one / files[-1].name)  # a workload: a set's ledger sorts first
    counts: dict[str, int] = {}
    for name, make in (("gpulint", command), ("reference pipeline", reference_command)):
        cache = scratch / f"cache-{len(counts)}"
        whole = measure(tree, set_folder, jobs, cache, make(set_folder, jobs))
        alone = measure(tree, one, jobs, cache, make(one, jobs))
        counts[name] = per_file(whole, alone, len(files))
    lines = [f"instructions per file over {len(files):,} files, beyond the first:"]
    lines += [f"  {name:<20}{count:>14,}" for name, count in counts.items()]
    ratio = counts["gpulint"] / counts["reference pipeline"]
    return "\n".join([*lines, f"  {'ratio':<20}{ratio:>13.2f}x"])


def table(counts: Sequence[tuple[str, int]]) -> str:
    """One line per tree: its instructions and their ratio to the first tree's."""
    first = counts[0][1]
    width = max(len(name) for name, _ in counts)
    return "\n".join(
        f"{name:<{width}}  {count:>16,}  {count / first:.4f}" for name, count in counts
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("set", type=Path, help="a folder of manifests")
    parser.add_argument(
        "--tree",
        type=Path,
        action="append",
        help="a gpulint source tree (repeat to compare; the first is the base)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument(
        "--reference",
        action="store_true",
        help="also compare the first tree per file with benchmarks/reference.py",
    )
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("benchmarks/instructions.py needs valgrind on PATH", file=sys.stderr)
        return 2
    trees = [tree.resolve() for tree in args.tree or [Path(__file__).resolve().parents[1]]]
    counts = []
    with tempfile.TemporaryDirectory(prefix="gpulint-instructions-") as scratch:
        for index, tree in enumerate(trees):
            cache = Path(scratch) / str(index)
            counts.append((str(tree), measure(tree, args.set.resolve(), args.jobs, cache)))
        print(table(counts))
        if args.reference:
            print(against_reference(trees[0], args.set.resolve(), args.jobs, Path(scratch)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
