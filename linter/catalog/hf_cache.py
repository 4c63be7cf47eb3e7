"""A model's ``config.json`` from the local Hugging Face cache, never from the network.

huggingface_hub keeps a downloaded repository under ``<hub>/models--ORG--NAME``: ``refs/main``
holds the commit the ``main`` branch pointed at, ``snapshots/<commit>/config.json`` the file
(usually a link to ``../../blobs/<hash>``). ``<hub>`` is ``$HF_HUB_CACHE``, else ``$HF_HOME/hub``,
else ``$XDG_CACHE_HOME/huggingface/hub``, else ``~/.cache/huggingface/hub``.

Everything there is read through the bounded reader with the repository's folder as the root, so
a link that leaves it, a FIFO or an oversized file is refused; a model id is checked against
Hugging Face's repository-name rules before it becomes a path, so ``..`` or a separator cannot
walk out of the hub.
"""

import itertools
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from linter.load.reader import Refusal, read_bounded

#: A Hugging Face repository id: ``NAME`` or ``ORG/NAME`` (letters, digits, ``-``, ``_``, ``.``;
#: no ``--`` or ``..``, which the hub forbids and the cache folder names rely on).
_REPO_ID = re.compile(r"^(?:[A-Za-z0-9][A-Za-z0-9._-]{0,95}/)?[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
_COMMIT = re.compile(r"^[0-9a-f]{40}$|^[0-9a-f]{64}$")
CONFIG_MAX_BYTES = 1024 * 1024
REF_MAX_BYTES = 128
#: Snapshot folders looked at when ``refs/main`` is missing (only a lone one is used).
MAX_SNAPSHOTS = 64


class CachedConfig(NamedTuple):
    """What the cache holds for a model: its parsed config, or why it could not be used."""

    path: Path
    config: dict[str, Any] | None = None
    problem: str | None = None


def hub_folder(env: Mapping[str, str]) -> Path:
    """The hub cache folder huggingface_hub would use with these environment variables."""
    if env.get("HF_HUB_CACHE"):
        return Path(env["HF_HUB_CACHE"]).expanduser()
    if env.get("HF_HOME"):
        return Path(env["HF_HOME"]).expanduser() / "hub"
    cache = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else Path("~/.cache")
    return cache.expanduser() / "huggingface" / "hub"


def _snapshot(repository: Path) -> Path | str | None:
    """The snapshot folder ``refs/main`` names, else the only one; a reason when neither
    is usable; None when the cache does not hold the repository."""
    ref = read_bounded(repository / "refs" / "main", REF_MAX_BYTES, root=repository)
    if not isinstance(ref, Refusal):
        commit = ref.decode("ascii", "replace").strip()
        if not _COMMIT.match(commit):
            return "refs/main does not hold a commit hash"
        return repository / "snapshots" / commit
    try:
        with os.scandir(repository / "snapshots") as entries:
            names = [entry.name for entry in itertools.islice(entries, MAX_SNAPSHOTS)]
    except OSError:
        return None
    found = [name for name in names if _COMMIT.match(name)]
    if len(found) == 1:
        return repository / "snapshots" / found[0]
    return None if not found else "several snapshots and no refs/main"


def decisive_files(model_id: str, env: Mapping[str, str] | None = None) -> list[tuple[Path, Path]]:
    """The files whose bytes decide what :func:`cached_config` gives for ``model_id``, each with
    the folder its read is bounded to: ``refs/main`` and the ``config.json`` of the snapshot it
    names (those present now, or absent: a file that appears later changes the answer too)."""
    if not _REPO_ID.match(model_id) or ".." in model_id or "--" in model_id:
        return []
    repository = hub_folder(os.environ if env is None else env) / (
        "models--" + model_id.replace("/", "--")
    )
    files = [(repository / "refs" / "main", repository)]
    snapshot = _snapshot(repository)
    if isinstance(snapshot, Path):
        files.append((snapshot / "config.json", repository))
    return files


def cached_config(model_id: str, env: Mapping[str, str] | None = None) -> CachedConfig | None:
    """The cached ``config.json`` of ``model_id``; None when the cache does not hold it."""
    if not _REPO_ID.match(model_id) or ".." in model_id or "--" in model_id:
        return None
    repository = hub_folder(os.environ if env is None else env) / (
        "models--" + model_id.replace("/", "--")
    )
    snapshot = _snapshot(repository)
    if snapshot is None:
        return None
    if isinstance(snapshot, str):
        return CachedConfig(repository, problem=snapshot)
    path = snapshot / "config.json"
    content = read_bounded(path, CONFIG_MAX_BYTES, root=repository)
    if isinstance(content, Refusal):
        if content.kind == "unreadable" and not path.exists():
            return None
        return CachedConfig(path, problem=content.message())
    try:
        data = json.loads(content)
    except (ValueError, RecursionError) as err:
        return CachedConfig(path, problem=f"cannot be read as JSON: {err}")
    if not isinstance(data, dict):
        return CachedConfig(path, problem="is not a JSON object")
    return CachedConfig(path, config=data)
