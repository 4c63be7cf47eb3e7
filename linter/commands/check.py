"""``gpulint check``: lint files and directories."""

from __future__ import annotations

import argparse
import codecs
import dataclasses
import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from linter.commands.options import add_config_arguments
from linter.report import FORMATS

if TYPE_CHECKING:
    from linter.commands.kept_report import KeptReport
    from linter.config import LoadedConfig
    from linter.load.discovery import PathCandidate
    from linter.memory.calibration import Calibration
    from linter.report.record import RenderOptions
    from linter.run.result_cache import ResultCache
    from linter.run.runner import RunResult

HELP = "lint manifests (files or directories, recursively)"
FAIL_LEVELS = ("error", "warning", "note", "never")


def _split(values: list[str]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="files or directories (default: .); - reads standard input, e.g. helm template "
        "output, whose '# Source:' comments name the template each document came from",
    )
    parser.add_argument(
        "--stdin-filename",
        metavar="NAME",
        help="the name reports give standard input (default: <stdin>; .json reads it as JSON)",
    )
    parser.add_argument("--format", choices=FORMATS, default="text")
    parser.add_argument(
        "--output", "-o", metavar="FILE", help="write the report here instead of stdout"
    )
    parser.add_argument(
        "--statistics",
        action="store_true",
        help="text: a count per rule instead of the findings",
    )
    parser.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        help="text: the findings alone (no related places, summary or notes on stderr)",
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
        help="do not read or write the result cache (in the user's cache directory)",
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
    parser.add_argument(
        "--cost-base",
        metavar="REF",
        help="git revision the budgets' increase limits compare with: the same paths there, "
        "read with git (see docs/cost.md)",
    )
    parser.add_argument(
        "--whole-repository",
        action="store_true",
        help="lint the whole repository (run-wide rules: quota ledgers, pools, budgets see every "
        "file) but report only findings in the PATHs named; the pre-commit hook's mode",
    )
    parser.add_argument(
        "--calibration",
        metavar="FILE",
        help="a calibration file (gpulint memory --from-log writes its entries) that corrects "
        "the memory estimates for the GPUs and engine versions it measured",
    )
    add_config_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from linter.commands.setup import load_setup
    from linter.config import DEFAULT_FAIL_ON, ConfigFinder
    from linter.errors import UsageError
    from linter.findings import Severity
    from linter.load.discovery import MAX_DEPTH
    from linter.load.repository import repository_root
    from linter.run.result_cache import ResultCache
    from linter.run.runner import prepare
    from linter.run.workers import available_cpus

    setup = load_setup(args, _split(args.select), _split(args.ignore))
    jobs = args.jobs if args.jobs is not None else available_cpus()
    if jobs < 1:
        raise UsageError("--jobs must be at least 1")
    paths = args.paths or ["."]
    files = [path for path in paths if path != "-"]
    if args.whole_repository:
        files = _whole_repository(args)
    cache = None if args.no_cache else ResultCache.for_repository(repository_root(Path.cwd()))
    cost_base = None
    if args.cost_base is not None:
        from linter.costs.at_revision import load_baseline

        cost_base = load_baseline(args.cost_base, files, setup.config, Path.cwd()).cost_base()
    options = _options(args)
    prepared = prepare(
        files,
        setup.rulebook,
        setup.config,
        setup.selection,
        jobs=jobs,
        cache=cache,
        extra=_stdin(args, setup.config) if "-" in paths else (),
        want_lines=args.format in ("sarif", "gitlab") or bool(args.baseline or args.write_baseline),
        finder=None if args.config else ConfigFinder(),
        calibration=_calibration(args.calibration),
    )
    reported = None
    if args.whole_repository and args.paths:
        from linter.commands import whole_repository

        reported = whole_repository.reported(prepared.candidates)
    # The report printed for the same rules, configuration, files and output is printed again,
    # without linting (never with a baseline, a cost base, standard input or colour).
    keep = not (args.baseline or args.write_baseline or cost_base or "-" in paths or options.color)
    output = _output_key(args, options, setup.config, reported)
    kept = _kept_report(cache, prepared.run_key, prepared.files_key, output) if keep else None
    if kept is not None:
        result = prepared.answered(kept.files_checked, kept.skipped)
    else:
        from linter.commands.progress import ProgressLine
        from linter.wording import plural

        linting = f"linting {plural(len(prepared.candidates), 'file')}"
        with ProgressLine(sys.stderr, linting, enabled=not args.quiet):
            result = prepared.run(cost_base)
        if reported is not None:
            result = whole_repository.only(result, reported)
    configured_fail_on = setup.config.config.fail_on
    if args.fail_on is None and configured_fail_on not in (None, DEFAULT_FAIL_ON):
        result = dataclasses.replace(result, fail_on=configured_fail_on)
    for skipped in () if args.quiet else result.skipped:
        _note(f"skipped {skipped.file}: {skipped.reason}")
    for folder in () if args.quiet else result.too_deep:
        _note(f"skipped the folders in {folder}: more than {MAX_DEPTH} levels deep")
    note = result.configuration_note()
    if note and args.format != "text":  # the text report says it in its summary
        _note(note)
    if args.write_baseline:
        return _write_baseline(result, Path(args.write_baseline))
    if args.baseline:
        result = _apply_baseline(result, Path(args.baseline))
    if kept is None:
        kept = _render(result, args.format, options)
        if keep and cache is not None:  # kept as its pieces of bytes, printed from them
            from linter.commands.kept_report import ReportSlot

            kept = dataclasses.replace(kept, data=tuple(kept.pieces()))
            ReportSlot(cache, result.run_key, result.files_key, output).put(kept)
    for warning in kept.warnings:
        _note(f"warning: {warning}")
    if args.output:
        from linter.commands.output_files import write_report

        write_report(Path(args.output), kept.pieces(), "cannot write the report")
    else:
        _print(kept.pieces())
    fail_on = args.fail_on or setup.config.config.fail_on or DEFAULT_FAIL_ON
    if fail_on == "never":
        return 0
    return 1 if kept.worst is not None and kept.worst >= Severity(fail_on).rank else 0


def _calibration(path: str | None) -> Calibration | None:
    """``--calibration FILE``, read as ``gpulint memory`` reads it; without it, the memory
    command's module is not imported (issue 31)."""
    if not path:
        return None
    from linter.commands.memory_view import calibration_option

    calibration: Calibration = calibration_option(path)
    return calibration


def _stdin(args: argparse.Namespace, config: LoadedConfig) -> list[PathCandidate]:
    """Standard input as candidates (``-``): read once, bounded like any file."""
    from linter.errors import UsageError
    from linter.load import DEFAULT_MAX_BYTES
    from linter.load.stdin import stdin_candidates

    limit = config.config.max_file_size or DEFAULT_MAX_BYTES
    raw = sys.stdin.buffer.read(limit + 1)
    if len(raw) > limit:
        raise UsageError(
            f"standard input is over the {limit:,}-byte limit (raise maxFileSize in .gpulint.yaml)"
        )
    return stdin_candidates(raw, args.stdin_filename, Path.cwd())


def _note(message: str) -> None:
    """One line on stderr, with anything from the repository made printable."""
    from linter.printable import printable

    print(f"gpulint: {printable(message)}", file=sys.stderr)


def _kept_report(
    cache: ResultCache | None, run_key: str, files_key: str, output: str
) -> KeptReport | None:
    """The report an earlier run printed for the same inputs and output, if it is kept."""
    if cache is None:
        return None
    from linter.commands.kept_report import ReportSlot

    return ReportSlot(cache, run_key, files_key, output).get()


def _render(result: RunResult, format_name: str, options: RenderOptions) -> KeptReport:
    """The report as this run prints it, made while it is printed, with what the exit status
    needs."""
    from linter.commands.kept_report import KeptReport
    from linter.report import renderer

    rendered = renderer(format_name)(result.report(), options)
    ranks = [f.level.rank for f in result.findings if f.suppressed_reason is None]
    return KeptReport(
        (piece.encode("utf-8") for piece in rendered.pieces),
        tuple(rendered.warnings),
        max(ranks, default=None),
        result.files_checked,
        tuple(result.skipped),
        tuple(result.reads),
    )


def _print(pieces: Iterable[bytes]) -> None:
    """The report on standard output: its UTF-8 bytes as they are when standard output is a
    UTF-8 byte stream (a kept report is not decoded), else as text in the stream's encoding."""
    buffer = getattr(sys.stdout, "buffer", None)
    encoding = (getattr(sys.stdout, "encoding", None) or "").replace("-", "").lower()
    if buffer is None or encoding != "utf8":  # a text stream (tests, embedding), another encoding
        decoder = codecs.getincrementaldecoder("utf-8")()
        for piece in pieces:
            sys.stdout.write(decoder.decode(piece))
        sys.stdout.write(decoder.decode(b"", final=True))
        return
    sys.stdout.flush()
    for piece in pieces:
        buffer.write(piece)
    buffer.flush()


def _output_key(
    args: argparse.Namespace,
    options: RenderOptions,
    config: LoadedConfig,
    reported: frozenset[str] | None,
) -> str:
    """Everything besides the findings that the printed report depends on (``--fail-on`` only
    where it overrides the configuration's ``failOn``, which the report then does not name;
    with ``--whole-repository``, the files reported on)."""
    overrides = args.fail_on if config.config.fail_on is not None else None
    files = sorted(reported) if reported is not None else None
    places = [str(options.base), str(options.root), options.category]
    return json.dumps([args.format, *places, overrides, files, options.statistics, options.quiet])


def _whole_repository(args: argparse.Namespace) -> list[str]:
    """The paths a ``--whole-repository`` run lints (linter/commands/whole_repository.py)."""
    from linter.commands import whole_repository
    from linter.errors import UsageError

    if "-" in args.paths:
        raise UsageError("--whole-repository lints the repository's files, not standard input")
    if args.write_baseline:
        raise UsageError(
            "--write-baseline records every finding: run it without --whole-repository"
        )
    return whole_repository.paths(args.paths)


def _options(args: argparse.Namespace) -> RenderOptions:
    """Colour when printing to a terminal; SARIF URIs relative to --sarif-root, else the git
    root above the working directory."""
    from linter.commands.colour import wants_colour
    from linter.errors import UsageError
    from linter.load.repository import repository_root
    from linter.report.record import RenderOptions

    cwd = Path.cwd()
    root = repository_root(cwd)
    if args.sarif_root is not None:
        root = Path(args.sarif_root)
        if not root.is_dir():
            raise UsageError(f"--sarif-root {args.sarif_root}: not a directory")
        root = root.absolute()
    color = args.format == "text" and wants_colour(
        os.environ, terminal=sys.stdout.isatty(), to_file=args.output is not None
    )
    return RenderOptions(
        color=color,
        statistics=args.statistics,
        quiet=args.quiet,
        base=cwd,
        root=root,
        category=args.sarif_category,
    )


def _write_baseline(result: RunResult, target: Path) -> int:
    from linter.commands.output_files import write_report
    from linter.report.summary import reported
    from linter.run import baseline

    anchor = target.absolute().parent
    entries = [
        baseline.entry(f, result.lines, Path.cwd(), anchor) for f in reported(result.findings)
    ]
    write_report(target, baseline.serialise(entries), "cannot write baseline")
    _note(f"wrote {len(entries)} baseline entries to {target}")
    return 0


def _apply_baseline(result: RunResult, source: Path) -> RunResult:
    import dataclasses

    from linter.errors import UsageError
    from linter.load import Refusal, read_bounded
    from linter.printable import printable
    from linter.run import baseline

    content = read_bounded(source, baseline.MAX_BYTES)
    if isinstance(content, Refusal):
        raise UsageError(f"{source}: cannot read baseline: {content.reason}")
    try:
        entries = baseline.parse(content.decode("utf-8"))
    except UnicodeDecodeError:
        raise UsageError(f"{source}: not a gpulint baseline (not UTF-8 text)") from None
    except baseline.BaselineError as err:
        raise UsageError(f"{source}: {err}") from None
    comparison = baseline.compare(
        result.findings, entries, result.lines, Path.cwd(), source.absolute().parent
    )
    if comparison.stale:
        _note(
            f"{len(comparison.stale)} baseline entries in {source} are stale "
            "(no longer found; rewrite it with --write-baseline):"
        )
        for item in comparison.stale:
            print(
                printable(f"  {item.file}: {item.rule_id} {item.path}: {item.message}"),
                file=sys.stderr,
            )
    # kept, marked: counted in the summary and suppressed results in SARIF, never silently gone
    known = {id(f) for f in comparison.known}
    reason = f"in the baseline {source}"
    findings = [
        dataclasses.replace(f, suppressed_reason=reason, baseline=True) if id(f) in known else f
        for f in result.findings
    ]
    return dataclasses.replace(result, findings=findings)
