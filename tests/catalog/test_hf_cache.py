"""The local Hugging Face cache reader (linter/catalog/hf_cache.py): the folder layout
huggingface_hub writes, bounded reads, and nothing outside the repository's own folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from linter.catalog.hf_cache import CONFIG_MAX_BYTES, cached_config, hub_folder

COMMIT = "0123456789abcdef0123456789abcdef01234567"
CONFIG = {"model_type": "llama", "hidden_size": 64}


def cache_repository(hub: Path, model_id: str, content: bytes, ref: bool = True) -> Path:
    """A repository as huggingface_hub caches it: the file in blobs/, a link in the snapshot."""
    repository = hub / ("models--" + model_id.replace("/", "--"))
    (repository / "blobs").mkdir(parents=True)
    (repository / "blobs" / "abc123").write_bytes(content)
    snapshot = repository / "snapshots" / COMMIT
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").symlink_to("../../blobs/abc123")
    if ref:
        (repository / "refs").mkdir()
        (repository / "refs" / "main").write_text(COMMIT, encoding="ascii")
    return repository


def env(hub: Path) -> dict[str, str]:
    return {"HF_HUB_CACHE": str(hub)}


@pytest.mark.parametrize(
    ("variables", "expected"),
    [
        ({"HF_HUB_CACHE": "/a/hub", "HF_HOME": "/b"}, "/a/hub"),
        ({"HF_HOME": "/b", "XDG_CACHE_HOME": "/c"}, "/b/hub"),
        ({"XDG_CACHE_HOME": "/c"}, "/c/huggingface/hub"),
    ],
)
def test_hub_folder_follows_huggingface_hub(variables: dict[str, str], expected: str) -> None:
    assert hub_folder(variables) == Path(expected)


def test_default_hub_folder_is_under_home() -> None:
    assert hub_folder({}) == Path("~/.cache/huggingface/hub").expanduser()


def test_reads_the_snapshot_refs_main_names(tmp_path: Path) -> None:
    cache_repository(tmp_path, "acme/tiny-llm", json.dumps(CONFIG).encode())
    found = cached_config("acme/tiny-llm", env(tmp_path))
    assert found is not None and found.config == CONFIG and found.problem is None
    assert found.path == tmp_path / "models--acme--tiny-llm" / "snapshots" / COMMIT / "config.json"


def test_hf_home_holds_the_hub(tmp_path: Path) -> None:
    cache_repository(tmp_path / "hub", "acme/tiny-llm", json.dumps(CONFIG).encode())
    found = cached_config("acme/tiny-llm", {"HF_HOME": str(tmp_path)})
    assert found is not None and found.config == CONFIG


def test_a_lone_snapshot_is_used_without_refs(tmp_path: Path) -> None:
    cache_repository(tmp_path, "acme/tiny-llm", json.dumps(CONFIG).encode(), ref=False)
    found = cached_config("acme/tiny-llm", env(tmp_path))
    assert found is not None and found.config == CONFIG


def test_several_snapshots_without_refs_are_not_guessed(tmp_path: Path) -> None:
    repository = cache_repository(tmp_path, "acme/tiny-llm", b"{}", ref=False)
    (repository / "snapshots" / ("f" * 40)).mkdir()
    found = cached_config("acme/tiny-llm", env(tmp_path))
    assert found is not None and found.config is None
    assert found.problem == "several snapshots and no refs/main"


def test_a_model_the_cache_does_not_hold_is_none(tmp_path: Path) -> None:
    assert cached_config("acme/tiny-llm", env(tmp_path)) is None
    assert cached_config("acme/tiny-llm", {"HF_HUB_CACHE": os.devnull}) is None


@pytest.mark.parametrize(
    "model_id", ["../acme/tiny-llm", "acme/../../etc", "acme--x/y", "a/b/c", "/abs", "acme/"]
)
def test_ids_that_are_not_repository_names_are_never_paths(tmp_path: Path, model_id: str) -> None:
    assert cached_config(model_id, env(tmp_path)) is None


def test_refs_main_must_hold_a_commit(tmp_path: Path) -> None:
    repository = cache_repository(tmp_path, "acme/tiny-llm", b"{}")
    (repository / "refs" / "main").write_text("../../../outside", encoding="ascii")
    found = cached_config("acme/tiny-llm", env(tmp_path))
    assert found is not None and found.problem == "refs/main does not hold a commit hash"


def test_a_link_out_of_the_repository_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps(CONFIG), encoding="utf-8")
    repository = cache_repository(tmp_path / "hub", "acme/tiny-llm", b"{}")
    link = repository / "snapshots" / COMMIT / "config.json"
    link.unlink()
    link.symlink_to(secret)
    found = cached_config("acme/tiny-llm", env(tmp_path / "hub"))
    assert found is not None and found.config is None
    assert found.problem is not None and found.problem.startswith(
        "a symbolic link to a file outside"
    )


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    repository = cache_repository(tmp_path, "acme/tiny-llm", b"{}")
    link = repository / "snapshots" / COMMIT / "config.json"
    link.unlink()
    os.mkfifo(link)
    found = cached_config("acme/tiny-llm", env(tmp_path))
    assert found is not None and found.problem == (
        "not a regular file (a pipe, socket or device?); not read"
    )


def test_an_oversized_config_is_refused(tmp_path: Path) -> None:
    cache_repository(tmp_path, "acme/tiny-llm", b" " * (CONFIG_MAX_BYTES + 1))
    found = cached_config("acme/tiny-llm", env(tmp_path))
    assert found is not None and found.problem == (
        f"file is {CONFIG_MAX_BYTES + 1:,} bytes, above the {CONFIG_MAX_BYTES:,}-byte limit; not read"
    )


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"[1, 2]", "is not a JSON object"),
        (
            b"{",
            "cannot be read as JSON: Expecting property name enclosed in double quotes: "
            "line 1 column 2 (char 1)",
        ),
    ],
)
def test_a_config_that_is_not_an_object_says_so(
    tmp_path: Path, content: bytes, problem: str
) -> None:
    cache_repository(tmp_path, "acme/tiny-llm", content)
    found = cached_config("acme/tiny-llm", env(tmp_path))
    assert found is not None and found.problem == problem


def test_a_snapshot_without_a_config_is_none(tmp_path: Path) -> None:
    repository = cache_repository(tmp_path, "acme/tiny-llm", b"{}")
    (repository / "snapshots" / COMMIT / "config.json").unlink()
    assert cached_config("acme/tiny-llm", env(tmp_path)) is None
