"""Write RESULTS.md from one run's results (the JSON that run.py saves beside it): every figure
in it comes from that one run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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
    Table,
    Verdict,
    evaluate,
)

METHOD = """\
Every figure is the median of fresh processes (the fastest run in brackets where it helps), and
beside it the median CPU-seconds (user plus system, of the process and every worker it waited
for, as `wait4` reports them), the tools taking turns in each round so that machine noise hits
all of them alike, after an unmeasured run of each command that writes bytecode and fills the
caches the runs rely on (from 10,000 files, after the smaller counts, only the run that fills
the result cache). Memory is the
largest peak resident set of any one process of the run, the parent or a worker (`ru_maxrss`
as `wait4` reports it for the command). gpulint runs with its default
`--jobs` (every available CPU), `--format json --fail-on never`:

- **cold**: the usual pre-commit or CI run: files changed, so no result cache (`--no-cache`);
  gpulint's parsed rules and catalogues are in the user cache from an earlier run.
- **first**: no cache at all (the first run on a machine).
- **warm**: unchanged files, answered from the content-hash result cache.
- **one job**: cold with `--jobs 1` (no worker processes).

The sets come from `benchmarks/generate.py` (seeded): **gpulint manifests** (every profile, 30
to 45 lines, clean and violating documents and one QuotaLedger); **Kubernetes GPU Deployments**
(`--kubernetes`: what checkov scans, and gpulint reads too); **shared** and **separate**
(`--sharing`: serving workloads gpulint finds nothing wrong with, all in one pool and one
quota, or each in a pool of its own with their quotas spread over every region that offers the
instance type; the separate set also measures memory without findings). check-jsonschema
validates the gpulint manifests against gpulint's own `schemas/gpulint.schema.json`; yamllint
lints the one manifest with its default configuration (the pre-commit anchor). The **reference
pipeline** (`benchmarks/reference.py`) is the yardstick for CPU per file: it reads each file,
composes it with libyaml's C composer keeping every key's line, refuses duplicate keys,
validates it against the same schema with `jsonschema`, runs five trivial rules and prints a
JSON report, over as many worker processes as gpulint uses, and in one process beside
gpulint's one job.

The machine is shared: wall times move with what else runs on it (the load averages above),
CPU-seconds much less. Ratios of start-up and of work per file are judged on CPU-seconds, "faster
than" on wall time with the CPU ratio beside it. CPU per file is judged with one process each
where both ran so: two workers on two shared CPUs slow each other by anything from nothing to
half again from one run to the next, which is contention rather than work per file (the ratio
with their workers is shown beside it)."""


def render(results: dict[str, Any], raw_name: str) -> str:
    measurements: list[dict[str, Any]] = results["measurements"]
    table = Table(measurements)
    verdicts = evaluate(measurements)
    parts = [
        "# Benchmark results",
        "<!-- Written by benchmarks/run.py from the run it describes: run it again rather "
        "than edit this file. -->",
        _provenance(results, raw_name),
        "## Summary\n\n" + summary(table, results["machine"]),
        "## How it is measured\n\n" + METHOD,
        _gpulint_table(table),
        _kubernetes_table(table),
        _sharing_table(table),
        _targets(verdicts),
        "## Memory estimator\n\n`memory/vramscout_comparison.md` compares `gpulint memory` "
        "with vramscout 0.7.0 on 17 cases.",
    ]
    return "\n\n".join(part for part in parts if part) + "\n"


def _provenance(results: dict[str, Any], raw_name: str) -> str:
    m, v = results["machine"], results["versions"]
    quick = (
        " A **quick** run (development only: small counts, one round)."
        if results.get("quick")
        else ""
    )
    return (
        f"Measured {results['date']} on {m['cpu']}, {m['cpus_available']} CPUs available to "
        f"the run, {m['memory_gib']} GiB, {m['os']}; Python {m['python']}. gpulint "
        f"{v['gpulint']} at commit `{results['commit']}`; check-jsonschema "
        f"{v.get(CJS, 'not run')}, checkov {v.get(CHECKOV, 'not run')} (in their own virtual "
        f"environment). Rounds: {results['settings']['one_repeats']} for one "
        f"file, {results['settings']['repeats']} below 10,000 files, "
        f"{results['settings']['large_repeats']} from 10,000.{_load(results)}{quick} "
        f"Regenerated, with the raw figures in `results/{raw_name}`, by:"
        f"\n\n```sh\n{results['command']}\n```"
    )


def _load(results: dict[str, Any]) -> str:
    """The load averages (1, 5, 15 minutes) before and after the run, when it recorded them."""
    load = results.get("load")
    if not load or not load.get("before") or not load.get("after"):
        return ""
    before, after = (", ".join(f"{v:.2f}" for v in load[k]) for k in ("before", "after"))
    return f" Load averages (1, 5, 15 min): {before} before the run, {after} after it."


def summary(table: Table, machine: dict[str, Any]) -> str:
    """The paragraph README's speed section quotes."""
    cpus = machine["cpus_available"]
    clauses = []
    for count in table.counts("gpulint"):
        ours, theirs = table.median("gpulint", count, COLD), table.median("gpulint", count, CJS)
        if ours is None:
            continue
        what = "one manifest" if count == 1 else f"{count:,} manifests"
        anchor = f" (check-jsonschema: {_s(theirs)})" if theirs is not None else ""
        clauses.append(f"{what} in {_s(ours)}{anchor}")
    text = f"On {cpus} CPUs gpulint checks " + _join(clauses) if clauses else ""
    largest = max(table.counts("gpulint"), default=None)
    warm = None if largest is None else table.median("gpulint", largest, WARM)
    if warm is not None:
        text += f", or {largest:,} in {_s(warm)} when nothing changed since the last run"
    text += "."
    text += _cpu_summary(table)
    k8s = [c for c in table.counts("kubernetes") if table.get("kubernetes", c, CHECKOV)]
    if k8s:
        count = max(k8s)
        checkov = table.median("kubernetes", count, CHECKOV)
        ours = table.median("kubernetes", count, COLD)
        text += f" checkov takes {_s(checkov)} on {count:,} Kubernetes GPU Deployments"
        text += f", which gpulint checks in {_s(ours)}." if ours is not None else "."
    return text


def _cpu_summary(table: Table) -> str:
    """The start-up and the CPU per file, in CPU-seconds, beside the anchors measured with them."""
    text = ""
    one = table.cpu("gpulint", 1, COLD)
    if one is not None:
        anchors = [
            f"{name} {_s(table.cpu('gpulint', 1, name))}"
            for name in (CJS, YAMLLINT)
            if table.cpu("gpulint", 1, name) is not None
        ]
        beside = f" ({', '.join(anchors)})" if anchors else ""
        text += f" In CPU-seconds, one manifest cold costs {_s(one)}{beside}"
    measured = [c for c in table.counts("gpulint") if c > 1 and table.cpu("gpulint", c, COLD)]
    if measured:
        count = max(measured)
        ours = table.cpu("gpulint", count, COLD) or 0.0
        reference = table.cpu("gpulint", count, REFERENCE)
        text += "; " if text else " In CPU-seconds, "
        text += f"{count:,} manifests cost {ours * 1000 / count:.2f} ms of CPU per file"
        if reference is not None:
            text += f" (the reference pipeline: {reference * 1000 / count:.2f} ms)"
        alone = table.cpu("gpulint", count, ONE_JOB)
        reference_alone = table.cpu("gpulint", count, REFERENCE_ONE_JOB)
        if alone is not None and reference_alone is not None:
            text += (
                f", in one process each {alone * 1000 / count:.2f} ms"
                f" against {reference_alone * 1000 / count:.2f} ms"
            )
    return text + "." if text else ""


def _join(clauses: Sequence[str]) -> str:
    return clauses[0] if len(clauses) == 1 else ", ".join(clauses[:-1]) + " and " + clauses[-1]


def _s(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds:.2f} s" if seconds < 10 else f"{seconds:.1f} s"


def _cell(row: dict[str, Any] | None, memory: bool = True) -> str:
    """Median, the fastest run when there were several, and the peak."""
    if row is None:
        return "-"
    text = _s(row["median_s"])
    if len(row["runs"]) > 1:
        text += f" ({_s(row['min_s'])})"
    if "cpu_s" in row:
        text += f", CPU {_s(row['cpu_s'])}"
    return f"{text}, {row['peak_mib']:.0f} MiB" if memory else text


def _grid(title: str, head: Sequence[str], rows: Sequence[Sequence[str]], note: str = "") -> str:
    lines = [f"## {title}", ""]
    if note:
        lines += [note, ""]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join("---:" for _ in head) + "|")
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _gpulint_table(table: Table) -> str:
    counts = table.counts("gpulint")
    if not counts:
        return ""
    rows = []
    for count in counts:
        cold = table.get("gpulint", count, COLD)
        found = None if cold is None else cold.get("findings")
        findings = "-" if found is None else f"{found:,}"
        rows.append(
            [
                f"{count:,}",
                findings,
                _cell(cold),
                _cell(table.get("gpulint", count, FIRST), memory=False),
                _cell(table.get("gpulint", count, WARM)),
                _cell(table.get("gpulint", count, ONE_JOB)),
                _cell(table.get("gpulint", count, CJS)),
                _cell(table.get("gpulint", count, YAMLLINT)),
                _cell(table.get("gpulint", count, REFERENCE)),
                _cell(table.get("gpulint", count, REFERENCE_ONE_JOB)),
            ]
        )
    head = ["manifests", "findings", "gpulint cold", "first", "warm", "one job", CJS]
    head += [YAMLLINT, REFERENCE, "reference, one job"]
    note = "Median wall (fastest run), median CPU-seconds, peak memory."
    return _grid("gpulint manifests", head, rows, note)


def _kubernetes_table(table: Table) -> str:
    counts = table.counts("kubernetes")
    if not counts:
        return ""
    rows = [
        [
            f"{count:,}",
            _cell(table.get("kubernetes", count, COLD)),
            _cell(table.get("kubernetes", count, CHECKOV)),
        ]
        for count in counts
    ]
    return _grid("Kubernetes GPU Deployments", ["deployments", "gpulint cold", CHECKOV], rows)


def _sharing_table(table: Table) -> str:
    counts = sorted(set(table.counts("shared")) | set(table.counts("separate")))
    if not counts:
        return ""
    rows = [
        [
            f"{count:,}",
            _cell(table.get("shared", count, COLD)),
            _cell(table.get("separate", count, COLD)),
        ]
        for count in counts
    ]
    head = ["workloads", "one pool and one quota", "separate pools, quotas spread"]
    return _grid("Shared pool and quota (finding-free sets, gpulint cold)", head, rows)


def _targets(verdicts: Sequence[Verdict]) -> str:
    def word(met: bool | None) -> str:
        return "not measured" if met is None else ("**met**" if met else "**not met**")

    rows = [[v.target, v.measured, word(v.met)] for v in verdicts]
    title = "## Targets (issue 31, then issue 16's still in force)"
    lines = [title, "", "| target | measured | verdict |", "|---|---|---|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)
