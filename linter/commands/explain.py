"""``gpulint explain GL202``: a rule's documentation."""

from __future__ import annotations

import argparse

from linter.commands.options import add_config_arguments

HELP = "show the documentation of a rule (by id or name)"


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "rule", metavar="RULE", help="rule id (GL202) or name (spot-without-checkpointing)"
    )
    add_config_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from linter.commands.setup import load_setup
    from linter.errors import UsageError
    from linter.policy.docs import markdown
    from linter.printable import printable

    rulebook = load_setup(args).rulebook
    rule = rulebook.by_id.get(args.rule.upper()) or rulebook.by_name.get(args.rule.lower())
    if rule is None:
        raise UsageError(f"no rule {args.rule!r}; `gpulint rules` lists them")
    print(printable(markdown(rule.meta), multiline=True), end="")  # organisation rules too
    return 0
