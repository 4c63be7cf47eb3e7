"""Reading the repository at a git revision: the working tree's discovery rules and display
paths, bounded reads, nothing written, and no revision or path that git could take for an
option or a pathspec pattern."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from costrepo import commit, git, service, working_repo, write

from linter.costs.git_tree import resolve, revision_sources
from linter.errors import UsageError
from linter.load import Refusal
from linter.load.discovery import find_candidates
from linter.load.sources import read_sources


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return working_repo(tmp_path, monkeypatch)


def _files(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes() if path.is_file() else b""
        for path in sorted(folder.rglob("*"))
    }


def test_a_revision_reads_like_the_working_tree_did(repo: Path) -> None:
    write(repo / "deploy/chat.yaml", service("chat"))
    write(repo / "deploy/nested/more.yml", service("more"))
    write(repo / "deploy/notes.txt", "not a manifest")
    write(repo / "deploy/.hidden/skip.yaml", service("hidden"))
    write(repo / "deploy/node_modules/skip.yaml", service("dependency"))
    write(repo / "deploy/vendor/skip.yaml", service("vendored"))
    write(repo / "README.yaml", "title: not ours\n")
    before = commit(repo, "base")
    working = read_sources(
        find_candidates(["deploy", "README.yaml"], ["deploy/vendor/*"]).candidates
    )
    write(repo / "deploy/chat.yaml", service("chat", replicas=9))
    (repo / "deploy/nested/more.yml").unlink()
    commit(repo, "change")

    revision = resolve(before[:10], repo)
    assert (revision.commit, revision.root) == (before, repo)
    read = revision_sources(revision, ["deploy", "README.yaml"], ["deploy/vendor/*"], 10_000, repo)
    assert [
        (s.candidate.display, s.candidate.explicit, s.content, s.digest) for s in read.sources
    ] == [(s.candidate.display, s.candidate.explicit, s.content, s.digest) for s in working]
    assert [s.candidate.display for s in read.sources] == [
        "deploy/chat.yaml",
        "deploy/nested/more.yml",
        "README.yaml",
    ]
    assert read.present == {"deploy", "README.yaml"}


def test_display_paths_follow_the_working_directory(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(repo / "deploy/chat.yaml", service("chat"))
    commit(repo, "base")
    monkeypatch.chdir(repo / "deploy")
    revision = resolve("HEAD", Path.cwd())
    read = revision_sources(revision, ["."], [], 10_000, Path.cwd())
    assert [s.candidate.display for s in read.sources] == ["chat.yaml"]


def test_files_over_the_limit_links_and_submodules_are_not_read(repo: Path) -> None:
    big = write(repo / "deploy/big.yaml", service("big") + "#" * 5000 + "\n")
    size = big.stat().st_size
    os.symlink("big.yaml", repo / "deploy/link.yaml")
    sub = repo / "deploy/sub"
    sub.mkdir()
    git(sub, "init", "-q")
    git(
        sub, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "x"
    )
    git(repo, "add", "deploy/big.yaml", "deploy/link.yaml")
    git(
        repo,
        "update-index",
        "--add",
        "--cacheinfo",
        f"160000,{git(sub, 'rev-parse', 'HEAD')},deploy/sub",
    )
    git(repo, "commit", "-q", "-m", "base")
    read = revision_sources(resolve("HEAD", repo), ["deploy"], [], 1000, repo)
    assert [(s.candidate.display, s.content) for s in read.sources] == [
        (
            "deploy/big.yaml",
            Refusal("too-large", f"file is {size:,} bytes, above the 1,000-byte limit"),
        ),
        ("deploy/link.yaml", Refusal("special", "a symbolic link at the revision (not followed)")),
    ]
    assert read.folders_not_read == {"deploy/sub": "a submodule, not read at the revision"}


def test_paths_are_literal_never_pathspec_magic(repo: Path) -> None:
    write(repo / ":(exclude)deploy/chat.yaml", service("literal"))
    write(repo / "deploy/chat.yaml", service("chat"))
    commit(repo, "base")
    read = revision_sources(resolve("HEAD", repo), [":(exclude)deploy"], [], 10_000, repo)
    assert [s.candidate.display for s in read.sources] == [":(exclude)deploy/chat.yaml"]


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("--output=/tmp/owned", "'--output=/tmp/owned' is not a git revision"),
        ("-h", "'-h' is not a git revision"),
        ("main branch", "'main branch' is not a git revision"),
        ("main\x1b[2J", "'main\\x1b[2J' is not a git revision"),
        ("", "'' is not a git revision"),
        ("x" * 300, f"'{'x' * 256}' is not a git revision"),
    ],
)
def test_a_revision_that_could_be_an_option_is_refused(repo: Path, ref: str, message: str) -> None:
    commit(repo, "base")
    with pytest.raises(UsageError) as raised:
        resolve(ref, repo)
    assert str(raised.value) == message


def test_a_revision_that_is_not_a_commit(repo: Path) -> None:
    write(repo / "a.yaml", service("a"))
    commit(repo, "base")
    for ref in ("no-such-branch", "HEAD:a.yaml", "HEAD^{tree}"):
        with pytest.raises(UsageError) as raised:
            resolve(ref, repo)
        assert str(raised.value) == (
            f"{ref!r} is not a commit of the repository at {repo} (in CI, fetch it first: "
            "actions/checkout with fetch-depth: 0)"
        )


def test_outside_a_repository_and_outside_its_tree(repo: Path, tmp_path: Path) -> None:
    commit(repo, "base")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with pytest.raises(UsageError, match=r"^git rev-parse failed: fatal: not a git repository"):
        resolve("HEAD", elsewhere)
    with pytest.raises(UsageError) as raised:
        revision_sources(resolve("HEAD", repo), [str(elsewhere)], [], 10_000, repo)
    assert str(raised.value) == f"{elsewhere}: outside the repository at {repo}"


def test_reading_a_revision_writes_nothing(repo: Path) -> None:
    write(repo / "deploy/chat.yaml", service("chat"))
    commit(repo, "base")
    write(repo / "deploy/chat.yaml", service("chat", replicas=3))  # uncommitted work
    before = _files(repo)
    revision_sources(resolve("HEAD", repo), ["deploy"], [], 10_000, repo)
    assert _files(repo) == before
