"""Attack 3: the result cache was trusted input.

A forged entry (committed, or restored by a CI cache step) marked a bad manifest clean; a
malformed one crashed the run; the key was computed from one read of a file and the result from
a second. Entries are now authenticated and validated (anything doubtful is a miss), and a
result is stored under the hash of the bytes that were linted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from hostile_repository import SPOT_JOB, cache_on, repository


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = repository(tmp_path)
    (root / "job.yaml").write_text(SPOT_JOB)
    cache_on(monkeypatch, tmp_path)
    monkeypatch.chdir(root)
    return root


def cache_entries(tmp_path: Path) -> list[Path]:
    """Every result-cache entry, wherever this gpulint keeps them (once ``.gpulint_cache`` in
    the repository, now the user's cache directory)."""
    return [
        *(path for path in tmp_path.rglob("run-*.json") if path.is_file()),
        *tmp_path.glob("cache/gpulint/runs/*/entry-*.bin"),
    ]


def forge(path: Path, edit: Any) -> None:
    """Rewrite the JSON object in an entry (after any prefix it carries) with ``edit``; a kept
    report (linter/commands/kept_report.py) is rewritten to claim a clean run."""
    raw = path.read_bytes()
    mac_end = raw.index(b"\n") + 1
    if raw[mac_end : mac_end + 10].isdigit():
        head = b'{"warnings":[],"worst":null,"filesChecked":1,"skipped":[]}'
        text = b'{"schemaVersion":1,"findings":[]}\n'
        path.write_bytes(raw[:mac_end] + f"{len(head):010d}".encode() + head + text)
        return
    start = raw.index(b"{")
    data = json.loads(raw[start:])
    edit(data)
    path.write_bytes(raw[:start] + json.dumps(data).encode())


def each_file(edit: Any) -> Any:
    """An edit of every file result in a run's entry of the files' own results (entries map
    file keys to results; the entry of their run-wide parts is left alone)."""

    def apply(data: dict[str, Any]) -> None:
        if "strings" in data:
            for result in data["files"].values():
                edit(result, data["strings"])

    return apply


def findings(out: str) -> list[tuple[str, int]]:
    return [(f["ruleId"], f["line"]) for f in json.loads(out)["findings"]]


def test_a_forged_entry_does_not_mark_a_bad_manifest_clean(repo: Path, tmp_path: Path) -> None:
    first = run_cli("check", "--format", "json", "job.yaml")
    assert (first.code, findings(first.out)) == (1, [("GL202", 8)])
    entries = cache_entries(tmp_path)
    assert entries
    for entry in entries:
        forge(entry, each_file(lambda result, _: result.update(findings=[])))
    again = run_cli("check", "--format", "json", "job.yaml")
    assert (again.code, findings(again.out)) == (1, [("GL202", 8)])


def test_a_forged_entry_does_not_put_findings_on_other_files(repo: Path, tmp_path: Path) -> None:
    run_cli("check", "--format", "json", "job.yaml")

    def elsewhere(result: dict[str, Any], strings: list[str]) -> None:
        strings.append("/etc/passwd")
        result["findings"][0][4][0] = len(strings) - 1  # the location's file

    for entry in cache_entries(tmp_path):
        forge(entry, each_file(elsewhere))
    again = run_cli("check", "--format", "json", "job.yaml")
    assert [f["file"] for f in json.loads(again.out)["findings"]] == ["job.yaml"]


def test_a_malformed_entry_is_a_miss_not_a_crash(repo: Path, tmp_path: Path) -> None:
    run_cli("check", "--format", "json", "job.yaml")
    for entry in cache_entries(tmp_path):
        forge(entry, each_file(lambda result, _: result.pop("checked")))
    again = run_cli("check", "--format", "json", "job.yaml")
    assert (again.code, again.err, findings(again.out)) == (1, "", [("GL202", 8)])


def test_what_is_stored_under_a_key_is_the_result_of_the_bytes_it_hashes(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the cache, a file is read and hashed to look its result up, and read again where it
    is linted. An edit between the two reads is linted, and stored under the edited bytes' key:
    never one content's result under another content's key."""
    from linter.run import runner

    job, edited = repo / "job.yaml", SPOT_JOB.replace("capacity: spot", "capacity: on-demand")
    real_read, real_lint = runner.read_source, runner.lint_file
    linted: list[int] = []

    def edit_after_hashing(*args: Any) -> Any:
        source = real_read(*args)
        job.write_text(edited)
        return source

    def counted(*args: Any) -> Any:
        linted.append(1)
        return real_lint(*args)

    monkeypatch.setattr(runner, "lint_file", counted)
    monkeypatch.setattr(runner, "read_source", edit_after_hashing)
    during = run_cli("check", "--format", "json", "--no-cache", "job.yaml")
    assert findings(during.out) == [("GL202", 8)]  # without a cache: one read, as it was
    job.write_text(SPOT_JOB)
    during = run_cli("check", "--format", "json", "job.yaml")
    assert findings(during.out) == [("GL203", 8)]  # hashed as spot, linted as on-demand
    monkeypatch.setattr(runner, "read_source", real_read)
    job.write_text(SPOT_JOB)
    assert findings(run_cli("check", "--format", "json", "job.yaml").out) == [("GL202", 8)]
    job.write_text(edited)
    assert findings(run_cli("check", "--format", "json", "job.yaml").out) == [("GL203", 8)]
    assert linted == [1, 1, 1]  # the spot job linted afresh, the edited one from the cache
