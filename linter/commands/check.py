"""``gpulint check``: lint files and directories."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from linter.commands.setup import add_config_arguments, load_setup

HELP = "lint manifests (files or directories, recursively)"
FAIL_LEVELS = ("error", "warning", "note", "never")


def _split(values: list[str]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (default: .)")
    parser.add_argument("--format", choices=("text", "json", "sarif", "github"), default="text")
    parser.add_argument("--output", "-o", metavar="FILE", help="write the report here instead of stdout")
    parser.add_argument("--select", action="append", default=[], metavar="IDS",
                        help="only these rule ids or prefixes (comma-separated, repeatable)")
    parser.add_argument("--ignore", action="append", default=[], metavar="IDS",
                        help="skip these rule ids or prefixes (comma-separated, repeatable)")
    parser.add_argument("--fail-on", choices=FAIL_LEVELS, default=None,
                        help="lowest severity that makes the exit code 1 (default: error)")
    add_config_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from linter.findings import Severity
    from linter.report import renderer
    from linter.runner import lint_paths

    setup = load_setup(args, _split(args.select), _split(args.ignore))
    result = lint_paths(args.paths or ["."], setup.rulebook, setup.config, setup.selection)
    for skipped in result.skipped:
        print(f"gpulint: skipped {skipped}: no gpulint.dev/v1alpha1 documents", file=sys.stderr)
    if args.format == "text":
        from linter.report.text import render

        color = args.output is None and sys.stdout.isatty()
        report = render(result, color=color)
    else:
        report = renderer(args.format)(result)
    if args.output:
        Path(args.output).write_text(report, encoding="utf-8")
    else:
        sys.stdout.write(report)
    fail_on = args.fail_on or setup.config.config.fail_on or "error"
    if fail_on == "never":
        return 0
    threshold = Severity(fail_on).rank
    failing = any(f.suppressed_reason is None and f.severity.rank >= threshold for f in result.findings)
    return 1 if failing else 0
