"""Turn command-line paths into the files to lint."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import field
from pathlib import Path

from linter.errors import UserError
from linter.load.repository import repository_root
from linter.records import datarecord

#: Files a named folder is searched for: YAML and JSON manifests, Terraform files (their module's
#: ``.tfvars`` are read with them, not on their own), and Slurm batch scripts (a ``.sh`` file is
#: read only when a line starts with ``#SBATCH``: ``linter.load.sbatch.has_directives``).
EXTENSIONS = (".yaml", ".yml", ".json", ".tf", ".sbatch", ".slurm", ".sh")
SKIPPED_DIRECTORIES = {"node_modules", "__pycache__", "venv"}
CHART_FILE, CHART_TEMPLATES = "Chart.yaml", "templates"
# Far deeper than any real repository; a tree built to be deeper is not searched below it.
MAX_DEPTH = 100


class DiscoveryError(UserError):
    """A path on the command line that does not exist."""


@datarecord(slots=True)  # a run holds one per file
class PathCandidate:
    #: The file's path as found: a string, since a run holds one per file and a Path object
    #: each (with its parts) weighed more than the rest of the candidate.
    location: str
    display: str  # POSIX path as shown in reports: relative to the working directory when inside
    explicit: bool  # named on the command line (then a skip is reported, not silent)
    # A symbolic link may not lead out of this folder: the repository holding the named path,
    # else the named directory (or a named file's folder).
    boundary: Path
    # Bytes already read (standard input): linted as they are, the path is never opened.
    content: bytes | None = None

    @property
    def path(self) -> Path:
        return Path(self.location)


@datarecord(frozen=False)
class Discovery:
    candidates: list[PathCandidate] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)  # display paths matched by ``exclude``
    too_deep: list[str] = field(default_factory=list)  # folders at MAX_DEPTH, not entered
    #: The ``templates`` folders of Helm charts, not entered: YAML only once rendered.
    chart_templates: list[str] = field(default_factory=list)


def chart_templates_reason(templates: str) -> str:
    """Why a chart's ``templates`` folder (its display path) was not linted, and what to run."""
    chart = templates.rpartition("/")[0] or "."
    return (
        f"a Helm chart's templates, YAML only once rendered: "
        f"helm template {chart} | gpulint check -"
    )


def display_path(path: str | Path, root: Path) -> str:
    """``path`` relative to ``root`` when it is inside it, else absolute; with ``/``. On strings:
    it runs once per file, and pure-path arithmetic was a tenth of a warm run."""
    return _displayed(os.path.abspath(path), os.fspath(root))


def _displayed(absolute: str, base: str) -> str:
    """:func:`display_path` of an absolute path, relative to the folder ``base``."""
    if absolute == base:
        return "."
    prefix = base.rstrip(os.sep) + os.sep
    inside = absolute[len(prefix) :] if absolute.startswith(prefix) else None
    return (inside if inside is not None else absolute).replace(os.sep, "/")


def find_candidates(
    paths: Sequence[str], exclude: Iterable[str] = (), root: Path | None = None
) -> Discovery:
    """Files named directly, plus the files with ``EXTENSIONS`` found under named directories.

    Hidden directories (``.git``, ``.venv``), ``node_modules``, ``venv`` and ``__pycache__`` are
    not entered, symbolic links to directories are not followed (no loops), folders more than
    MAX_DEPTH levels below a named directory are not searched, and ``exclude`` globs match
    against the displayed path.
    """
    root = root or Path.cwd()
    patterns = tuple(exclude)
    # Display paths of the files added: one per absolute path (relative to ``root`` or
    # absolute), and strings the candidates keep anyway, where absolute paths were as many
    # strings again (a Path each would outweigh the candidates).
    seen: set[str] = set()
    boundaries: dict[Path, Path] = {}  # a named file's folder -> its repository root
    out = Discovery()

    base = os.fspath(root)

    def add(path: str | Path, explicit: bool, boundary: Path) -> None:
        display = _displayed(os.path.abspath(path), base)
        if display in seen:
            return
        seen.add(display)
        if excluded(display, patterns):
            out.excluded.append(display)
            return
        location = os.fspath(path)
        if location == display:  # a relative path named below the working directory: one string
            location = display
        out.candidates.append(PathCandidate(location, display, explicit, boundary))

    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            boundary = repository_root(path)
            for file in _walk(path, out, root):
                add(file, False, boundary)
        elif path.is_file() or path.is_symlink() or path.exists():
            # unreadable or special files are added too: the loader reports why
            folder = path.parent
            if folder not in boundaries:
                boundaries[folder] = repository_root(folder)
            add(path, True, boundaries[folder])
        else:
            raise DiscoveryError(f"{raw}: no such file or directory")
    return out


def discover(
    paths: Sequence[str], exclude: Iterable[str] = (), root: Path | None = None
) -> list[PathCandidate]:
    """The candidates of :func:`find_candidates`, for callers that report nothing else."""
    return find_candidates(paths, exclude, root).candidates


def _walk(top: Path, out: Discovery, root: Path) -> Iterator[str]:
    """Candidate files below ``top`` in sorted depth-first order, with an explicit stack (a
    tree thousands of levels deep costs no recursion). A Helm chart's ``templates`` folder (beside
    its ``Chart.yaml``) is not entered but recorded: its files are linted once rendered."""
    stack: list[tuple[str | Path, int]] = [(top, 0)]
    while stack:
        directory, depth = stack.pop()
        try:
            with os.scandir(directory) as entries:
                listed = sorted(entries, key=lambda entry: entry.name)
        except OSError:
            continue  # unreadable: as os.walk, skipped
        subdirectories = []
        chart = any(entry.name == CHART_FILE and not _is_directory(entry) for entry in listed)
        for entry in listed:
            if _is_directory(entry):
                if chart and entry.name == CHART_TEMPLATES:
                    out.chart_templates.append(display_path(entry.path, root))
                elif not entry.is_symlink() and enterable(entry.name):
                    subdirectories.append(entry.path)
            elif entry.name.lower().endswith(EXTENSIONS):
                yield entry.path
        if subdirectories and depth >= MAX_DEPTH:
            out.too_deep.append(display_path(directory, root))
            continue
        stack.extend((sub, depth + 1) for sub in reversed(subdirectories))


def _is_directory(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def enterable(name: str) -> bool:
    """Whether discovery enters a folder of this name (not hidden, not a dependency folder)."""
    return not name.startswith(".") and name not in SKIPPED_DIRECTORIES


def excluded(display: str, patterns: tuple[str, ...]) -> bool:
    """Whether an ``exclude`` glob matches a displayed path (or a folder above it)."""
    return any(
        fnmatch.fnmatch(display, pattern) or fnmatch.fnmatch(display, pattern.rstrip("/") + "/*")
        for pattern in patterns
    )
