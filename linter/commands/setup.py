"""What check and facts share: config discovery, the rulebook, the selection."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from linter.config import LoadedConfig, find_config, load_config
from linter.policy.loader import Rulebook, load_rulebook
from linter.resources import bundled
from linter.selection import Selection


@dataclass(frozen=True)
class Setup:
    config: LoadedConfig
    rulebook: Rulebook
    selection: Selection


def load_setup(
    args: argparse.Namespace, select: list[str] | None = None, ignore: list[str] | None = None
) -> Setup:
    config_path = Path(args.config) if args.config else find_config(Path.cwd())
    if args.config and not config_path.is_file():  # type: ignore[union-attr]
        from linter.errors import UsageError

        raise UsageError(f"{args.config}: config file not found")
    config = load_config(config_path)
    directories = [bundled("rules")]
    directories += [config.base / d for d in config.config.rules_dirs]
    directories += [Path(d) for d in args.rules_dir]
    rulebook = load_rulebook(directories)
    return Setup(config, rulebook, Selection(config, select or [], ignore or []))
