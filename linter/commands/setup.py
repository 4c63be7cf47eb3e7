"""What check and facts share: config discovery, the rulebook, the selection."""

import argparse
from pathlib import Path
from typing import NamedTuple

from linter.bundled import bundled
from linter.config import LoadedConfig, find_config, load_config
from linter.load.repository import repository_root
from linter.policy.loader import Rulebook, load_rulebook
from linter.policy.selection import Selection
from linter.run import garbage_collection


class Setup(NamedTuple):
    config: LoadedConfig
    rulebook: Rulebook
    selection: Selection


def load_setup(
    args: argparse.Namespace, select: list[str] | None = None, ignore: list[str] | None = None
) -> Setup:
    """The command line is trusted (``--config``, ``--rules-dir`` are read wherever they point);
    a config found in the repository is held to the repository (linter/config.py)."""
    config = load_configuration(args)
    directories = [bundled("rules"), *config.rules_directories()]
    directories += [Path(d) for d in args.rules_dir]
    rulebook = load_rulebook(directories)
    setup = Setup(config, rulebook, Selection(config, select or [], ignore or []))
    garbage_collection.resume()
    return setup


def load_configuration(args: argparse.Namespace) -> LoadedConfig:
    """``--config FILE``, else the configuration found from the working directory."""
    if args.config:
        if not Path(args.config).is_file():
            from linter.errors import UsageError

            raise UsageError(f"{args.config}: config file not found")
        return load_config(Path(args.config))
    cwd = Path.cwd()
    return load_config(find_config(cwd), repository_root(cwd))
