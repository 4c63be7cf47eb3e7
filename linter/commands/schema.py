"""``gpulint schema [KIND]``: print the published JSON Schema of a manifest kind."""

from __future__ import annotations

import argparse
import sys

HELP = "print a published JSON Schema: the manifest kinds, config, rule files or facts"

SCHEMA_FILES = {
    "all": "gpulint.schema.json",
    "workload": "workload.schema.json",
    "quotaledger": "quotaledger.schema.json",
    "capacitylimit": "capacitylimit.schema.json",
    "autoscaler": "autoscaler.schema.json",
    "config": "config.schema.json",
    "rule": "rule.schema.json",
    "facts": "facts.schema.json",
}


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "kind",
        nargs="?",
        default="all",
        help="Workload, QuotaLedger, CapacityLimit, Autoscaler, config, rule or facts "
        "(default: all manifest kinds)",
    )


def run(args: argparse.Namespace) -> int:
    from linter.bundled import bundled
    from linter.errors import UsageError

    name = SCHEMA_FILES.get(args.kind.lower())
    if name is None:
        raise UsageError(
            f"unknown schema {args.kind!r}; choose from Workload, QuotaLedger, CapacityLimit, "
            "Autoscaler, config, rule, facts"
        )
    sys.stdout.write((bundled("schemas") / name).read_text(encoding="utf-8"))
    return 0
