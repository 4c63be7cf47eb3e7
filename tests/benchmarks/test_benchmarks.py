"""The benchmark scripts (benchmarks/): the generated sets, and how a run's figures become
verdicts and RESULTS.md. No timing is measured or asserted here."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))  # the scripts import each other as run.py does
report = importlib.import_module("report")
targets = importlib.import_module("targets")
stages = importlib.import_module("stages")
startup = importlib.import_module("startup")
timeline = importlib.import_module("timeline")
environment = importlib.import_module("environment")


def _generate(folder: Path, count: int, *flags: str) -> dict[str, str]:
    subprocess.run(
        [sys.executable, str(BENCHMARKS / "generate.py"), str(folder), str(count), *flags],
        check=True,
    )
    return {
        str(path.relative_to(folder)): path.read_text(encoding="utf-8")
        for path in sorted(folder.rglob("*.yaml"))
    }


def _lines_with(files: dict[str, str], key: str) -> set[str]:
    return {
        line.strip()
        for name, text in files.items()
        if name != "quota-ledger.yaml"
        for line in text.splitlines()
        if line.strip().startswith(key)
    }


def test_shared_and_separate_sets_differ_only_in_pool_and_region(tmp_path: Path) -> None:
    shared = _generate(tmp_path / "shared", 40, "--sharing", "shared")
    separate = _generate(tmp_path / "separate", 40, "--sharing", "separate")
    assert shared.keys() == separate.keys()
    assert len(shared) == 41  # and one ledger
    assert _lines_with(shared, "pool:") == {"pool: shared"}
    assert _lines_with(shared, "region:") == {"region: us-east-1"}
    assert len(_lines_with(separate, "pool:")) == 40
    assert len(_lines_with(separate, "region:")) == 8
    for name, text in shared.items():
        if name == "quota-ledger.yaml":
            continue
        other = separate[name].splitlines()
        differing = [
            (ours.split(":")[0], theirs.split(":")[0])
            for ours, theirs in zip(text.splitlines(), other, strict=True)
            if ours != theirs
        ]
        assert set(differing) <= {("    region", "    region"), ("    pool", "    pool")}


def test_generated_sets_are_the_same_for_a_seed(tmp_path: Path) -> None:
    first = _generate(tmp_path / "a", 25, "--sharing", "separate", "--seed", "3")
    again = _generate(tmp_path / "b", 25, "--sharing", "separate", "--seed", "3")
    other = _generate(tmp_path / "c", 25, "--sharing", "separate", "--seed", "4")
    assert first == again
    assert first != other


def _row(
    set_name: str,
    count: int,
    tool: str,
    median: float,
    peak: float = 50.0,
    cpu: float | None = None,
    findings: int | None = None,
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "set": set_name,
        "count": count,
        "tool": tool,
        "median_s": median,
        "min_s": median,
        "cpu_s": median if cpu is None else cpu,
        "peak_mib": peak,
        "runs": [[median, peak]],
        "outputs": [f"{set_name}-{count}"],
    }
    if findings is not None:
        row["findings"] = findings
    return row


MEASURED = [
    _row("gpulint", 1, targets.COLD, 0.30),
    _row("gpulint", 1, targets.CJS, 0.40),
    _row("gpulint", 1, targets.YAMLLINT, 0.10),
    _row("gpulint", 1000, targets.COLD, 1.0, 70, findings=4000),
    _row("gpulint", 1000, targets.WARM, 0.3, 60),
    _row("gpulint", 10000, targets.COLD, 6.0, 90, cpu=11.0),
    _row("gpulint", 10000, targets.WARM, 0.5, 120),
    _row("gpulint", 10000, targets.ONE_JOB, 9.0, 90),
    _row("gpulint", 10000, targets.CJS, 30.0, 40, cpu=33.0),
    _row("gpulint", 10000, targets.REFERENCE, 2.0, 40, cpu=4.0),
    _row("gpulint", 10000, targets.REFERENCE_ONE_JOB, 3.0, 40),
    _row("gpulint", 20000, targets.COLD, 23.0, 150, findings=84000),
    _row("kubernetes", 1000, targets.COLD, 1.0, cpu=1.5),
    _row("kubernetes", 1000, targets.CHECKOV, 9.0),
    _row("shared", 10000, targets.COLD, 6.6),
    _row("separate", 10000, targets.COLD, 6.0),
    _row("separate", 1000, targets.COLD, 1.0, 60),
    _row("separate", 20000, targets.COLD, 20.0, 89),
]


def test_each_target_is_judged_on_the_figures_of_its_run() -> None:
    verdicts = targets.evaluate(MEASURED)
    assert [(v.measured, v.met) for v in verdicts] == [
        ("0.75x its CPU", False),
        ("3.00x its CPU", False),
        ("3.00x its CPU, one process each (2.75x with their workers)", False),
        ("5.0x faster (3.0x in CPU)", True),
        ("9.0x faster (6.0x in CPU)", False),
        ("1.48x at 20,000", True),
        # (150 - 70) - (89 - 60) = 51 MiB over 80,000 findings
        ("0.65 KiB", False),
        ("5.5 s", False),
        ("1.15x", False),
        ("1.10x", True),
        ("12.0x faster", True),
        ("120 MiB", False),
        ("identical", True),
    ]


def test_cpu_per_file_is_judged_with_workers_when_no_one_process_pair_ran() -> None:
    alone = (targets.ONE_JOB, targets.REFERENCE_ONE_JOB)
    measured = [m for m in MEASURED if m["tool"] not in alone]
    per_file = targets.evaluate(measured)[2]
    assert (per_file.measured, per_file.met, per_file.value) == ("2.75x its CPU", False, 2.75)


def test_a_target_without_its_figures_is_not_measured() -> None:
    verdicts = targets.evaluate([_row("gpulint", 1, targets.COLD, 0.3)])
    assert {v.met for v in verdicts} == {None}
    assert {v.measured for v in verdicts} == {"not measured"}


def test_outputs_that_differ_between_jobs_fail_the_identity_target() -> None:
    differing = [*MEASURED[:-1], {**MEASURED[6], "outputs": ["other"]}]
    assert targets.same_outputs(differing) is False
    assert targets.same_outputs(MEASURED) is True


@pytest.fixture
def results() -> dict[str, Any]:
    return {
        "date": "2026-12-02 10:00 UTC",
        "command": "python benchmarks/run.py --install-anchors",
        "commit": "0123456789ab",
        "quick": False,
        "machine": {
            "cpu": "Test CPU",
            "cpus": 2,
            "cpus_available": 2,
            "memory_gib": 24.0,
            "os": "Linux",
            "python": "3.11.7",
        },
        "versions": {"gpulint": "0.1.0", "check-jsonschema": "0.39.0", "checkov": "3.3.30"},
        "settings": {"one_repeats": 15, "repeats": 3, "large_repeats": 2},
        "load": {"before": [3.1, 2.0, 1.5], "after": [4.0, 2.5, 1.75]},
        "measurements": MEASURED,
    }


def test_results_md_says_what_was_run_and_quotes_its_figures(results: dict[str, Any]) -> None:
    text = report.render(results, "2026-12-02.json")
    assert "at commit `0123456789ab`; check-jsonschema 0.39.0, checkov 3.3.30" in text
    assert "```sh\npython benchmarks/run.py --install-anchors\n```" in text
    assert "Rounds: 15 for one file, 3 below 10,000 files, 2 from 10,000." in text
    assert (
        "## Summary\n\nOn 2 CPUs gpulint checks one manifest in 0.30 s (check-jsonschema: "
        "0.40 s), 1,000 manifests in 1.00 s, 10,000 manifests in 6.00 s (check-jsonschema: "
        "30.0 s) and 20,000 manifests in 23.0 s. In CPU-seconds, one manifest cold costs 0.30 s "
        "(check-jsonschema 0.40 s, yamllint 0.10 s); 20,000 manifests cost 1.15 ms of CPU per "
        "file. checkov takes 9.00 s on 1,000 Kubernetes GPU Deployments, which gpulint checks in "
        "1.00 s.\n"
    ) in text
    assert (
        "| 10,000 | - | 6.00 s, CPU 11.0 s, 90 MiB | - | 0.50 s, CPU 0.50 s, 120 MiB "
        "| 9.00 s, CPU 9.00 s, 90 MiB | 30.0 s, CPU 33.0 s, 40 MiB | - "
        "| 2.00 s, CPU 4.00 s, 40 MiB | 3.00 s, CPU 3.00 s, 40 MiB |"
    ) in text
    assert "| warm re-run of 10,000 with a peak under 100 MiB | 120 MiB | **not met** |" in text
    assert "| 10,000 | 6.60 s, CPU 6.60 s, 50 MiB | 6.00 s, CPU 6.00 s, 50 MiB |" in text
    assert "Load averages (1, 5, 15 min): 3.10, 2.00, 1.50 before the run, 4.00, 2.50, 1.75" in text


def test_the_summary_gives_cpu_per_file_with_workers_and_in_one_process() -> None:
    up_to_10000 = targets.Table([m for m in MEASURED if m["count"] <= 10000])
    assert report.summary(up_to_10000, {"cpus_available": 2}).endswith(
        "10,000 manifests cost 1.10 ms of CPU per file (the reference pipeline: 0.40 ms), in one "
        "process each 0.90 ms against 0.30 ms. checkov takes 9.00 s on 1,000 Kubernetes GPU "
        "Deployments, which gpulint checks in 1.00 s."
    )


def test_the_stage_table_gives_each_stage_per_file_and_the_floor_before_the_rules() -> None:
    stage = stages.Stage
    measured = [
        stage("read", 0.1),
        stage("parse", 1.0),
        stage("recognise and adapt", 2.0),
        stage("facts", 1.9),
        stage("rules and the rest of pass 1", 3.0),
        stage("pass 2 and the rest", 1.0),
    ]
    assert stages.render("sets/k", 1000, measured, 2) == (
        "1,000 files of sets/k, CPU per file (one process, one core):\n"
        "  read                                 0.100 ms\n"
        "  parse                                1.000 ms\n"
        "  recognise and adapt                  2.000 ms\n"
        "  facts                                1.900 ms\n"
        "  rules and the rest of pass 1         3.000 ms\n"
        "  pass 2 and the rest                  1.000 ms\n"
        "  total                                9.000 ms\n"
        "  read, parse, adapt and facts of 1,000 such files on 2 CPUs: 2.5 s at the least\n"
        "  read, parse, adapt and facts of 10,000 such files on 2 CPUs: 25.0 s at the least\n"
    )


def test_stages_are_measured_over_the_files_asked_for(tmp_path: Path) -> None:
    """Each pipeline runs in its own forked process; what they cost is not asserted, only that
    every stage is measured once over the files asked for, in order."""
    _generate(tmp_path / "set", 6, "--kubernetes")
    count, measured = stages.measure(tmp_path / "set", 4, 1)
    assert count == 4
    assert [stage.name for stage in measured] == [
        "read",
        "parse",
        "recognise and adapt",
        "facts",
        "rules and the rest of pass 1",
        "pass 2 and the rest",
    ]


def test_a_pipeline_that_fails_in_its_process_stops_the_measurement(
    capfd: pytest.CaptureFixture[str],
) -> None:
    def fails() -> None:
        raise ZeroDivisionError("in the child")

    with pytest.raises(RuntimeError, match="a pipeline failed in its process"):
        stages._in_child(fails)
    assert "ZeroDivisionError: in the child" in capfd.readouterr().err


WORKLOAD = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata:
  name: tiny
spec:
  profile: training
  resources:
    provider: aws
    region: us-east-1
    accelerator: {type: H100-80GB, count: 8}
    capacity: spot
  acceptableUse:
    reviewed: false
"""


def test_the_reference_pipeline_reports_rule_hits_schema_errors_and_duplicates(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.yaml").write_text(WORKLOAD, encoding="utf-8")
    (tmp_path / "b.yaml").write_text(
        WORKLOAD.replace("  name: tiny", "  name: tiny\n  name: again").replace(
            "count: 8", "count: eight"
        ),
        encoding="utf-8",
    )
    (tmp_path / "c.yaml").write_text(WORKLOAD.replace("count: 8", "count: eight"), "utf-8")
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "reference.py"), "--jobs", "1", str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(done.stdout)
    found = [(Path(f["file"]).name, f["rule"], f["line"]) for f in report["findings"]]
    assert report["files"] == 3
    assert found == [
        ("a.yaml", "R1", 11),
        ("a.yaml", "R4", 13),
        ("b.yaml", "duplicate", 5),
        ("c.yaml", "schema", 10),
        ("c.yaml", "R1", 11),
        ("c.yaml", "R4", 13),
    ]


def test_the_commit_stamp_ignores_what_a_run_writes_but_not_the_code(tmp_path: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)

    (tmp_path / "benchmarks" / "results").mkdir(parents=True)
    for name in ("benchmarks/RESULTS.md", "benchmarks/results/day.json", "linter.py"):
        (tmp_path / name).write_text("before\n")
    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "measured")
    head = subprocess.run(
        ["git", "-C", str(tmp_path), "rev-parse", "--short=12", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (tmp_path / "benchmarks" / "RESULTS.md").write_text("after\n")
    (tmp_path / "benchmarks" / "results" / "day.json").write_text("after\n")
    assert environment.commit(tmp_path) == head
    (tmp_path / "linter.py").write_text("after\n")
    assert environment.commit(tmp_path) == f"{head}+changes"


instructions = importlib.import_module("instructions")


def test_instruction_counts_of_every_process_are_summed() -> None:
    report = (
        "==101== Cachegrind, a high-precision tracing profiler\n"
        "==101== I   refs:      1,846,617,757\n"
        "==102== I   refs:      12,345\n"
    )
    assert instructions.instructions(report) == 1_846_630_102


def test_a_report_without_a_count_is_an_error() -> None:
    with pytest.raises(ValueError, match="no instruction count"):
        instructions.instructions("valgrind: no such tool\n")


def test_each_tree_is_compared_with_the_first() -> None:
    assert instructions.table([("base", 2_000), ("change", 1_950)]) == (
        "base               2,000  1.0000\nchange             1,950  0.9750"
    )


def test_instructions_per_file_leave_a_one_file_run_out() -> None:
    assert instructions.per_file(1_010_000, 10_000, 101) == 10_000


def test_the_reference_pipeline_runs_with_as_many_workers(tmp_path: Path) -> None:
    assert instructions.reference_command(tmp_path, 2) == [
        sys.executable,
        str(Path(instructions.__file__).resolve().parent / "reference.py"),
        str(tmp_path),
        "--jobs",
        "2",
    ]


def test_the_reference_comparison_needs_two_files(tmp_path: Path) -> None:
    (tmp_path / "set" / "team").mkdir(parents=True)
    (tmp_path / "set" / "team" / "workload.yaml").write_text("kind: Workload\n")
    with pytest.raises(ValueError, match="two files or more"):
        instructions.against_reference(BENCHMARKS.parent, tmp_path / "set", 1, tmp_path)


@pytest.mark.slow
@pytest.mark.skipif(instructions.shutil.which("valgrind") is None, reason="needs valgrind")
def test_gpulint_is_compared_per_file_with_the_reference_pipeline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _generate(tmp_path / "set", 3)
    assert instructions.main([str(tmp_path / "set"), "--reference"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[1] == "instructions per file over 4 files, beyond the first:"  # and a ledger
    assert [line.split()[0] for line in lines[2:]] == ["gpulint", "reference", "ratio"]
    assert lines[4].endswith("x") and float(lines[4].split()[-1][:-1]) > 0


@pytest.mark.slow
@pytest.mark.skipif(instructions.shutil.which("valgrind") is None, reason="needs valgrind")
def test_a_forked_worker_counts_its_own_instructions_not_its_parents(tmp_path: Path) -> None:
    """valgrind gives a forked child its parent's counts so far: with workers, each worker's
    count starts again at the fork."""
    script = tmp_path / "fork.py"
    script.write_text(
        "import os\n"
        "total = sum(i * i for i in range(200_000))  # the parent's work before the fork\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    os._exit(0)\n"
        "os.waitpid(child, 0)\n"
    )
    report = subprocess.run(
        [*instructions.valgrind(2), sys.executable, str(script)],
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    parent, child = sorted(
        int(count.replace(",", "")) for count in instructions._REFS.findall(report)
    )[::-1]
    assert parent > 20_000_000 and child < 1_000_000


@pytest.mark.slow
@pytest.mark.skipif(instructions.shutil.which("valgrind") is None, reason="needs valgrind")
def test_one_tree_is_measured_on_a_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _generate(tmp_path / "set", 1)
    assert instructions.main([str(tmp_path / "set")]) == 0
    line = capsys.readouterr().out.strip()
    assert line.endswith("  1.0000")
    assert int(line.split()[-2].replace(",", "")) > 10_000_000


def test_the_startup_table_gives_each_part_as_a_share_of_the_run_and_the_anchor_ratios() -> None:
    medians = {
        "run": 0.300,
        "interpreter": 0.015,
        "modules": 0.150,
        "modules without pydantic": 0.100,
        "pydantic alone": 0.115,
        "check-jsonschema": 0.400,
        "yamllint": 0.100,
    }
    spent = {"model classes": 0.020, "validators": 0.010, "rulebook": 0.015, "catalogues": 0.006}
    counts = {"model classes": 88, "validators": 4, "rulebook": 47, "catalogues": 12}
    table = startup.render(Path("job.yaml"), 15, medians, {"spent": spent, "counts": counts}, 48)
    assert table == (
        "One-file run of job.yaml, CPU (median of 15 rounds, fresh interpreters):\n"
        "  the run (python -m linter check)       300.0 ms  100.0%\n"
        "  the interpreter alone                   15.0 ms    5.0%\n"
        "  importing pydantic, at least            50.0 ms   16.7%  48 modules\n"
        "  importing pydantic, at most            100.0 ms   33.3%  in a bare interpreter\n"
        "  model classes (in one run)              20.0 ms    6.7%  88 pydantic model classes "
        "created\n"
        "  validators (in one run)                 10.0 ms    3.3%  4 pydantic validators built\n"
        "  rulebook (in one run)                   15.0 ms    5.0%  47 rule files\n"
        "  catalogues (in one run)                  6.0 ms    2.0%  12 catalogues loaded\n"
        "  pydantic in all, at least               80.0 ms   26.7%  import, classes, validators\n"
        "  the run without pydantic               220.0 ms   73.3%\n"
        "  check-jsonschema 400.0 ms: the run is 0.75x its CPU, without pydantic 0.55x\n"
        "  yamllint 100.0 ms: the run is 3.00x its CPU, without pydantic 2.20x\n"
    )


def test_a_run_that_imports_no_pydantic_is_given_none_of_its_cost() -> None:
    """The three imports of no module differ by noise alone: none of it is pydantic's."""
    medians = {
        "run": 0.200,
        "interpreter": 0.012,
        "modules": 0.102,
        "modules without pydantic": 0.100,
        "pydantic alone": 0.011,
        "yamllint": 0.100,
    }
    counts = {"rulebook": 47, "catalogues": 12}
    spent = {"rulebook": 0.015, "catalogues": 0.006}
    table = startup.render(Path("job.yaml"), 15, medians, {"spent": spent, "counts": counts}, 0)
    assert "  importing pydantic, at least             0.0 ms    0.0%  0 modules\n" in table
    assert "  importing pydantic, at most              0.0 ms    0.0%  in a bare interpreter\n" in (
        table
    )
    assert table.endswith(
        "  the run without pydantic               200.0 ms  100.0%\n"
        "  yamllint 100.0 ms: the run is 2.00x its CPU, without pydantic 2.00x\n"
    )


def test_the_startup_probes_see_what_a_one_file_run_imports_and_builds() -> None:
    """What the probes count is the run's own (no time asserted): every bundled rule file and
    the catalogues a serving workload needs, and no pydantic (the probe imports none either)."""
    target = str(startup.EXAMPLE)
    probe = json.loads(startup._output(startup.PROBE, target, "none"))
    rule_files = len(list((BENCHMARKS.parent / "rules").glob("*.yaml")))
    assert probe["code"] == 0
    assert probe["counts"]["rulebook"] == rule_files
    assert probe["counts"]["catalogues"] >= 1
    assert set(probe["spent"]) == {"rulebook", "catalogues"}
    modules = json.loads(startup._output(startup.MODULES, target))
    assert "linter.cli" in modules and not [m for m in modules if startup._is_pydantic(m)]


def test_the_startup_probes_time_pydantic_where_a_run_imports_it(tmp_path: Path) -> None:
    """A manifest with a schema error is validated by pydantic (linter/declared/checking.py):
    the probe times its model classes and validators, and the modules to re-import are those an
    ``import`` statement can bring back alone, in the order the run imported them."""
    text = startup.EXAMPLE.read_text(encoding="utf-8").replace(
        "maxBatchSize: 16", 'maxBatchSize: "16"'
    )
    target = tmp_path / "invalid.yaml"
    target.write_text(text, encoding="utf-8")
    probe = json.loads(startup._output(startup.PROBE, str(target), "pydantic"))
    assert probe["code"] == 0
    assert probe["counts"]["validators"] >= 1
    assert {"model classes", "validators", "rulebook"} <= set(probe["spent"])
    modules = json.loads(startup._output(startup.MODULES, str(target)))
    assert "pydantic_core" in modules and "linter.cli" in modules
    assert "cel.cel" not in modules and "os.path" not in modules and "__main__" not in modules
    assert modules.index("pydantic") < modules.index("pydantic.main")
    checked = subprocess.run(
        [sys.executable, "-c", startup._importing([m for m in modules if m != "linter.cli"])],
        cwd=BENCHMARKS.parent,
        check=False,
    )
    assert checked.returncode == 0
    assert startup._importing([]) == "pass"


def _event(ms: float, what: str, pid: int = 1, **more: object) -> dict[str, object]:
    return {"ms": ms, "pid": pid, "what": what, **more}


def test_the_timeline_gives_each_phase_and_each_workers_warm_up() -> None:
    events = [
        _event(40.0, "CLI imported"),
        _event(70.0, "_first_pass begins"),
        _event(100.0, "fork_map called", index=0),
        _event(300.0, "slice", pid=7, index=0, begun=110.0, files=100),
        _event(320.0, "slice", pid=8, index=0, begun=111.0, files=100),
        _event(420.0, "slice", pid=7, index=0, begun=300.0, files=100),
        _event(430.0, "slice", pid=8, index=0, begun=320.0, files=100),
        _event(540.0, "slice", pid=7, index=0, begun=420.0, files=100),
        _event(545.0, "_first_pass ends"),
        _event(546.0, "run_wide_findings begins"),
        _event(560.0, "fork_map called", index=1),
        _event(570.0, "run_wide_findings ends"),
        _event(571.0, "finalise begins"),
        _event(575.0, "finalise ends"),
        _event(590.0, "done"),
    ]
    assert timeline.render("sets/k", events) == (
        "One run of gpulint check sets/k (ms since the interpreter started the probe):\n"
        "       40.0  CLI imported\n"
        "       70.0  first pass begins (plans, then files)\n"
        "      100.0  first pass: workers forked\n"
        "      545.0  first pass ends\n"
        "      546.0  run-wide pass begins (indices, then files)\n"
        "      570.0  run-wide pass ends\n"
        "      571.0  suppressions and severities begin\n"
        "      575.0  suppressions and severities end\n"
        "      590.0  report written\n"
        "first pass: 500 files in 5 slices over 2 workers, 110.0 to 540.0 ms\n"
        "  worker 1: 3 slices, 300 files; first slice 190.0 ms for 100 files, later ones 1.200 ms"
        " a file (median), so 70.0 ms of warm-up\n"
        "  worker 2: 2 slices, 200 files; first slice 209.0 ms for 100 files, later ones 1.100 ms"
        " a file (median), so 99.0 ms of warm-up\n"
    )


def test_a_run_in_one_process_has_phases_and_no_slices(tmp_path: Path) -> None:
    _generate(tmp_path / "set", 3)
    events = timeline.record(tmp_path / "set", ["--jobs", "1"])
    assert [event["what"] for event in events] == [
        "CLI imported",
        "_first_pass begins",
        "fork_map called",
        "_first_pass ends",
        "run_wide_findings begins",
        "fork_map called",
        "run_wide_findings ends",
        "finalise begins",
        "finalise ends",
        "done",
    ]
    text = timeline.render("set", events)
    assert "workers forked" not in text
    assert text.endswith("No pass forked workers: every file was read in the run's own process.\n")


def test_every_forked_slice_is_recorded_with_its_pass(tmp_path: Path) -> None:
    files = _generate(tmp_path / "set", 200)  # a pass forks from 200 files (run/workers.py)
    slices = timeline._slices(timeline.record(tmp_path / "set", ["--jobs", "2"]))
    for index in (0, 1):
        mine = [s for s in slices if s.index == index]
        assert sum(s.files for s in mine) == len(files)
        assert {s.worker for s in mine} <= {1, 2}


def test_each_tree_is_run_from_outside_every_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``python -m linter`` imports from its working directory first: run from inside a
    checkout, every tree would be that checkout."""
    calls: list[dict[str, Any]] = []

    def run(command: list[str], **options: Any) -> subprocess.CompletedProcess[str]:
        calls.append(options)
        return subprocess.CompletedProcess(command, 0, "", "==1== I   refs:      1,000\n")

    monkeypatch.chdir(BENCHMARKS.parent)
    monkeypatch.setattr(instructions.subprocess, "run", run)
    cache = tmp_path / "cache"
    assert instructions.measure(BENCHMARKS.parent, tmp_path / "set", 1, cache) == 1_000
    assert [call["cwd"] for call in calls] == [cache, cache]
    assert [call["env"]["PYTHONPATH"] for call in calls] == [str(BENCHMARKS.parent)] * 2
