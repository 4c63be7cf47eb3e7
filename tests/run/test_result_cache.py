"""The result cache: an unchanged run is answered from it; any change, or any doubt, misses."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

from linter.cache.store import CacheStore
from linter.commands.kept_report import ReportSlot
from linter.run import runner
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
  lifecycle: {maxRuntimeHours: 4}
"""


@pytest.fixture
def cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The result cache on, without kept reports: the files' entries are the subject here
    (tests/commands/test_kept_report.py tests the report kept on top of them)."""
    monkeypatch.setattr(ReportSlot, "get", lambda self: None)
    monkeypatch.setattr(ReportSlot, "put", lambda self, report: None)
    monkeypatch.delenv("GPULINT_NO_CACHE")
    monkeypatch.setenv("GPULINT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path / "cache"


def count_linting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """From now on, each file linted (rather than answered from the cache) adds a 1."""
    calls: list[int] = []
    real = runner.lint_file

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "lint_file", counted)
    return calls


def ids(out: str) -> list[tuple[str, int]]:
    return [(f["ruleId"], f["line"]) for f in json.loads(out)["findings"]]


def entries(cache: Path) -> list[Path]:
    """Every entry; a run leaves two (its files' own results and, apart, their run-wide
    parts: linter/run/reuse.py)."""
    return sorted(cache.glob("runs/*/entry-*.bin"))


def test_second_run_is_served_from_the_cache(
    tmp_path: Path, cached: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "job.yaml").write_text(JOB)
    first = run_cli("check", "--format", "json", "job.yaml")
    assert ids(first.out) == [("GL202", 8)]
    assert len(entries(cached)) == 2
    calls = count_linting(monkeypatch)
    second = run_cli("check", "--format", "json", "job.yaml")
    assert (second.code, second.out, second.err, calls) == (first.code, first.out, first.err, [])


def test_any_change_misses(tmp_path: Path, cached: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    job = tmp_path / "job.yaml"
    job.write_text(JOB)
    assert ids(run_cli("check", "--format", "json", "job.yaml").out) == [("GL202", 8)]
    calls = count_linting(monkeypatch)
    job.write_text(JOB.replace("capacity: spot", "capacity: reserved"))
    assert ids(run_cli("check", "--format", "json", "job.yaml").out) == []
    assert calls == [1]
    # selection is part of the run's key: another entry
    job.write_text(JOB)
    assert ids(run_cli("check", "--format", "json", "--ignore", "GL202", "job.yaml").out) == []
    assert len(entries(cached)) == 4


def test_only_changed_files_are_linted_again(
    tmp_path: Path, cached: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An entry keeps each file's result: one changed file of three is the only one linted, and
    what depends on other files (here GL205, a pool both sides share) is recomputed."""
    for name, profile in (("a", "training"), ("b", "inference"), ("c", "training")):
        text = JOB.replace("name: job", f"name: {name}").replace("training", profile)
        (tmp_path / f"{name}.yaml").write_text(text + "  # pool\n")
    run_cli("check", ".")
    calls = count_linting(monkeypatch)
    (tmp_path / "b.yaml").write_text(
        (tmp_path / "b.yaml").read_text().replace("resources:", "resources:\n    pool: gpu")
    )
    (tmp_path / "a.yaml").write_text(
        (tmp_path / "a.yaml").read_text().replace("resources:", "resources:\n    pool: gpu")
    )
    found = ids(run_cli("check", "--format", "json", "--select", "GL205", ".").out)
    assert found == [("GL205", 7), ("GL205", 7)]
    assert calls == [1, 1, 1]  # the selection changed the key: all three again
    calls.clear()
    assert ids(run_cli("check", "--format", "json", "--select", "GL205", ".").out) == found
    assert calls == []


def test_no_cache_flag_and_unusable_directory(
    tmp_path: Path, cached: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "job.yaml").write_text(JOB)
    run_cli("check", "--no-cache", "job.yaml")
    assert entries(cached) == []
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("x")
    monkeypatch.setenv("GPULINT_CACHE_DIR", str(blocker / "cache"))
    assert run_cli("check", "job.yaml").code == 1  # still lints, just without a cache


def test_environment_switches_and_default_location(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GPULINT_NO_CACHE")
    monkeypatch.delenv("GPULINT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "job.yaml").write_text(JOB)
    run_cli("check", "job.yaml")
    assert len(entries(tmp_path / "xdg" / "gpulint")) == 3  # the files' two, the kept report
    assert not (tmp_path / ".gpulint_cache").exists()
    monkeypatch.setenv("GPULINT_NO_CACHE", "1")
    assert ResultCache.for_repository(tmp_path) is None


def test_the_cache_folders_and_secret_are_private(tmp_path: Path, cached: Path) -> None:
    (tmp_path / "job.yaml").write_text(JOB)
    run_cli("check", "job.yaml")
    found = entries(cached)
    assert len(found) == 2
    for folder in (cached, cached / "runs", *(entry.parent for entry in found)):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE((cached / "secret").stat().st_mode) == 0o600
    assert (cached / "secret").stat().st_size == 32
    assert [stat.S_IMODE(entry.stat().st_mode) for entry in found] == [0o600, 0o600]


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda b: b[:-1] + b"]", id="edited payload"),
        pytest.param(lambda b: b"0" * 64 + b[64:], id="forged mac"),
        pytest.param(lambda b: b"", id="empty"),
        pytest.param(lambda b: b[:40], id="truncated"),
        pytest.param(lambda b: b"\x00" * 5000, id="binary"),
    ],
)
def test_a_damaged_entry_is_a_miss(
    damage: Callable[[bytes], bytes], tmp_path: Path, cached: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "job.yaml").write_text(JOB)
    first = run_cli("check", "--format", "json", "job.yaml")
    for entry in entries(cached):
        entry.write_bytes(damage(entry.read_bytes()))
    calls = count_linting(monkeypatch)
    again = run_cli("check", "--format", "json", "job.yaml")
    assert (again.code, again.out, calls) == (first.code, first.out, [1])


Edit = Callable[[dict[str, Any], list[str]], None]


def rewrite_entry(tmp_path: Path, cache_dir: Path, edit: Edit, own: bool = True) -> None:
    """Edit every file's result in the run's entry of the files' own results (or, ``own``
    false, of their run-wide parts) and store it with the user's own secret: authentic, and
    wrong. ``edit`` gets a result and the entry's string table (own results only)."""
    cache = ResultCache.for_repository(tmp_path)
    assert cache is not None
    edited = 0
    for entry in entries(cache_dir):
        key = entry.name.removeprefix("entry-").removesuffix(".bin")
        data = cache.get(key)
        assert data is not None
        if ("strings" in data) == own:
            for result in data["files"].values():
                edit(result, data.get("strings", []))
            cache.put(key, [json.dumps(data).encode()])
            edited += 1
    assert edited == 1


@pytest.mark.parametrize(
    "change",
    [
        {"findings": [{"rule": "GL202"}]},  # wrong shape
        {"findings": [["GL202", "error", 999, None, [], [], None]]},  # no such string
        {"checked": "1"},  # wrong type
        {"skipped": "no"},
    ],
    ids=["shape", "string", "type", "skipped"],
)
def test_an_authentic_entry_that_does_not_fit_the_run_is_a_miss(
    change: dict[str, object], tmp_path: Path, cached: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "job.yaml").write_text(JOB)
    first = run_cli("check", "--format", "json", "job.yaml")
    rewrite_entry(tmp_path, cached, lambda result, _: result.update(change))
    calls = count_linting(monkeypatch)
    assert (run_cli("check", "--format", "json", "job.yaml").out, calls) == (first.out, [1])


@pytest.mark.parametrize(
    "change",
    [
        {"records": [[["elsewhere.yaml", 0, 0], {}]]},  # a record of a file not in the run
        {"deferred": [{"file": "/etc/passwd"}]},
        {"records": "none"},
    ],
    ids=["records", "deferred", "type"],
)
def test_run_wide_parts_that_do_not_fit_the_run_are_a_miss(
    change: dict[str, object], tmp_path: Path, cached: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run-wide parts are read when another file changed: doubtful ones are linted again."""
    other = JOB.replace("name: job", "name: other")
    (tmp_path / "job.yaml").write_text(JOB)
    (tmp_path / "other.yaml").write_text(other)
    run_cli("check", "--format", "json", ".")
    rewrite_entry(tmp_path, cached, lambda result, _: result.update(change), own=False)
    (tmp_path / "other.yaml").write_text(other.replace("capacity: spot", "capacity: reserved"))
    calls = count_linting(monkeypatch)
    again = run_cli("check", "--format", "json", ".").out
    assert calls == [1, 1]
    assert again == run_cli("check", "--no-cache", "--format", "json", ".").out


#: A stored location: [file (a string's number), line, column, end line, end column, ...].
FILE, LINE, COLUMN, END_LINE, END_COLUMN = range(5)


@pytest.mark.parametrize(
    "location",
    [
        {FILE: "elsewhere.yaml"},  # a finding on a file that was not linted
        {LINE: 99, END_LINE: 99},  # beyond the end of the file
        {LINE: 0},  # lines start at 1
        {LINE: 5, COLUMN: 4, END_LINE: 5, END_COLUMN: 1},  # ends before it starts
    ],
    ids=["file", "past-end", "line-0", "backwards"],
)
def test_a_finding_outside_the_run_is_a_miss(
    location: dict[int, object], tmp_path: Path, cached: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "job.yaml").write_text(JOB)
    first = run_cli("check", "--format", "json", "job.yaml")

    def move(result: dict[str, Any], strings: list[str]) -> None:
        stored = result["findings"][0][4]
        for index, value in location.items():
            if isinstance(value, str):
                strings.append(value)
                value = len(strings) - 1
            stored[index] = value

    rewrite_entry(tmp_path, cached, move)
    calls = count_linting(monkeypatch)
    assert (run_cli("check", "--format", "json", "job.yaml").out, calls) == (first.out, [1])


def test_pruning_keeps_the_newest_entries_and_touches_nothing_else(
    tmp_path: Path, cached: Path
) -> None:
    store = CacheStore.for_user(("runs", "x"), max_bytes=1000, keep=2)
    assert store is not None
    for number in range(4):
        key = f"{number:064x}"
        store.put(key, b"payload")
        os.utime(cached / "runs" / "x" / f"entry-{key}.bin", (number, number))
    (cached / "runs" / "x" / "notes.txt").write_text("mine")
    store.put(f"{9:064x}", b"newest")
    assert sorted(p.name for p in (cached / "runs" / "x").iterdir()) == [
        f"entry-{3:064x}.bin",
        f"entry-{9:064x}.bin",
        "notes.txt",
    ]
    assert store.get(f"{9:064x}") == b"newest"
    assert store.get(f"{0:064x}") is None


def test_a_payload_read_in_pieces_is_authenticated_bounded_and_inspected_first(
    tmp_path: Path, cached: Path
) -> None:
    store = CacheStore.for_user(("runs", "x"), max_bytes=10, keep=4)
    assert store is not None
    key, payload = f"{1:064x}", b"a payload above the whole-entry limit"
    store.put(key, payload, limit=100)
    assert store.get(key) is None  # too large to read whole
    seen: list[bytes] = []
    stream = store.open_payload(key, 100, seen.append)
    assert stream is not None
    with stream:
        assert (stream.read(), b"".join(seen)) == (payload, payload)
    assert store.open_payload(key, len(payload) - 1) is None  # over this reader's limit

    def refuse(piece: bytes) -> None:
        raise ValueError("not what was written")

    assert store.open_payload(key, 100, refuse) is None
    entry = cached / "runs" / "x" / f"entry-{key}.bin"
    entry.write_bytes(entry.read_bytes()[:-1] + b"!")
    assert store.open_payload(key, 100) is None  # edited: not authentic
    store.put(f"{2:064x}", payload, limit=20)
    assert not (cached / "runs" / "x" / f"entry-{2:064x}.bin").exists()  # over the writer's


@pytest.mark.parametrize("mode", [0o777, 0o770])
def test_a_cache_folder_others_can_write_to_is_not_used(
    mode: int, tmp_path: Path, cached: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "job.yaml").write_text(JOB)
    cached.mkdir()
    cached.chmod(mode)
    calls = count_linting(monkeypatch)
    for _ in range(2):
        assert run_cli("check", "job.yaml").code == 1
    assert (calls, sorted(p.name for p in cached.iterdir())) == ([1, 1], [])


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_a_cache_folder_owned_by_someone_else_is_not_used(
    tmp_path: Path, cached: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "job.yaml").write_text(JOB)
    cached.mkdir(mode=0o755)
    os.chown(cached, 65534, 65534)
    assert run_cli("check", "job.yaml").code == 1
    assert list(cached.iterdir()) == []


def test_a_planted_link_inside_the_cache_is_not_followed(tmp_path: Path, cached: Path) -> None:
    (tmp_path / "job.yaml").write_text(JOB)
    victim = tmp_path / "victim"
    victim.mkdir()
    cached.mkdir(mode=0o700)
    (cached / "runs").symlink_to(victim)
    assert run_cli("check", "job.yaml").code == 1
    assert list(victim.iterdir()) == []
