"""``gpulint check``: lint files and directories."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from linter.commands.options import add_config_arguments
from linter.report import FORMATS

if TYPE_CHECKING:
    from linter.report.record import RenderOptions
    from linter.runner import RunResult

HELP = "lint manifests (files or directories, recursively)"
FAIL_LEVELS = ("error", "warning", "note", "never")


def _split(values: list[str]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="files or directories (default: .)"
    )
    parser.add_argument("--format", choices=FORMATS, default="text")
    parser.add_argument(
        "--output", "-o", metavar="FILE", help="write the report here instead of stdout"
    )
    parser.add_argument(
        "--select",
        action="append",
        default=[],
        metavar="IDS",
        help="only these rule ids or prefixes (comma-separated, repeatable)",
    )
    parser.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="IDS",
        help="skip these rule ids or prefixes (comma-separated, repeatable)",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="do not read or write the result cache (.gpulint_cache)",
    )
    parser.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=None,
        metavar="N",
        help="worker processes for large runs (default: every available CPU)",
    )
    parser.add_argument(
        "--fail-on",
        choices=FAIL_LEVELS,
        default=None,
        help="lowest severity that makes the exit code 1 (default: error)",
    )
    baseline = parser.add_mutually_exclusive_group()
    baseline.add_argument(
        "--baseline", metavar="FILE", help="report only findings that are not in this baseline file"
    )
    baseline.add_argument(
        "--write-baseline", metavar="FILE", help="record the current findings in FILE and exit 0"
    )
    parser.add_argument(
        "--sarif-root",
        metavar="DIR",
        help="SARIF URIs are relative to DIR (default: the git repository root "
        "above the working directory, else the working directory)",
    )
    parser.add_argument(
        "--sarif-category",
        metavar="NAME",
        default="gpulint",
        help="SARIF automationDetails category, one per analysis (default: gpulint)",
    )
    add_config_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from linter.cache import default_directory
    from linter.commands.setup import load_setup
    from linter.errors import UsageError
    from linter.findings import Severity
    from linter.parallel import available_cpus
    from linter.runner import lint_paths

    setup = load_setup(args, _split(args.select), _split(args.ignore))
    jobs = args.jobs if args.jobs is not None else available_cpus()
    if jobs < 1:
        raise UsageError("--jobs must be at least 1")
    cache_dir = None if args.no_cache else default_directory(setup.config.base)
    result = lint_paths(
        args.paths or ["."],
        setup.rulebook,
        setup.config,
        setup.selection,
        jobs=jobs,
        cache_dir=cache_dir,
    )
    for skipped in result.skipped:
        print(f"gpulint: skipped {skipped}: no gpulint.dev/v1alpha1 documents", file=sys.stderr)
    if args.write_baseline:
        return _write_baseline(result, Path(args.write_baseline))
    if args.baseline:
        result = _apply_baseline(result, Path(args.baseline))
    report = _render(result, args)
    if args.output:
        Path(args.output).write_text(report, encoding="utf-8")
    else:
        sys.stdout.write(report)
    fail_on = args.fail_on or setup.config.config.fail_on or "error"
    if fail_on == "never":
        return 0
    threshold = Severity(fail_on).rank
    failing = any(
        f.suppressed_reason is None and f.level.rank >= threshold for f in result.findings
    )
    return 1 if failing else 0


def _render(result: RunResult, args: argparse.Namespace) -> str:
    from linter.report import renderer

    rendered = renderer(args.format)(result.report(), _options(args))
    for warning in rendered.warnings:
        print(f"gpulint: warning: {warning}", file=sys.stderr)
    return rendered.text


def _options(args: argparse.Namespace) -> RenderOptions:
    """Colour when printing to a terminal; SARIF URIs relative to --sarif-root, else the git
    root above the working directory."""
    from linter.errors import UsageError
    from linter.report.record import RenderOptions
    from linter.report.uris import source_root

    cwd = Path.cwd()
    root = source_root(cwd)
    if args.sarif_root is not None:
        root = Path(args.sarif_root)
        if not root.is_dir():
            raise UsageError(f"--sarif-root {args.sarif_root}: not a directory")
        root = root.absolute()
    color = args.format == "text" and args.output is None and sys.stdout.isatty()
    return RenderOptions(color=color, base=cwd, root=root, category=args.sarif_category)


def _write_baseline(result: RunResult, target: Path) -> int:
    from linter import baseline
    from linter.errors import UsageError
    from linter.report.summary import reported

    anchor = target.absolute().parent
    entries = [
        baseline.entry(f, result.texts, Path.cwd(), anchor) for f in reported(result.findings)
    ]
    try:
        target.write_text(baseline.serialise(entries), encoding="utf-8")
    except OSError as err:
        raise UsageError(f"{target}: cannot write baseline: {err.strerror or err}") from None
    print(f"gpulint: wrote {len(entries)} baseline entries to {target}", file=sys.stderr)
    return 0


def _apply_baseline(result: RunResult, source: Path) -> RunResult:
    import dataclasses

    from linter import baseline
    from linter.errors import UsageError

    try:
        entries = baseline.parse(source.read_text(encoding="utf-8"))
    except OSError as err:
        raise UsageError(f"{source}: cannot read baseline: {err.strerror or err}") from None
    except baseline.BaselineError as err:
        raise UsageError(f"{source}: {err}") from None
    comparison = baseline.compare(
        result.findings, entries, result.texts, Path.cwd(), source.absolute().parent
    )
    if comparison.stale:
        print(
            f"gpulint: {len(comparison.stale)} baseline entries in {source} are stale "
            "(no longer found; rewrite it with --write-baseline):",
            file=sys.stderr,
        )
        for item in comparison.stale:
            print(f"  {item.file}: {item.rule_id} {item.path}: {item.message}", file=sys.stderr)
    known = {id(f) for f in comparison.known}
    return dataclasses.replace(result, findings=[f for f in result.findings if id(f) not in known])
