"""Sharding from the config files a launch names when they are in the repository: DeepSpeed's
JSON (``--deepspeed ds_config.json``: ``zero_optimization.stage``) and accelerate's YAML
(``--config_file fsdp.yaml``: ``distributed_type``, ``fsdp_config.fsdp_sharding_strategy``,
``deepspeed_config.zero_stage``). Which keys say what is data (``config_sharding`` in
``linter/formats/data/launcher_flags.yaml``).

A launcher file's commands run from its working folder, which for SkyPilot, dstack and Slurm is
the repository (or the file's folder): a relative path is looked up beside the file, then at the
repository's root. Every read goes through the bounded reader and stays inside the repository;
a file that is absent, outside, too large or not a mapping says nothing (the file's name may:
:func:`linter.formats.cmdline.launchers.sharding_hint`). The files read are returned so the
result's cache knows what it depends on. A trainer's own config file (``axolotl train
config.yml``) is read the same way for its checkpoint settings
(``linter.formats.cmdline.checkpoints``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from linter.formats.cmdline.arguments import Setting
from linter.formats.cmdline.launchers import SHARDING_CONFIGS, catalogue
from linter.load import load_text
from linter.load.reader import Refusal
from linter.load.repository import repository_root
from linter.load.sources import FileRead
from linter.records import datarecord

#: Largest config file read (DeepSpeed and accelerate configs are a few KiB).
CONFIG_MAX_BYTES = 256 * 1024


@datarecord
class ConfigSharding:
    """The sharding a config file says, the launch setting that names the file, and the read."""

    value: str
    key: str
    setting: Setting
    read: FileRead


def config_sharding(
    settings: Mapping[str, Setting], linted: Path
) -> tuple[ConfigSharding | None, tuple[FileRead, ...]]:
    """The sharding the first config file that says one gives (DeepSpeed's, then the
    launcher's), and every file read for it."""
    reads: list[FileRead] = []
    for field in SHARDING_CONFIGS:
        setting = settings.get(field)
        if setting is None or not isinstance(setting.value, str):
            continue
        found = read_config(setting.value, linted)
        if found is None:
            continue
        read, data = found
        reads.append(read)
        said = _sharding_in(data)
        if said is not None:
            key, value = said
            return ConfigSharding(value, key, setting, read), tuple(reads)
    return None, tuple(reads)


def read_config(written: str, linted: Path) -> tuple[FileRead, Mapping[str, Any]] | None:
    """A config file a command names (``written``, relative to the linted file's folder or the
    repository's root) as a mapping, with its read; None when absent, outside, refused or not a
    mapping."""
    if written.startswith(("{", "-")) or not written.endswith((".json", ".yaml", ".yml")):
        return None
    root = repository_root(linted.parent)
    for base in (linted.parent, root):
        read = FileRead(str(base / written), str(root), CONFIG_MAX_BYTES)
        content = read.read()
        if isinstance(content, Refusal):
            continue
        loaded = load_text(content.decode("utf-8", "replace"), json=written.endswith(".json"))
        data = loaded.documents[0].data if loaded.documents and not loaded.problems else None
        return (read, data) if isinstance(data, Mapping) else None
    return None


def _sharding_in(data: Mapping[str, Any]) -> tuple[str, str] | None:
    """The first ``config_sharding`` entry whose key path holds one of its values."""
    for entry in catalogue().config_sharding:
        value: Any = data
        for part in entry.path.split("."):
            value = value.get(part) if isinstance(value, Mapping) else None
        text = str(value).lower() if isinstance(value, bool) else str(value)
        if value is not None and text in entry.choices:
            return entry.path, entry.choices[text]
    return None
