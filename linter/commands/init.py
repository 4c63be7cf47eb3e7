"""``gpulint init``: a commented starter manifest for a profile, and a commented ``.gpulint.yaml``.

The starters are package data (``linter/templates/``) and pass ``gpulint check`` without errors,
so the first run shows what a finding looks like (a requested quota, an acceptable-use review to
record) without failing.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

HELP = "write a starter manifest and .gpulint.yaml"
PROFILES = ("inference", "fine-tuning", "training", "dev")
MANIFEST = "workload.yaml"
CONFIG = ".gpulint.yaml"


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--profile",
        choices=PROFILES,
        default="inference",
        help="the kind of workload (default: inference)",
    )
    parser.add_argument(
        "--dir",
        default=".",
        metavar="DIR",
        help="where to write the files (default: the working directory)",
    )
    parser.add_argument("--force", action="store_true", help="overwrite files that exist")


def template(name: str) -> str:
    # importlib.resources pulls in tempfile, shutil and zipfile (~14 ms): every command imports
    # this module to register its arguments, only ``init`` reads a template.
    from importlib import resources

    return (resources.files("linter") / "templates" / name).read_text(encoding="utf-8")


def run(args: argparse.Namespace) -> int:
    from linter.commands.output_files import LinkRefused, link_refusal, output_folder, write_report
    from linter.errors import UsageError

    directory = Path(args.dir)
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"--dir {args.dir}: not a directory")
    files = {
        directory / MANIFEST: template(f"{args.profile}.yaml"),
        directory / CONFIG: template("config.yaml"),
    }
    existing = [str(path) for path in files if os.path.lexists(path)]  # a dangling link too
    if existing and not args.force:
        verb = "exists" if len(existing) == 1 else "exist"
        raise UsageError(f"{' and '.join(existing)} already {verb}; use --force to overwrite")
    try:
        with output_folder(directory, create=True):  # made without following a link
            for path in files:
                if path.is_symlink():  # refused before anything is written
                    raise link_refusal(path)
    except LinkRefused as err:
        raise UsageError(f"--dir {args.dir}: {err.strerror}") from None
    except OSError as err:
        raise UsageError(f"cannot write to {args.dir}: {err.strerror or err}") from None
    for path, text in files.items():
        write_report(path, text, "cannot write")
    manifest = directory / MANIFEST
    print(f"Wrote {manifest} ({args.profile} profile) and {directory / CONFIG}.")
    print(f"Edit them, then run: gpulint check {manifest}")
    return 0
