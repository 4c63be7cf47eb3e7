"""Measure gpulint against check-jsonschema and checkov, and write benchmarks/RESULTS.md.

    python benchmarks/run.py --install-anchors            # the full run (about 15 minutes
                                                          # on 2 CPUs)
    python benchmarks/run.py --quick                      # a few minutes, for development

One command regenerates RESULTS.md and results/DATE.json from one run, so every figure and
ratio in it was measured together. Per file count (default 1, 1,000, 10,000 and 20,000) the
commands take turns in each round: gpulint cold, first, warm and with one job on generated
gpulint manifests (first and one job up to 10,000), check-jsonschema on the same files with
gpulint's schema (up to --anchor-max), the reference pipeline (with as many workers as gpulint,
and in one process where gpulint runs with one job), gpulint and checkov on as many Kubernetes
GPU Deployments (checkov up to --checkov-max), and the shared and separate sets of generate.py
--sharing for the sharing ratio (at 10,000) and memory without findings (1,000 and 20,000).
Nothing is asserted: the targets of issue 16 are judged in RESULTS.md (benchmarks/targets.py).

Run it with the Python of the environment gpulint is installed in (its ``gpulint`` script is
used). --install-anchors pip-installs check-jsonschema and checkov into WORK/anchors-venv when
they are not there; --check-jsonschema and --checkov name other executables. A --quick run
writes its RESULTS.md and JSON under WORK only.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from environment import (
    commit,
    find_anchor,
    install_anchors,
    load,
    machine,
    measured_env,
    tool_version,
)
from measure import Command, Series, measure_rounds
from report import render
from targets import (
    CHECKOV,
    CJS,
    COLD,
    FIRST,
    ONE_JOB,
    REFERENCE,
    REFERENCE_ONE_JOB,
    WARM,
    YAMLLINT,
)

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
# From here on: --large-repeats rounds and, after smaller counts, no warm-up run but the one
# that fills the result cache; above it only cold and warm.
LARGE = 10000
SHARING_AT = 10000  # the count of the shared / separate comparison
FLAT = (1000, 20000)  # memory without findings: the separate set at these counts
SET_FLAGS = {
    "gpulint": [],
    "kubernetes": ["--kubernetes"],
    "shared": ["--sharing", "shared"],
    "separate": ["--sharing", "separate"],
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", type=int, nargs="+", default=[1, 1000, 10000, 20000])
    parser.add_argument(
        "--one-repeats",
        type=int,
        default=15,
        help="rounds for one file: each takes about a second, and start-up is what this "
        "machine's noise moves most",
    )
    parser.add_argument("--repeats", type=int, default=3, help="rounds below 10,000 files")
    parser.add_argument("--large-repeats", type=int, default=2, help="rounds from 10,000 files")
    parser.add_argument("--quick", action="store_true", help="1, 100 and 1,000 files, one round")
    parser.add_argument("--work", type=Path, default=HERE / "_work")
    parser.add_argument("--install-anchors", action="store_true")
    parser.add_argument("--check-jsonschema", dest="cjs", default=None)
    parser.add_argument("--yamllint", default=None)
    parser.add_argument("--checkov", default=None)
    parser.add_argument("--anchor-max", type=int, default=10000, help="most files for cjs")
    parser.add_argument("--checkov-max", type=int, default=1000)
    args = parser.parse_args()
    if args.quick:
        args.counts, args.one_repeats, args.repeats, args.large_repeats = [1, 100, 1000], 1, 1, 1
    missing = _reference_needs()
    if missing:
        parser.error(
            f"the reference pipeline needs {missing} in this environment: "
            "pip install '.[test]' (its figures would be those of a crash)"
        )
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    if args.install_anchors:
        install_anchors(work)
    gpulint = str(Path(sys.executable).with_name("gpulint"))
    anchors = {
        CJS: find_anchor(CJS, work, args.cjs),
        YAMLLINT: find_anchor(YAMLLINT, work, args.yamllint),
        CHECKOV: find_anchor(CHECKOV, work, args.checkov),
    }
    versions = {"gpulint": tool_version([gpulint, "--version"])}
    versions.update(
        {name: tool_version([path, "--version"]) for name, path in anchors.items() if path}
    )
    measurements = []
    load_before = load()
    for count in sorted(args.counts):
        rounds = (
            args.one_repeats
            if count == 1
            else args.repeats
            if count < LARGE
            else args.large_repeats
        )
        commands = plan(count, gpulint, anchors, args, work)
        if count >= LARGE and min(args.counts) < count:  # caches and bytecode are warm
            commands = [dataclasses.replace(c, warm_up=c.name == WARM) for c in commands]
        for series in measure_rounds(commands, rounds, work / "out"):
            row = {"set": series.command.group, "count": count, "tool": series.command.name}
            row.update(series.summary())
            if series.command.name == COLD:
                row["findings"] = findings(series)
            measurements.append(row)
            shown = ("set", "count", "tool", "median_s", "cpu_s", "peak_mib")
            print(json.dumps({k: row[k] for k in shown}))
    now = datetime.datetime.now(datetime.timezone.utc)
    results = {
        "date": now.strftime("%Y-%m-%d %H:%M UTC"),
        "command": shlex.join(["python", "benchmarks/run.py", *sys.argv[1:]]),
        "commit": commit(REPO),
        "quick": args.quick,
        "machine": machine(),
        "load": {"before": load_before, "after": load()},
        "versions": versions,
        "settings": {
            "one_repeats": args.one_repeats,
            "repeats": args.repeats,
            "large_repeats": args.large_repeats,
        },
        "measurements": measurements,
    }
    folder = work if args.quick else HERE
    raw = f"{now:%Y-%m-%d}.json"
    (folder / "results").mkdir(exist_ok=True)
    (folder / "results" / raw).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    (folder / "RESULTS.md").write_text(render(results, raw), encoding="utf-8")
    print(f"wrote {folder / 'RESULTS.md'} and {folder / 'results' / raw}")
    return 0


def _reference_needs() -> str:
    """The modules benchmarks/reference.py imports that this Python lacks, named for a message."""
    import importlib.util

    needed = ("yaml", "jsonschema")
    return ", ".join(name for name in needed if importlib.util.find_spec(name) is None)


def _rounds(count: int, args: argparse.Namespace) -> int:
    if count == 1:
        return int(args.one_repeats)
    return int(args.repeats if count < LARGE else args.large_repeats)


def plan(
    count: int,
    gpulint: str,
    anchors: dict[str, str | None],
    args: argparse.Namespace,
    work: Path,
) -> list[Command]:
    """The commands measured at ``count`` files, in the order they take turns."""
    caches = work / "caches"
    parsed = measured_env(caches / "parsed")  # parsed rules and catalogues, kept between runs
    check = [gpulint, "check", "--format", "json", "--fail-on", "never"]
    manifests = generate(work, "gpulint", count)
    commands = [Command("gpulint", COLD, (*check, "--no-cache", manifests), parsed, work)]
    if count <= LARGE:
        first = caches / "first"
        commands.append(
            Command("gpulint", FIRST, (*check, manifests), measured_env(first), work, first)
        )
    warm = caches / f"warm-{count}"
    shutil.rmtree(warm, ignore_errors=True)  # filled by the unmeasured first round
    commands.append(Command("gpulint", WARM, (*check, manifests), measured_env(warm), work))
    if 100 <= count <= LARGE:
        one_job = (*check, "--no-cache", "--jobs", "1", manifests)
        commands.append(Command("gpulint", ONE_JOB, one_job, parsed, work))
    schema = str(REPO / "schemas" / "gpulint.schema.json")
    cjs, checkov, yamllint = anchors[CJS], anchors[CHECKOV], anchors[YAMLLINT]
    if cjs and count <= args.anchor_max:
        files = _yaml_files(work, manifests)
        commands.append(
            Command("gpulint", CJS, (cjs, "--schemafile", schema, *files), parsed, work)
        )
    if yamllint and count == 1:  # the pre-commit anchor: one file
        commands.append(Command("gpulint", YAMLLINT, (yamllint, manifests), parsed, work))
    commands.append(Command("gpulint", REFERENCE, _reference(_cpus(), manifests), parsed, work))
    if 100 <= count <= LARGE:  # beside gpulint's one job: work per file without contention
        alone = _reference(1, manifests)
        commands.append(Command("gpulint", REFERENCE_ONE_JOB, alone, parsed, work))
    if count <= LARGE:
        deployments = generate(work, "kubernetes", count)
        commands.append(
            Command("kubernetes", COLD, (*check, "--no-cache", deployments), parsed, work)
        )
        if checkov and count <= args.checkov_max:
            folder = str(Path(deployments).parent) if count == 1 else deployments
            scan = (
                "-d",
                folder,
                "--framework",
                "kubernetes",
                "--quiet",
                "--compact",
                "--skip-download",
            )
            commands.append(Command("kubernetes", CHECKOV, (checkov, *scan), parsed, work))
    sharing_at = 1000 if args.quick else SHARING_AT
    if count == sharing_at:
        shared = generate(work, "shared", count)
        commands.append(Command("shared", COLD, (*check, "--no-cache", shared), parsed, work))
    if count == sharing_at or count in ((100, 1000) if args.quick else FLAT):
        separate = generate(work, "separate", count)
        commands.append(Command("separate", COLD, (*check, "--no-cache", separate), parsed, work))
    return commands


def _reference(jobs: int, manifests: str) -> tuple[str, ...]:
    """The reference pipeline (reference.py) over ``manifests`` with ``jobs`` processes."""
    return (sys.executable, str(HERE / "reference.py"), "--jobs", str(jobs), manifests)


def _cpus() -> int:
    """The CPUs gpulint's default ``--jobs`` uses, for the reference pipeline to use as many."""
    cpus = machine()["cpus_available"]
    return cpus if isinstance(cpus, int) else 1


def generate(work: Path, set_name: str, count: int) -> str:
    """The generated set (made again when generate.py changed), relative to ``work``: its
    folder, or the one manifest when ``count`` is 1."""
    generator = HERE / "generate.py"
    flags = SET_FLAGS[set_name]
    stamp = hashlib.sha256(generator.read_bytes() + repr(flags).encode()).hexdigest()
    folder = work / "sets" / f"{set_name}-{count}"
    marker = folder / ".generated"
    if not marker.exists() or marker.read_text() != stamp:
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run(
            [sys.executable, str(generator), str(folder), str(count), *flags], check=True
        )
        marker.write_text(stamp)
    if count == 1:
        (only,) = (folder / "team-00").glob("*.yaml")
        return str(only.relative_to(work))
    return str(folder.relative_to(work))


def _yaml_files(work: Path, target: str) -> list[str]:
    path = work / target
    if path.is_file():
        return [target]
    return sorted(str(p.relative_to(work)) for p in path.rglob("*.yaml"))


#: The end of gpulint's JSON report that holds its summary (the last member).
_SUMMARY_TAIL = 4096


def findings(series: Series) -> int | None:
    """How many findings gpulint's JSON report of the last run holds, from its summary at the
    end: parsing a whole 84 MB report here would raise this runner's peak, which is the floor
    of every later command's measured peak (measure.py)."""
    with series.output.open("rb") as stream:
        size = stream.seek(0, os.SEEK_END)
        stream.seek(max(0, size - _SUMMARY_TAIL))
        tail = stream.read().decode("utf-8", "replace")
    key = '"summary":'
    try:
        summary, _ = json.JSONDecoder().raw_decode(tail, tail.rindex(key) + len(key))
        return int(summary["errors"] + summary["warnings"] + summary["notes"])
    except (ValueError, KeyError, TypeError):
        return None


if __name__ == "__main__":
    raise SystemExit(main())
