"""The files of the repository at a git revision, read with git: no checkout, nothing written.

The revision and the paths come from the command line, but in CI the revision is often filled in
from the event (a branch name a pull request chose) and the tree it names is the repository's, so
both are treated as untrusted (docs/threat-model.md): a revision is checked and resolved to a commit
hash before anything else and can never become a git option (``--end-of-options``; only the hash is
passed on), paths follow ``--`` as literal pathspecs, a blob is read only when the tree says its
size is within the limit, and the listing is read as a stream. The working tree's discovery rules
apply (``linter.load.discovery``): hidden and dependency folders are not entered, only the files
discovery looks for below a named folder, the ``exclude`` globs, at most MAX_DEPTH folders deep. A
Terraform file is read with its module's other files at the same revision, as in the working tree
(``linter.load.sources``). A symbolic link
or a submodule is not followed: what it holds cannot be read at the revision, and the result says
so.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import field
from pathlib import Path, PurePosixPath
from typing import IO

from linter.errors import UsageError
from linter.load import Refusal, syntax_of
from linter.load.discovery import (
    EXTENSIONS,
    MAX_DEPTH,
    PathCandidate,
    display_path,
    enterable,
    excluded,
)
from linter.load.sources import MAX_COMPANIONS, Companions, Source, companion_names, source_of
from linter.printable import printable
from linter.records import datarecord

MAX_REF_LENGTH = 256
#: The most of git's own error output a message quotes.
MAX_ERROR_CHARS = 300
_CHUNK = 64 * 1024
_LINK_MODE = "120000"
_SUBMODULE_TYPE = "commit"


@datarecord
class Revision:
    ref: str  # as given
    commit: str  # the full hash it resolved to
    root: Path  # the repository's top folder

    @property
    def short(self) -> str:
        return self.commit[:12]


@datarecord(frozen=False)
class RevisionFiles:
    """What a revision holds under the paths asked for."""

    sources: list[Source] = field(default_factory=list)
    #: Folders whose files git cannot give at the revision (submodules), with the reason.
    folders_not_read: dict[str, str] = field(default_factory=dict)
    #: The paths asked for that the revision has (a file, or a folder with files).
    present: set[str] = field(default_factory=set)


@datarecord
class _Entry:
    mode: str
    type: str
    oid: str
    size: int | None  # None for a submodule
    path: str  # relative to the repository's top folder, POSIX


def _environment() -> dict[str, str]:
    return {
        **os.environ,
        "GIT_LITERAL_PATHSPECS": "1",  # a path is a path, never ":(glob)..." magic
        "GIT_NO_REPLACE_OBJECTS": "1",  # the commit's own content, not a local replacement
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_TERMINAL_PROMPT": "0",
        "LC_ALL": "C",
    }


def _git(args: Sequence[str], cwd: Path) -> str:
    """Run a git command that prints a line or two; a failure is a usage error quoting git."""
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            env=_environment(),
            capture_output=True,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except OSError as err:
        raise UsageError(f"cannot run git: {err.strerror or err}") from None
    if done.returncode != 0:
        raise UsageError(_git_error(args[0], done.stderr))
    return done.stdout.decode("utf-8", "replace").strip()


def _git_error(command: str, stderr: bytes) -> str:
    said = printable(stderr.decode("utf-8", "replace").strip()[:MAX_ERROR_CHARS])
    return f"git {command} failed" + (f": {said}" if said else "")


def resolve(ref: str, cwd: Path) -> Revision:
    """The commit ``ref`` names in the repository holding ``cwd``."""
    shown = printable(ref[:MAX_REF_LENGTH])
    if (
        not ref
        or ref.startswith("-")
        or len(ref) > MAX_REF_LENGTH
        or any(character.isspace() or not character.isprintable() for character in ref)
    ):
        raise UsageError(f"'{shown}' is not a git revision")
    root = Path(_git(["rev-parse", "--show-toplevel"], cwd))
    try:
        commit = _git(
            ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"], root
        )
    except UsageError:
        raise UsageError(
            f"'{shown}' is not a commit of the repository at {root} (in CI, fetch it first: "
            "actions/checkout with fetch-depth: 0)"
        ) from None
    return Revision(ref, commit, root)


def _relative(path: str, root: Path) -> str:
    """``path`` (from the command line) relative to the repository's top folder, POSIX."""
    real = Path(os.path.realpath(path))
    top = Path(os.path.realpath(root))
    if not real.is_relative_to(top):
        raise UsageError(f"{printable(path)}: outside the repository at {root}")
    relative = real.relative_to(top).as_posix()
    return "" if relative == "." else relative


def _split(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """NUL-terminated records from a stream of chunks."""
    pending = b""
    for chunk in chunks:
        pending += chunk
        *records, pending = pending.split(b"\0")
        yield from records
    if pending:
        yield pending


def _read_chunks(stream: IO[bytes]) -> Iterator[bytes]:
    while chunk := stream.read(_CHUNK):
        yield chunk


def _tree(revision: Revision, relative: str) -> Iterator[_Entry]:
    """Every file below ``relative`` (or it, a file) in the revision's tree, as a stream."""
    args = ["git", "ls-tree", "-r", "-z", "--long", revision.commit, "--"]
    if relative:
        args.append(relative)
    with subprocess.Popen(
        args,
        cwd=revision.root,
        env=_environment(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        for record in _split(_read_chunks(process.stdout)):
            meta, _, name = record.partition(b"\t")
            mode, kind, oid, size = meta.decode("ascii").split()
            yield _Entry(mode, kind, oid, None if size == "-" else int(size), os.fsdecode(name))
        error = process.stderr.read(MAX_ERROR_CHARS * 4)
    if process.returncode != 0:
        raise UsageError(_git_error("ls-tree", error))


class _Blobs:
    """``git cat-file --batch``: one process answering object ids with their content."""

    def __init__(self, revision: Revision) -> None:
        self._process = subprocess.Popen(
            ["git", "cat-file", "--batch"],
            cwd=revision.root,
            env=_environment(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )

    def read(self, oid: str, size: int) -> bytes:
        """The blob ``oid``, known from the tree to have ``size`` bytes."""
        process = self._process
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(oid.encode("ascii") + b"\n")
        process.stdin.flush()
        header = process.stdout.readline(200).split()
        if len(header) != 3 or header[1] != b"blob" or int(header[2]) != size:
            raise UsageError(f"git cat-file gave an unexpected answer for object {oid}")
        return process.stdout.read(size + 1)[:size]  # the content, then a line feed

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        if self._process.stdout is not None:
            self._process.stdout.close()
        self._process.wait()


def _in_reach(below: PurePosixPath, folder: bool) -> bool:
    """Whether directory discovery would reach ``below`` (a file, or with ``folder`` a folder)
    under a named folder."""
    folders = below.parts if folder else below.parts[:-1]
    return (
        len(folders) <= MAX_DEPTH
        and all(enterable(name) for name in folders)
        and (folder or below.name.lower().endswith(EXTENSIONS))
    )


def revision_sources(
    revision: Revision,
    paths: Sequence[str],
    exclude: Sequence[str],
    max_bytes: int,
    cwd: Path,
) -> RevisionFiles:
    """The files ``paths`` (files or folders, as on the command line) name at ``revision``,
    read as ``linter.load.sources.read_sources`` reads the working tree, with the same display
    paths, so that a file compares with itself."""
    out = RevisionFiles()
    seen: set[str] = set()
    blobs = _Blobs(revision)
    read: list[tuple[PathCandidate, _Entry]] = []
    folders: dict[str, dict[str, _Entry]] = {}  # folder -> name -> entry, listed whole
    try:
        for path in paths:
            relative = _relative(path, revision.root)
            for entry in _tree(revision, relative):
                folder, _, name = entry.path.rpartition("/")
                if entry.path != relative:  # below a folder named: its folders are all listed
                    folders.setdefault(folder, {})[name] = entry
                out.present.add(path)
                named = entry.path == relative
                below = PurePosixPath(entry.path)
                if relative:
                    below = below.relative_to(relative)
                submodule = entry.type == _SUBMODULE_TYPE
                if not named and not _in_reach(below, folder=submodule):
                    continue
                shown = Path(path) if named else Path(path) / below
                display = display_path(shown, cwd)
                if display in seen or excluded(display, tuple(exclude)):
                    continue
                seen.add(display)
                if submodule:
                    out.folders_not_read[display] = "a submodule, not read at the revision"
                    continue
                read.append((PathCandidate(str(shown), display, named, revision.root), entry))
        for candidate, entry in read:
            content = _content(entry, blobs, max_bytes)
            companions: Companions = ()
            if syntax_of(entry.path) == "hcl" and isinstance(content, bytes):
                companions = _companions(revision, entry.path, folders, blobs, max_bytes)
            out.sources.append(source_of(candidate, content, companions))
    finally:
        blobs.close()
    return out


def _companions(
    revision: Revision,
    path: str,
    folders: dict[str, dict[str, _Entry]],
    blobs: _Blobs,
    max_bytes: int,
) -> Companions:
    """The other files of a Terraform file's module at the revision, as
    ``linter.load.sources.read_companions`` reads them in the working tree."""
    folder, _, own = path.rpartition("/")
    if folder not in folders:  # a file named alone: its folder was not listed
        listed = _tree(revision, folder)
        folders[folder] = {
            e.path.rpartition("/")[2]: e for e in listed if e.path.rpartition("/")[0] == folder
        }
    entries = folders[folder]
    out: list[tuple[str, bytes]] = []
    left = max_bytes
    for name in companion_names(list(entries), own)[:MAX_COMPANIONS]:
        content = _content(entries[name], blobs, left)
        if isinstance(content, bytes):
            out.append((name, content))
            left -= len(content)
    return tuple(out)


def _content(entry: _Entry, blobs: _Blobs, max_bytes: int) -> bytes | Refusal:
    if entry.mode == _LINK_MODE:
        return Refusal("special", "a symbolic link at the revision (not followed)")
    size = entry.size or 0
    if size > max_bytes:
        return Refusal("too-large", f"file is {size:,} bytes, above the {max_bytes:,}-byte limit")
    return blobs.read(entry.oid, size)
