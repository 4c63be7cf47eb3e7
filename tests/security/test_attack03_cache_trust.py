"""Attack 3: the result cache was trusted input.

A forged entry (committed, or restored by a CI cache step) marked a bad manifest clean; a
malformed one crashed the run; the key was computed from one read of a file and the result from
a second. Entries are now authenticated and validated (anything doubtful is a miss), and every
candidate is read once: the bytes hashed are the bytes linted.
"""

from __future__ import annotations

import builtins
import io
import json
import os
import pathlib
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
    report (linter/report_cache.py) is rewritten to claim a clean run."""
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


def test_each_candidate_is_read_once(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One read: what is hashed for the key is what is linted (an edit between two reads
    would store one file's result under the other's key)."""
    target = os.path.realpath(repo / "job.yaml")
    opened: list[str] = []
    real_open, real_io_open, real_os_open = builtins.open, io.open, os.open

    def note(path: Any) -> None:
        if isinstance(path, (str, bytes, os.PathLike)) and os.path.realpath(path) == target:
            opened.append(target)

    def spy_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        note(file)
        return real_open(file, *args, **kwargs)

    def spy_io_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        note(file)
        return real_io_open(file, *args, **kwargs)

    def spy_os_open(path: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("dir_fd") is None:
            note(path)
        return real_os_open(path, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy_open)
    monkeypatch.setattr(io, "open", spy_io_open)
    monkeypatch.setattr(os, "open", spy_os_open)
    monkeypatch.setattr(pathlib.Path, "open", lambda self, *a, **k: spy_io_open(self, *a, **k))
    result = run_cli("check", "--format", "json", "job.yaml")
    monkeypatch.undo()
    assert (result.code, opened) == (1, [target])
