"""``gpulint rules``: list the rules that would run."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from linter.commands.options import add_config_arguments

if TYPE_CHECKING:
    from linter.policy.selection import RuleSettings

HELP = "list rules with their id, severity and summary"


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=("text", "json"), default="text")
    add_config_arguments(parser)


def _severity(rule_id: str, settings: dict[str, RuleSettings]) -> str | None:
    configured = settings.get(rule_id)
    return configured.severity.value if configured and configured.severity else None


def run(args: argparse.Namespace) -> int:
    from linter.commands.setup import load_setup
    from linter.printable import printable

    setup = load_setup(args)
    settings = setup.selection.settings(setup.rulebook)
    rows = [
        {
            "id": rule.id,
            "name": rule.meta.name,
            "severity": _severity(rule.id, settings) or rule.meta.severity,
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
        line = f"{row['id']}  {row['name']:<40} {row['severity']:<8} {row['summary']}{state}"
        print(printable(line))
    return 0
