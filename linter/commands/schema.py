"""``gpulint schema [KIND]``: print the published JSON Schema of a manifest kind."""

from __future__ import annotations

import argparse
import sys

HELP = "print the JSON Schema of the manifest format (all kinds, or one)"

SCHEMA_FILES = {
    "all": "gpulint.schema.json",
    "workload": "workload.schema.json",
    "quotaledger": "quotaledger.schema.json",
    "config": "config.schema.json",
    "rule": "rule.schema.json",
}


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "kind",
        nargs="?",
        default="all",
        help="Workload, QuotaLedger, config or rule (default: all manifest kinds)",
    )


def run(args: argparse.Namespace) -> int:
    from linter.errors import UsageError
    from linter.resources import bundled

    name = SCHEMA_FILES.get(args.kind.lower())
    if name is None:
        raise UsageError(
            f"unknown schema {args.kind!r}; choose from Workload, QuotaLedger, config, rule"
        )
    sys.stdout.write((bundled("schemas") / name).read_text(encoding="utf-8"))
    return 0
