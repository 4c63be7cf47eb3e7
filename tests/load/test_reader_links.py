"""The bounded reader resolves a file's folder once for all the files in it (issue 31): the
result must be ``os.path.realpath``'s for every shape of path, links included, and a folder
that became a link since an earlier run of the same process must be seen as one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from linter.load.reader import Refusal, _real_path, forget_resolved, read_bounded


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with a plain file, a linked file, a linked folder and a link out of it."""
    forget_resolved()
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    (repo / "deploy").mkdir(parents=True)
    outside.mkdir()
    (repo / "deploy" / "plain.yaml").write_text("a: 1\n")
    (outside / "secret.yaml").write_text("token: x\n")
    (repo / "deploy" / "linked.yaml").symlink_to(repo / "deploy" / "plain.yaml")
    (repo / "deploy" / "escape.yaml").symlink_to(outside / "secret.yaml")
    (repo / "alias").symlink_to(repo / "deploy")
    monkeypatch.chdir(repo)
    return repo


@pytest.mark.parametrize(
    "path",
    [
        "deploy/plain.yaml",
        "deploy/linked.yaml",
        "deploy/escape.yaml",
        "alias/plain.yaml",
        "alias/escape.yaml",
        "deploy/missing.yaml",
        "missing/plain.yaml",
        "./deploy/../deploy/plain.yaml",
        "plain-at-root.yaml",
    ],
)
def test_the_real_path_is_realpaths(tree: Path, path: str) -> None:
    assert _real_path(path) == os.path.realpath(path)
    assert _real_path(str(tree / path)) == os.path.realpath(tree / path)


def test_a_link_out_of_the_repository_is_refused_in_a_resolved_folder(tree: Path) -> None:
    assert read_bounded("deploy/plain.yaml", 100, tree) == b"a: 1\n"
    refused = read_bounded("deploy/escape.yaml", 100, tree)
    assert refused == Refusal("outside", f"a symbolic link to a file outside {tree}")


def test_a_folder_that_became_a_link_is_seen_by_the_next_run(tree: Path) -> None:
    assert read_bounded("deploy/plain.yaml", 100, tree) == b"a: 1\n"
    os.rename(tree / "deploy", tree.parent / "moved")
    (tree / "deploy").symlink_to(tree.parent / "outside")
    (tree.parent / "outside" / "plain.yaml").write_text("b: 2\n")
    forget_resolved()  # what every run does first (linter/run/runner.py)
    refused = read_bounded("deploy/plain.yaml", 100, tree)
    assert refused == Refusal("outside", f"a symbolic link to a file outside {tree}")
