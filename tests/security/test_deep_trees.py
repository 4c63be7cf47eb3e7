"""Attack 8: a directory tree 1,200 levels deep aborted the whole run (RecursionError, exit 2, no
report). Discovery now walks with an explicit stack and does not search below 100 levels; the
run reports what it found and says which folder it did not enter."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import run_cli
from hostile_repository import SPOT_JOB

LEVELS = 1200


def _descend(top: Path, levels: int) -> Iterator[int]:
    """Descriptors of d, d/d, d/d/d ... below ``top`` (created as needed), without building
    long paths and without recursion; the caller closes each one."""
    descriptor = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(levels):
        with contextlib.suppress(FileExistsError):
            os.mkdir("d", dir_fd=descriptor)
        child = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=descriptor)
        yield descriptor
        descriptor = child
    yield descriptor


@pytest.fixture
def deep_tree(tmp_path: Path) -> Iterator[Path]:
    """``tree/`` with a manifest 50 levels down and another 1,100 levels down, 1,200 deep."""
    tree = tmp_path / "tree"
    tree.mkdir()
    for depth, descriptor in enumerate(_descend(tree, LEVELS)):
        if depth in (50, 1100):
            flags = os.O_WRONLY | os.O_CREAT
            handle = os.open(f"job{depth}.yaml", flags, 0o644, dir_fd=descriptor)
            os.write(handle, SPOT_JOB.encode())
            os.close(handle)
        os.close(descriptor)
    yield tree
    # pytest's own clean-up recurses; take the tree down level by level from the bottom
    descriptors = list(_descend(tree, LEVELS))
    for depth in range(LEVELS, 0, -1):
        for name in os.listdir(descriptors[depth]):
            os.unlink(name, dir_fd=descriptors[depth])
        os.close(descriptors[depth])
        os.rmdir("d", dir_fd=descriptors[depth - 1])
    for name in os.listdir(descriptors[0]):
        os.unlink(name, dir_fd=descriptors[0])
    os.close(descriptors[0])


def test_a_very_deep_tree_is_searched_to_a_bound_and_reported(
    deep_tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(deep_tree.parent)
    result = run_cli("check", "--select", "GL202", "--format", "json", "tree")
    shallow = "tree/" + "d/" * 50 + "job50.yaml"
    bottom = "tree/" + "d/" * 100
    assert result.code == 1
    report = json.loads(result.out)
    assert [(f["ruleId"], f["file"], f["line"]) for f in report["findings"]] == [
        ("GL202", shallow, 8)
    ]
    assert report["summary"]["filesChecked"] == 1
    assert result.err == (
        f"gpulint: skipped the folders in {bottom.rstrip('/')}: more than 100 levels deep\n"
    )
