"""Arguments several commands share (argparse only: cheap to import when building the parser)."""

from __future__ import annotations

import argparse


def add_config_file_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="config file (default: nearest .gpulint.yaml or pyproject.toml [tool.gpulint])",
    )


def add_config_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_file_argument(parser)
    parser.add_argument(
        "--rules-dir",
        metavar="DIR",
        action="append",
        default=[],
        help="extra folder of organisation rule files (repeatable)",
    )
