"""``gpulint facts FILE``: the facts rules see, per workload, as JSON."""

from __future__ import annotations

import argparse
import json

from linter.commands.options import add_config_arguments

HELP = "print, per workload, its input format, the normalised workload and its facts as JSON"


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH")
    add_config_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from linter.commands.setup import load_setup
    from linter.facts import RunInputs, compute_facts, run_index
    from linter.load.discovery import discover
    from linter.run.runner import collect

    setup = load_setup(args)
    config = setup.config.config
    manifests = collect(discover(args.paths, config.exclude), setup.config).manifests
    run = run_index(manifests, RunInputs(tuple(config.budgets), cluster=config.cluster))
    residency = config.residency
    out = [
        {
            "file": m.file,
            "document": m.index,
            "part": m.part,
            "name": m.name,
            "format": m.format,
            "sourceKind": m.source_kind,
            "workload": m.data,
            "facts": compute_facts(m, run, residency),
        }
        for m in manifests
        if m.kind == "Workload"
    ]
    print(json.dumps(out, indent=2))
    return 0
