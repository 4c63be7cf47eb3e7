"""``gpulint test``: run the fixtures of organisation rule folders."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from linter.commands.options import add_config_arguments

if TYPE_CHECKING:
    from linter.run.fixtures import Case

HELP = "run the good/bad fixtures of rule folders (DIR/tests/<ID>/{good,bad})"


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "directories",
        nargs="*",
        metavar="DIR",
        help="rule folders to test (default: the config's rulesDirs)",
    )
    parser.add_argument("--format", choices=("text", "junit"), default="text")
    parser.add_argument("--output", "-o", metavar="FILE", help="write the report here")
    add_config_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from linter.bundled import bundled
    from linter.commands.output_files import write_report
    from linter.commands.setup import load_setup
    from linter.errors import UsageError
    from linter.policy.loader import Rulebook, load_rulebook
    from linter.run.fixtures import load_rules, run_rule

    setup = load_setup(argparse.Namespace(config=args.config, rules_dir=[]))
    folders = [Path(d) for d in args.directories] or [
        setup.config.base / d for d in setup.config.config.rules_dirs
    ]
    if not folders:
        raise UsageError("no rule folders to test: name them, or set rulesDirs in .gpulint.yaml")
    for folder in folders:
        if not folder.is_dir():
            raise UsageError(f"{folder}: rules directory not found")
    builtin = list(load_rulebook([bundled("rules")]))
    suites: dict[str, list[Case]] = {}
    for folder in folders:
        rules, cases = load_rules([folder])
        rulebook = Rulebook([*builtin, *rules])
        for rule in rules:
            cases.extend(run_rule(rule, rulebook, folder / "tests"))
        if not cases:
            # as pytest exits non-zero when it collects nothing: a folder with nothing to test
            # is a mistake (a wrong path, a renamed folder), never a silent pass
            raise UsageError(f"{folder}: no rule files to test (*.yaml or *.yml directly in it)")
        suites[folder.as_posix()] = cases
    report = _junit(suites) if args.format == "junit" else _text(suites)
    if args.output:
        write_report(Path(args.output), report, "cannot write the report")
    else:
        sys.stdout.write(report)
    return 1 if any(not case.passed for cases in suites.values() for case in cases) else 0


def _text(suites: dict[str, list[Case]]) -> str:
    """One line per failure (names and messages from the repository made printable), then the
    counts."""
    from linter.printable import printable

    lines = []
    for cases in suites.values():
        for case in cases:
            for failure in case.failures:
                line = f"{failure.file}:{failure.line}: {case.rule_id} {failure.message}"
                lines.append(printable(line, line_start=True))
    total = sum(len(cases) for cases in suites.values())
    failed = sum(1 for cases in suites.values() for case in cases if not case.passed)
    lines.append(f"{total - failed} passed, {failed} failed")
    return "\n".join(lines) + "\n"


def _junit(suites: dict[str, list[Case]]) -> str:
    from linter.report import junit

    return junit.render(suites)
