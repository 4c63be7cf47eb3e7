"""SkyPilot's ``file_mounts`` and ``volumes``: which paths on the node are storage that outlives
it (the SkyPilot YAML reference, "file_mounts" and "Volumes").

- ``/path: s3://bucket/prefix`` copies the bucket to the node: what is written there stays on the
  node.
- ``/path: {source: s3://..., mode: MOUNT}`` (MOUNT is the default mode) or ``MOUNT_CACHED``
  mounts the bucket read-write: checkpoints written there survive. A bucket given by ``name``
  (and ``store``) is the same.
- ``store: volume`` mounts a network volume (``config.storage_type: instance`` is the node's own
  disk); the top-level ``volumes: {/path: name}`` mounts an existing network volume.

``${VAR}`` in paths, sources and names is filled from ``envs`` as SkyPilot does when it parses the
file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from linter.formats.builder import WorkloadBuilder
from linter.formats.cmdline.checkpoints import Mount
from linter.formats.cmdline.shell import Env
from linter.formats.platforms import SkyPilotVocabulary

_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_VOLUME_STORE = "volume"
_INSTANCE_STORAGE = "instance"


def substitute(text: str, env: Env) -> str:
    """``${VAR}`` and ``$VAR`` replaced by the values ``env`` knows; others left as written."""

    def value(match: re.Match[str]) -> str:
        known = env.get(match.group(1) or match.group(2))
        return known if known is not None else match.group(0)

    return _REFERENCE.sub(value, text)


def read_mounts(
    builder: WorkloadBuilder, data: Mapping[str, Any], env: Env, vocab: SkyPilotVocabulary
) -> list[Mount]:
    mounts = []
    file_mounts = data.get("file_mounts")
    if isinstance(file_mounts, Mapping):
        for target, spec in file_mounts.items():
            path = substitute(str(target), env)
            origin = builder.at(("file_mounts", target))
            written = f"`file_mounts` {path}"
            mounts.append(Mount(path, _storage(spec, env, vocab), origin, written))
    elif file_mounts is not None:
        builder.problem(builder.at(("file_mounts",)), "file_mounts maps remote paths to sources")
    volumes = data.get("volumes")
    if isinstance(volumes, Mapping):
        for target, spec in volumes.items():
            path = substitute(str(target), env)
            storage = f"network volume {spec}" if isinstance(spec, str) else None
            mounts.append(
                Mount(path, storage, builder.at(("volumes", target)), f"`volumes` {path}")
            )
    return mounts


def _storage(spec: Any, env: Env, vocab: SkyPilotVocabulary) -> str | None:
    """What outlives the node at this mount, or None."""
    if not isinstance(spec, Mapping):
        return None  # a local path synced, or a bucket URI copied to the node
    mode = spec.get("mode", "MOUNT")
    store = spec.get("store")
    name = spec.get("name")
    source = spec.get("source")
    if isinstance(store, str) and store.lower() == _VOLUME_STORE:
        config = spec.get("config")
        storage_type = config.get("storage_type") if isinstance(config, Mapping) else None
        if storage_type == _INSTANCE_STORAGE or not isinstance(name, str):
            return None
        return f"network volume {substitute(name, env)}"
    if not isinstance(mode, str) or mode.lower() not in vocab.durable_mount_modes:
        return None
    if isinstance(source, str) and "://" in source:
        return substitute(source, env)
    if isinstance(name, str):
        prefix = f"{store.lower()}://" if isinstance(store, str) else "bucket "
        return f"{prefix}{substitute(name, env)}"
    return None
