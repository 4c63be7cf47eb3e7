"""The result cache: an unchanged run is answered from it; any change misses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli

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
    monkeypatch.delenv("GPULINT_NO_CACHE")
    monkeypatch.setenv("GPULINT_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def ids(out: str) -> list[tuple[str, int]]:
    return [(f["ruleId"], f["line"]) for f in json.loads(out)["findings"]]


def test_second_run_is_served_from_the_cache(tmp_path: Path, cached: Path) -> None:
    job = tmp_path / "job.yaml"
    job.write_text(JOB)
    first = run_cli("check", "--format", "json", str(job))
    (entry,) = cached.glob("run-*.json")
    second = run_cli("check", "--format", "json", str(job))
    assert (second.code, second.out) == (first.code, first.out)
    assert ids(first.out) == [("GL202", 8)]
    # a tampered entry proves the second run read it rather than linting again
    data = json.loads(entry.read_text())
    data["findings"][0]["message"] = "from the cache"
    entry.write_text(json.dumps(data))
    assert (
        json.loads(run_cli("check", "--format", "json", str(job)).out)["findings"][0]["message"]
        == "from the cache"
    )


def test_any_change_misses(tmp_path: Path, cached: Path) -> None:
    job = tmp_path / "job.yaml"
    job.write_text(JOB)
    assert ids(run_cli("check", "--format", "json", str(job)).out) == [("GL202", 8)]
    job.write_text(JOB.replace("capacity: spot", "capacity: reserved"))
    assert ids(run_cli("check", "--format", "json", str(job)).out) == []
    # selection is part of the key too
    job.write_text(JOB)
    assert ids(run_cli("check", "--format", "json", "--ignore", "GL202", str(job)).out) == []
    assert len(list(cached.glob("run-*.json"))) == 3


def test_no_cache_flag_and_unwritable_directory(
    tmp_path: Path, cached: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    job = tmp_path / "job.yaml"
    job.write_text(JOB)
    run_cli("check", "--no-cache", str(job))
    assert not cached.exists()
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("x")
    monkeypatch.setenv("GPULINT_CACHE_DIR", str(blocker / "cache"))
    assert run_cli("check", str(job)).code == 1  # still lints, just without a cache
