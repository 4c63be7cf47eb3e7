"""Time gpulint against check-jsonschema and checkov on generated manifest sets.

    python benchmarks/run.py [--counts 1 100 1000 10000] [--repeats 5] [--work DIR]
                             [--check-jsonschema PATH] [--checkov PATH] [--out results.json]

Every timing is a fresh process, reported as the median of --repeats rounds in which every tool
runs once (so machine noise hits them alike), with peak resident memory (/usr/bin/time %M, the
largest process). gpulint runs three ways: cold (result cache off, its parsed rules and
catalogues cached as after any earlier run), first (no cache at all) and warm (unchanged files,
answered from the result cache). Tools that are not given are skipped. Nothing here is asserted:
the numbers go to benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def _once(command: list[str], env: dict[str, str] | None) -> tuple[float, float]:
    proc = subprocess.run(
        ["/usr/bin/time", "-f", "%e %M", *command],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    wall, rss = proc.stderr.strip().splitlines()[-1].split()[-2:]
    return float(wall), int(rss) / 1024


def measure_together(
    commands: dict[str, tuple[list[str], dict[str, str] | None]], repeats: int
) -> dict[str, dict[str, float]]:
    """Run every command once per round, ``repeats`` rounds, so that machine noise hits all
    tools alike; median wall time (s), fastest run, and peak RSS (MiB) per command."""
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(repeats):
        for name, (command, env) in commands.items():
            samples[name].append(_once(command, env))
    return {
        name: {
            "median_s": statistics.median(t for t, _ in runs),
            "min_s": min(t for t, _ in runs),
            "peak_mib": max(m for _, m in runs),
        }
        for name, runs in samples.items()
    }


def generate(work: Path, count: int, kubernetes: bool = False) -> Path:
    target = work / (f"k8s-{count}" if kubernetes else f"gpulint-{count}")
    if not target.exists():
        flags = ["--kubernetes"] if kubernetes else []
        subprocess.run(
            [sys.executable, str(HERE / "generate.py"), str(target), str(count), *flags], check=True
        )
    return target


def files_of(folder: Path) -> list[str]:
    return sorted(str(p) for p in folder.rglob("*.yaml"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", type=int, nargs="+", default=[1, 100, 1000, 10000])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "gpulint-bench")
    parser.add_argument("--gpulint", default=shutil.which("gpulint") or "gpulint")
    parser.add_argument("--check-jsonschema", dest="cjs", default=None)
    parser.add_argument("--checkov", default=None)
    parser.add_argument(
        "--checkov-max", type=int, default=1000, help="largest count checkov is run on"
    )
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    schema = str(REPO / "schemas" / "gpulint.schema.json")
    cold = {**os.environ, "GPULINT_NO_CACHE": "1"}
    results: dict[str, object] = {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
        },
        "runs": [],
    }
    runs: list[dict[str, object]] = results["runs"]  # type: ignore[assignment]
    for count in args.counts:
        folder = generate(args.work, count)
        files = files_of(folder)
        targets = files if count == 1 else [str(folder)]
        base = [args.gpulint, "check", "--fail-on", "never", "--format", "json"]
        cache_dir = args.work / f"cache-{count}"
        shutil.rmtree(cache_dir, ignore_errors=True)
        warm_env = {**os.environ, "GPULINT_CACHE_DIR": str(cache_dir)}
        subprocess.run([*base, *targets], capture_output=True, env=warm_env, check=False)  # fill it
        commands: dict[str, tuple[list[str], dict[str, str] | None]] = {
            # the usual pre-commit case: files changed since the last run (no result cache),
            # gpulint's own parsed catalogues and rules already cached from an earlier run
            "gpulint_cold": ([*base, "--no-cache", *targets], warm_env),
            # the first run ever on a machine: no cache of any kind
            "gpulint_first": ([*base, *targets], cold),
            # unchanged files: answered from the result cache
            "gpulint_warm": ([*base, *targets], warm_env),
        }
        if count >= 100:
            commands["gpulint_one_job"] = ([*base, "--jobs", "1", *targets], cold)
        if args.cjs:
            commands["check_jsonschema"] = ([args.cjs, "--schemafile", schema, *files], None)
        if args.checkov and count <= args.checkov_max:
            k8s = generate(args.work, count, kubernetes=True)
            commands["checkov"] = (
                [
                    args.checkov,
                    "-d",
                    str(k8s),
                    "--framework",
                    "kubernetes",
                    "--quiet",
                    "--compact",
                    "--skip-download",
                ],
                None,
            )
        row: dict[str, object] = {"count": count, **measure_together(commands, args.repeats)}
        runs.append(row)
        print(json.dumps(row), flush=True)
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
