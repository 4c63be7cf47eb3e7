"""Turn command-line paths into the files to lint."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

EXTENSIONS = (".yaml", ".yml", ".json")
SKIPPED_DIRECTORIES = {"node_modules", "__pycache__", "venv"}


class DiscoveryError(Exception):
    """A path on the command line that does not exist."""


@dataclass(frozen=True)
class Candidate:
    path: Path
    display: str  # POSIX path as shown in reports: relative to the working directory when inside
    explicit: bool  # named on the command line (then a skip is reported, not silent)


def display_path(path: Path, root: Path) -> str:
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(root).as_posix()
    except ValueError:
        return absolute.as_posix()


def discover(
    paths: Sequence[str], exclude: Iterable[str] = (), root: Path | None = None
) -> list[Candidate]:
    """Files named directly, plus YAML/JSON files found recursively under named directories.

    Hidden directories (``.git``, ``.venv``), ``node_modules`` and virtual environments are not
    entered, symbolic links to directories are not followed (no loops), and ``exclude`` globs
    match against the displayed path.
    """
    root = root or Path.cwd()
    patterns = tuple(exclude)
    seen: set[Path] = set()
    found: list[Candidate] = []

    def add(path: Path, explicit: bool) -> None:
        display = display_path(path, root)
        key = Path(os.path.abspath(path))
        if key in seen or _excluded(display, patterns):
            return
        seen.add(key)
        found.append(Candidate(path, display, explicit))

    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for file in _walk(path):
                add(file, explicit=False)
        elif path.is_file():
            add(path, explicit=True)
        elif path.is_symlink() or path.exists():
            add(path, explicit=True)  # unreadable or special: the loader reports why
        else:
            raise DiscoveryError(f"{raw}: no such file or directory")
    return found


def _walk(top: Path) -> Iterable[Path]:
    for directory, subdirectories, files in os.walk(top, followlinks=False):
        subdirectories[:] = sorted(
            d for d in subdirectories if not d.startswith(".") and d not in SKIPPED_DIRECTORIES
        )
        for name in sorted(files):
            if name.lower().endswith(EXTENSIONS):
                yield Path(directory, name)


def _excluded(display: str, patterns: tuple[str, ...]) -> bool:
    return any(
        fnmatch.fnmatch(display, pattern) or fnmatch.fnmatch(display, pattern.rstrip("/") + "/*")
        for pattern in patterns
    )
