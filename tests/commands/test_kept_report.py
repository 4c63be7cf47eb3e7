"""The kept report: a run over unchanged files prints the report of the run that made it, without
restoring a finding; anything that could change the output, or any doubt, is a miss."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import imported_by_check, run_cli

from linter.commands.kept_report import KeptReport
from linter.run import file_result
from linter.run.result_cache import ResultCache

JOB = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata: {name: job}
spec:
  profile: training
  resources:
    accelerator: {type: H100, count: 8}
    capacity: spot
  lifecycle: {idleShutdownMinutes: 600}
"""


@pytest.fixture
def cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("GPULINT_NO_CACHE")
    monkeypatch.setenv("GPULINT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "job.yaml").write_text(JOB)
    return tmp_path / "cache"


def no_restoring(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on, restoring a file's result from the result cache fails the test."""

    def refuse(*_: Any, **__: Any) -> Any:
        raise AssertionError("a finding was restored: the kept report was not used")

    monkeypatch.setattr(file_result.FileResult, "from_json", refuse)


def report_entries(cache: Path) -> list[Path]:
    """The entries that are kept reports (the others are JSON objects)."""
    store = ResultCache.for_repository(cache.parent)
    assert store is not None
    out = []
    for path in sorted(cache.glob("runs/*/entry-*.bin")):
        key = path.name.removeprefix("entry-").removesuffix(".bin")
        stream = store.open_large(key, lambda piece: None)
        if stream is not None:
            stream.close()
            if store.get(key) is None:
                out.append(path)
    return out


@pytest.mark.parametrize("output", ["text", "json", "sarif", "github"])
def test_an_unchanged_run_prints_the_kept_report(
    output: str, cached: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = run_cli("check", "--format", output, "job.yaml")
    assert first.code == 1
    no_restoring(monkeypatch)
    again = run_cli("check", "--format", output, "job.yaml")
    assert (again.code, again.out, again.err) == (first.code, first.out, first.err)


def test_the_exit_status_comes_from_the_kept_severities(
    cached: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GL202 is an error and GL201 a warning here: the kept report answers every --fail-on."""
    codes = {level: run_cli("check", "--fail-on", level, "job.yaml").code for level in ("error",)}
    no_restoring(monkeypatch)
    for level, code in (("error", 1), ("warning", 1), ("note", 1), ("never", 0)):
        codes[level] = run_cli("check", "--fail-on", level, "job.yaml").code
        assert codes[level] == code
    assert run_cli("check", "--ignore", "GL202", "--fail-on", "error", "job.yaml").code == 0


def test_a_changed_file_or_other_output_options_miss(cached: Path, tmp_path: Path) -> None:
    first = run_cli("check", "--format", "json", "job.yaml")
    sarif = run_cli("check", "--format", "sarif", "job.yaml").out
    assert json.loads(sarif)["version"] == "2.1.0"  # not the JSON report kept for --format json
    (tmp_path / "job.yaml").write_text(JOB.replace("capacity: spot", "capacity: on-demand"))
    after = run_cli("check", "--format", "json", "job.yaml")
    assert [f["ruleId"] for f in json.loads(first.out)["findings"]] == ["GL202", "GL201"]
    assert [f["ruleId"] for f in json.loads(after.out)["findings"]] == ["GL203", "GL201"]
    assert len(report_entries(cached)) == 3


def test_runs_whose_output_depends_on_more_keep_nothing(
    cached: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run_cli("check", "--write-baseline", "base.json", "job.yaml").code == 0
    assert run_cli("check", "--baseline", "base.json", "job.yaml").code == 0
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(JOB.encode())))
    assert run_cli("check", "--stdin-filename", "x.yaml", "-").code == 1
    assert report_entries(cached) == []


def test_the_output_file_gets_the_kept_report(
    cached: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = run_cli("check", "--format", "json", "job.yaml")
    no_restoring(monkeypatch)
    assert run_cli("check", "--format", "json", "--output", "out.json", "job.yaml").out == ""
    assert (tmp_path / "out.json").read_text() == first.out


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda b: b[:-1] + b"x", id="edited"),
        pytest.param(lambda b: b[:70], id="truncated"),
        pytest.param(lambda b: b"", id="empty"),
    ],
)
def test_a_damaged_kept_report_is_a_miss(damage: Any, cached: Path) -> None:
    first = run_cli("check", "--format", "json", "job.yaml")
    (entry,) = report_entries(cached)
    entry.write_bytes(damage(entry.read_bytes()))
    again = run_cli("check", "--format", "json", "job.yaml")
    assert (again.code, again.out, again.err) == (first.code, first.out, first.err)


@pytest.mark.parametrize(
    "report",
    [
        KeptReport(b"\xff\xfe not UTF-8", (), 3, 1, ()),
        KeptReport(b"{}", (), -1, 1, ()),
    ],
    ids=["bytes", "rank"],
)
def test_an_authentic_kept_report_that_does_not_check_out_is_a_miss(
    report: KeptReport, cached: Path
) -> None:
    """Stored with the user's own secret, but not what gpulint writes: linted again."""
    first = run_cli("check", "--format", "json", "job.yaml")
    (entry,) = report_entries(cached)
    store = ResultCache.for_repository(cached.parent)
    assert store is not None
    head = json.dumps(
        {"warnings": [], "worst": report.worst, "filesChecked": 1, "skipped": []}
    ).encode()
    key = entry.name.removeprefix("entry-").removesuffix(".bin")
    assert isinstance(report.data, bytes)
    store.put_large(key, (f"{len(head):010d}".encode() + head, report.data))
    again = run_cli("check", "--format", "json", "job.yaml")
    assert (again.code, again.out) == (first.code, first.out)


def test_a_report_too_large_to_read_whole_is_kept_and_printed_in_pieces(
    cached: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Entries read whole stop at 64 bytes here and the text is read a byte at a time: the report
    is still kept, and a character of two bytes split across pieces prints whole."""
    monkeypatch.setattr("linter.run.result_cache.MAX_ENTRY_BYTES", 64)
    monkeypatch.setattr("linter.commands.kept_report._PIECE", 1)
    (tmp_path / "job.yaml").rename(tmp_path / "jöb.yaml")
    first = run_cli("check", "jöb.yaml")
    assert first.out.startswith("jöb.yaml:8:5: GL202 [error]")
    no_restoring(monkeypatch)
    again = run_cli("check", "jöb.yaml")
    assert (again.code, again.out, again.err) == (first.code, first.out, first.err)
    assert run_cli("check", "--output", "out.txt", "jöb.yaml").out == ""
    assert (tmp_path / "out.txt").read_text(encoding="utf-8") == first.out


def test_a_file_edited_while_it_is_linted_keeps_the_report_of_what_was_linted(
    cached: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run hashes every file to look up a kept report, then reads again what it lints: an
    edit between the two is linted, and its report is kept under the edited file, not the
    file as it was hashed."""
    from linter.run import runner

    job = tmp_path / "job.yaml"
    edited = JOB.replace("capacity: spot", "capacity: on-demand")
    read_source = runner.read_source

    def edit_after_hashing(*args: Any) -> Any:
        source = read_source(*args)
        job.write_text(edited)
        return source

    monkeypatch.setattr(runner, "read_source", edit_after_hashing)
    during = run_cli("check", "--format", "json", "job.yaml")
    assert [f["ruleId"] for f in json.loads(during.out)["findings"]] == ["GL203", "GL201"]
    monkeypatch.setattr(runner, "read_source", read_source)
    no_restoring(monkeypatch)
    after = run_cli("check", "--format", "json", "job.yaml")
    assert (after.code, after.out) == (during.code, during.out)
    job.write_text(JOB)  # never linted before: nothing kept or stored may answer for it
    before = run_cli("check", "--format", "json", "job.yaml")
    assert [f["ruleId"] for f in json.loads(before.out)["findings"]] == ["GL202", "GL201"]


def test_a_run_answered_by_the_kept_report_imports_no_format_fact_or_engine(
    cached: Path, tmp_path: Path
) -> None:
    """What such a run needs is discovery, hashing and the kept entry: importing the formats'
    adapters, the facts and the engine would cost it more than the rest."""
    heavy = ("linter.formats", "linter.facts", "linter.policy.evaluator", "linter.run.first_pass")

    def probed() -> str:
        return imported_by_check(["job.yaml"], tmp_path, cached, heavy)

    first = probed()  # the first run lints
    assert first.startswith("1 [") and "'linter.policy.evaluator'" in first
    assert probed() == "1 []\n"
