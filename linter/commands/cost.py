"""``gpulint cost``: what each workload costs a month, and with ``--diff REF`` what a change
adds or saves against a git revision."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from linter.commands.options import add_config_file_argument

HELP = "what each workload costs a month, or (--diff REF) what a change adds against a revision"
FORMATS = ("text", "markdown", "json")


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="files or directories (default: .)"
    )
    parser.add_argument(
        "--diff",
        metavar="REF",
        help="compare with the same paths at this git revision (read with git, no checkout)",
    )
    parser.add_argument("--format", choices=FORMATS, default="text")
    parser.add_argument(
        "--output", "-o", metavar="FILE", help="write the report here instead of stdout"
    )
    add_config_file_argument(parser)


def run(args: argparse.Namespace) -> int:
    from linter.catalog.prices import price_book
    from linter.commands.output_files import write_report
    from linter.commands.setup import load_configuration
    from linter.costs.at_revision import costed, load_baseline, max_bytes
    from linter.costs.diff import diff
    from linter.costs.estimate import estimate
    from linter.costs.render import RENDERERS
    from linter.costs.tables import cost_view, diff_view
    from linter.load.discovery import DiscoveryError, find_candidates
    from linter.load.sources import read_sources
    from linter.pricing.budgets import budget_figures, pair_with_base

    config = load_configuration(args)
    paths = args.paths or ["."]
    cwd = Path.cwd()
    budgets = tuple(config.config.budgets)
    as_of = price_book().as_of
    baseline = None
    if args.diff is not None:
        baseline = load_baseline(args.diff, paths, config, cwd)
        gone = [p for p in paths if not Path(p).exists() and not Path(p).is_symlink()]
        for path in gone:  # deleted by the change: its workloads are removed
            if path not in baseline.revision_files.present:
                raise DiscoveryError(f"{path}: no such file or directory, now or at {args.diff}")
        paths = [p for p in paths if p not in gone]
    base = None if baseline is None else baseline.cost_base()
    discovery = find_candidates(paths, config.config.exclude, cwd) if paths else None
    sources = read_sources(discovery.candidates if discovery else [], max_bytes(config))
    head = estimate(sources, config)
    pairs = pair_with_base([costed(w) for w in head.workloads], base)
    figures = budget_figures(budgets, pairs, base)
    if baseline is None or base is None:
        view = cost_view(head, as_of, figures)
    else:
        changes = diff(baseline.estimate, head, base.label, baseline.problems)
        view = diff_view(changes, as_of, figures, head)
    report = RENDERERS[args.format](view)
    if args.output:
        write_report(Path(args.output), report, "cannot write the report")
    else:
        sys.stdout.write(report)
    return 0
