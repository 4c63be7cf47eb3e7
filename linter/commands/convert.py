"""``gpulint convert``: print what gpulint understood of files as gpulint.dev/v1alpha1 YAML."""

from __future__ import annotations

import argparse
import sys

from linter.commands.options import add_config_arguments

HELP = "print what gpulint read from files as gpulint.dev/v1alpha1 YAML, with each value's origin"


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH")
    add_config_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from linter.commands.normalised_yaml import convert
    from linter.commands.setup import load_setup
    from linter.load.discovery import discover
    from linter.printable import printable
    from linter.run.runner import collect

    setup = load_setup(args)
    collected = collect(discover(args.paths, setup.config.config.exclude), setup.config)
    for finding in collected.findings:
        span = finding.location.span
        where = f"{finding.location.file}:{span.line}:{span.column}"
        print(printable(f"gpulint: {where}: {finding.rule_id} {finding.message}"), file=sys.stderr)
    documents = [convert(manifest) for manifest in collected.manifests]
    sys.stdout.write("---\n".join(documents))
    return 1 if collected.findings else 0
