"""Attack 2: the result cache wrote where the repository pointed it.

A committed ``.gpulint_cache`` symbolic link made gpulint write (and prune) files in any folder;
a dangling ``.gpulint_cache/.gitignore`` link created a file anywhere. The cache now lives in the
user's cache directory, so nothing in the repository decides where gpulint writes.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import run_cli
from hostile_repository import SPOT_JOB, cache_on, files_under, repository


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = repository(tmp_path)
    (root / "job.yaml").write_text(SPOT_JOB)
    cache_on(monkeypatch, tmp_path)
    monkeypatch.chdir(root)
    return root


def test_a_committed_cache_link_does_not_write_or_prune_elsewhere(
    repo: Path, tmp_path: Path
) -> None:
    victim = tmp_path / "victim"  # say, a folder a shell sources
    victim.mkdir()
    planted = {f"run-{n:064x}.json": b"precious" for n in range(12)}
    for name, content in planted.items():
        (victim / name).write_bytes(content)
    os.symlink(victim, repo / ".gpulint_cache")
    for _ in range(2):  # a miss, then a hit
        assert run_cli("check", "job.yaml").code == 1
    assert files_under(victim) == planted


def test_a_dangling_gitignore_link_creates_nothing(repo: Path, tmp_path: Path) -> None:
    (repo / ".gpulint_cache").mkdir()
    target = tmp_path / "created-by-gpulint"
    os.symlink(target, repo / ".gpulint_cache" / ".gitignore")
    assert run_cli("check", "job.yaml").code == 1
    assert not target.exists()


def test_nothing_is_written_into_the_repository(repo: Path) -> None:
    before = files_under(repo)
    assert run_cli("check", "job.yaml").code == 1
    assert run_cli("check", "job.yaml").code == 1
    assert files_under(repo) == before
