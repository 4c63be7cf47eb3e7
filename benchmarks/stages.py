"""Where a file's time goes: the CPU per file of each stage of a run, in one process, one core.

    python benchmarks/stages.py SET [--files N] [--rounds R]

SET is a folder of manifests (a set of benchmarks/generate.py). Each pipeline below runs over
the first N files (default: all) in a process forked after start-up, so that every one starts
from the same state (no memo or cache filled by another), with the garbage collector off (what
it costs depends on what a pipeline keeps, not on its stage). Each pipeline runs R times
(default 3), the pipelines taking turns, and its least CPU counts; a stage's cost is its
pipeline's less the previous one's, so a stage smaller than the machine's noise can come out
a little below zero:

- read: the file's bytes, read and hashed as a run reads them;
- parse: YAML (or JSON) to documents with positions;
- recognise and adapt: the documents to typed manifests (the native format validates them,
  the other formats translate theirs);
- facts: every local fact of every manifest, computed and converted to the data rules read;
- rules and the rest of pass 1: the local rules, and each file's records, deferred parts and
  suppressions;
- pass 2 and the rest: the whole run (``--jobs 1``) less pass 1: the run-wide facts and rules,
  suppressions and severities, discovery.

The last lines are what the stages before the rules alone would cost a run of 1,000 and 10,000
such files on the CPUs this machine has, every CPU busy: a floor no change to rule evaluation
can go under.
Start-up (imports, rules, catalogues) is not in any stage: ``run.py`` measures it as one file.
"""

from __future__ import annotations

import argparse
import gc
import os
import pickle
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from linter.bundled import bundled
from linter.config import LoadedConfig, load_config
from linter.facts import RUN_WIDE
from linter.formats import MARKERS
from linter.load import DEFAULT_MAX_BYTES, is_json, load_source
from linter.load.discovery import PathCandidate, find_candidates
from linter.load.sources import read_source
from linter.policy.evaluator import activation
from linter.policy.loader import load_rulebook
from linter.policy.selection import Selection
from linter.run.first_pass import FirstPass, lint_file, read_file
from linter.run.runner import lint_paths
from linter.run.workers import available_cpus

#: One stage's pipeline on one file (each does what the one before it does, and more).
Step = Callable[[PathCandidate], object]
#: A pipeline over every file measured.
Work = Callable[[], object]
#: The stages whose cost no change to rule evaluation touches.
BEFORE_RULES = ("read", "parse", "recognise and adapt", "facts")


@dataclass(frozen=True)
class Stage:
    name: str
    seconds: float  # CPU, over every file measured


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("set", type=Path, help="a folder of manifests (benchmarks/generate.py)")
    parser.add_argument("--files", type=int, default=None, help="the first N files only")
    parser.add_argument(
        "--rounds", type=int, default=3, help="runs of each pipeline; the least CPU counts"
    )
    args = parser.parse_args(argv)
    count, stages = measure(args.set, args.files, args.rounds)
    print(render(str(args.set), count, stages, available_cpus()), end="")
    return 0


def measure(folder: Path, files: int | None, rounds: int) -> tuple[int, list[Stage]]:
    """How many files were measured, and each stage's CPU seconds over all of them (the least
    of ``rounds`` runs of each pipeline, the pipelines taking turns in each round)."""
    config = load_config(None)
    rulebook = load_rulebook([bundled("rules")])
    selection = Selection(config, [], [])
    settings = selection.settings(rulebook)
    enabled = [(rule, settings[rule.id]) for rule in rulebook if rule.id in settings]
    found = find_candidates([str(folder)], config.config.exclude).candidates
    candidates = found[:files] if files else found
    plan = FirstPass.plan(enabled, config, False)
    whole = [str(c.path) for c in candidates] if files else [str(folder)]
    pipelines = [(name, _each_file(step, candidates)) for name, step in _steps(plan, config)]
    pipelines.append(
        ("pass 2 and the rest", lambda: lint_paths(whole, rulebook, config, selection, jobs=1))
    )
    # Start-up, not a stage: the modules a file's formats and facts import on first use, the
    # catalogues they load, the rules' CEL programs (run once on the first file, before forking).
    lint_paths([str(candidates[0].path)], rulebook, config, selection, jobs=1)
    rounds_spent = [[_in_child(work) for _, work in pipelines] for _ in range(rounds)]
    least = [min(spent) for spent in zip(*rounds_spent, strict=True)]
    stages = [
        Stage(name, spent - before)
        for (name, _), spent, before in zip(pipelines, least, [0.0, *least[:-1]], strict=True)
    ]
    return len(candidates), stages


def _each_file(step: Step, candidates: Sequence[PathCandidate]) -> Work:
    def work() -> None:
        for candidate in candidates:
            step(candidate)  # what it makes is dropped: pipelines differ only in their work

    return work


def render(folder: str, count: int, stages: Sequence[Stage], cpus: int) -> str:
    """The table of stages per file, and the floor the stages before the rules set."""
    lines = [f"{count:,} files of {folder}, CPU per file (one process, one core):"]
    lines += [f"  {stage.name:<34} {1000 * stage.seconds / count:7.3f} ms" for stage in stages]
    total = sum(stage.seconds for stage in stages)
    lines.append(f"  {'total':<34} {1000 * total / count:7.3f} ms")
    floor = sum(stage.seconds for stage in stages if stage.name in BEFORE_RULES)
    for files in (1000, 10000):
        seconds = floor / count * files / cpus
        lines.append(
            f"  read, parse, adapt and facts of {files:,} such files on {cpus} CPUs: "
            f"{seconds:.1f} s at the least"
        )
    return "\n".join(lines) + "\n"


def _steps(plan: FirstPass, config: LoadedConfig) -> list[tuple[str, Step]]:
    def read(candidate: PathCandidate) -> object:
        return read_source(candidate, DEFAULT_MAX_BYTES)

    def parse(candidate: PathCandidate) -> object:
        source = read_source(candidate, DEFAULT_MAX_BYTES)
        return load_source(source.content, plan.limits, is_json(candidate.location), MARKERS)

    def adapt(candidate: PathCandidate) -> object:
        return read_file(read_source(candidate, DEFAULT_MAX_BYTES), config, plan.limits)

    def facts(candidate: PathCandidate) -> object:
        _, manifests, _ = read_file(read_source(candidate, DEFAULT_MAX_BYTES), config, plan.limits)
        computed = [activation(m, config.config.residency)["facts"] for m in manifests]
        return [{name: each[name] for name in each if name not in RUN_WIDE} for each in computed]

    def first_pass(candidate: PathCandidate) -> object:
        return lint_file(read_source(candidate, DEFAULT_MAX_BYTES), plan)

    return [
        ("read", read),
        ("parse", parse),
        ("recognise and adapt", adapt),
        ("facts", facts),
        ("rules and the rest of pass 1", first_pass),
    ]


def _in_child(work: Work) -> float:
    """The CPU seconds ``work`` takes in a forked child, without garbage collection."""
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the pipe, never returns
        status = 1
        try:
            os.close(reader)
            gc.disable()
            start = time.process_time()
            work()
            os.write(writer, pickle.dumps(time.process_time() - start))
            status = 0
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(status)
    os.close(writer)
    with os.fdopen(reader, "rb") as stream:
        data = stream.read()
    _, status = os.waitpid(child, 0)
    if status != 0 or not data:
        raise RuntimeError("a pipeline failed in its process (its traceback is above)")
    spent: float = pickle.loads(data)
    return spent


if __name__ == "__main__":
    raise SystemExit(main())
