"""``gpulint rules``: list the rules that would run."""

from __future__ import annotations

import argparse
import json

from linter.commands.setup import add_config_arguments, load_setup

HELP = "list rules with their id, severity and summary"


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("text", "json"), default="text")
    add_config_arguments(parser)


def run(args: argparse.Namespace) -> int:
    setup = load_setup(args)
    settings = setup.selection.settings(setup.rulebook)
    rows = [
        {
            "id": rule.id,
            "name": rule.meta.name,
            "severity": settings[rule.id].severity.value if rule.id in settings else rule.meta.severity,
            "enabled": rule.id in settings,
            "summary": rule.meta.summary,
        }
        for rule in setup.rulebook
    ]
    if args.format == "json":
        print(json.dumps(rows, indent=2))
        return 0
    for row in rows:
        state = "" if row["enabled"] else " (disabled)"
        print(f"{row['id']}  {row['name']:<40} {row['severity']:<8} {row['summary']}{state}")
    return 0
