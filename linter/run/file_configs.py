"""Each file's configuration: the nearest ``.gpulint.yaml`` (or ``[tool.gpulint]``) above it, as
ruff finds one per file (linter/config.py says what a file's configuration decides and what only
the run's does).

Files are grouped by the configuration that applies to them; each group's rules run with its
own selection, severities and options, in pass 1 and in pass 2, while the run-wide indices are
built from every file of the run (a quota is shared by files configured differently).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence

from linter.config import ConfigFinder, LoadedConfig
from linter.load.discovery import PathCandidate
from linter.policy.loader import Rulebook
from linter.policy.selection import RuleSettings, Selection
from linter.records import datarecord


@datarecord
class ConfigGroup:
    """The files one configuration applies to (``members``: indices into the run's
    candidates), with the rules it runs."""

    selection: Selection
    settings: dict[str, RuleSettings]
    members: tuple[int, ...]

    @property
    def config(self) -> LoadedConfig:
        return self.selection.config


def group_by_config(
    candidates: Sequence[PathCandidate],
    selection: Selection,
    rulebook: Rulebook,
    finder: ConfigFinder | None,
) -> list[ConfigGroup]:
    """The run's configuration first (the files without one of their own, standard input, and
    every file without ``finder``), then one group per other configuration found, in order of
    their first file. A configuration that changes a run-wide key is a ConfigError."""
    run = selection.config
    run_path = _where(run)
    members: dict[str | None, list[int]] = {run_path: []}
    configs: dict[str | None, LoadedConfig] = {run_path: run}
    where_of: dict[LoadedConfig, str | None] = {}  # each configuration's path, worked out once
    for index, candidate in enumerate(candidates):
        config = None
        if finder is not None and candidate.content is None:
            config = finder.for_file(candidate.location, candidate.boundary)
        if config is None:
            where = run_path
        elif config in where_of:
            where = where_of[config]
        else:
            where = where_of[config] = _where(config)
        if where not in configs:
            assert config is not None
            config.check_run_wide_keys(run)
            configs[where] = config
            members[where] = []
        members[where].append(index)
    groups = []
    for where, indices in members.items():
        chosen = dataclasses.replace(selection, config=configs[where])
        groups.append(ConfigGroup(chosen, chosen.settings(rulebook), tuple(indices)))
    return groups


def _where(config: LoadedConfig) -> str | None:
    return None if config.path is None else os.path.abspath(config.path)
