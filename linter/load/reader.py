"""The one way gpulint reads a file it did not write itself.

Everything in a repository under review is attacker-controlled, and a path in it can name more
than a small text file: a FIFO (``open`` blocks until someone writes), a device (``/dev/zero``
never ends), a 3 GB file, or a symbolic link to a file outside the repository whose content
would then be echoed in messages. :func:`read_bounded` reads a file only if it is a regular file
within a size limit (checked on the open descriptor, so a file swapped after a check is checked
again; at most ``limit + 1`` bytes are ever read) and, given a ``root``, only if its real location
lies inside that folder. It never raises for a property of the file: it returns a
:class:`Refusal` that says why not.
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, Literal

from linter.records import datarecord

# O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer.
# O_NOFOLLOW: the resolved path is opened, so a link that appears at it afterwards fails (ELOOP).
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0) | _NONBLOCK
_CHUNK = 1024 * 1024


RefusalKind = Literal["unreadable", "special", "too-large", "outside"]


@datarecord
class Refusal:
    """Why a file was not read: ``reason`` is a phrase for a message (``No such file or
    directory``, ``not a regular file (a pipe, socket or device?)``)."""

    kind: RefusalKind
    reason: str

    def message(self, advice: str | None = None) -> str:
        """The sentence for a report; ``advice`` says how to raise a size limit."""
        if self.kind == "unreadable":
            return f"cannot read file: {self.reason}"
        hint = f" ({advice})" if advice and self.kind == "too-large" else ""
        return f"{self.reason}{hint}; not read"


def read_bounded(path: str | Path, limit: int, root: Path | None = None) -> bytes | Refusal:
    """The bytes of the regular file at ``path`` (at most ``limit`` of them), or a refusal.

    With ``root``, links are resolved first and the file must lie inside ``root`` (a symbolic
    link may point elsewhere in the repository, not out of it). Without it (a path the user
    named on the command line) links are followed wherever they go.
    """
    target, flags = os.fspath(path), _FLAGS
    if root is not None:
        real, inside = _real_path(os.fspath(path)), _resolved(os.path.abspath(root))
        if real != inside and not real.startswith(inside.rstrip(os.sep) + os.sep):
            return Refusal("outside", f"a symbolic link to a file outside {root}")
        target, flags = real, flags | _NOFOLLOW
    return _read_opened(lambda: os.open(target, flags), limit)


def _real_path(path: str) -> str:
    """``os.path.realpath(path)``, its folder resolved once for all the files in it: a run reads
    folder after folder of files, and resolving each file's path in full costs a system call per
    folder above it (2% of a run's CPU). Only the file's own name is looked at each time; where
    it is a symbolic link (or cannot be looked at), the path is resolved in full. Resolving the
    folder first and then the name is what ``realpath`` does, so the result is the same."""
    folder, name = os.path.split(os.path.abspath(path))
    if name in ("", ".", ".."):
        return os.path.realpath(path)
    candidate = os.path.join(_resolved_folder(folder), name)
    try:
        if not stat.S_ISLNK(os.lstat(candidate).st_mode):
            return candidate
    except OSError:
        pass
    return os.path.realpath(path)


@functools.lru_cache(maxsize=256)
def _resolved_folder(folder: str) -> str:
    """An absolute folder's real path, remembered for the files read from it one after
    another."""
    return os.path.realpath(folder)


@functools.lru_cache(maxsize=16)
def _resolved(root: str) -> str:
    """The absolute path ``root`` with its links resolved, once per process: every file of a
    repository is checked against the same root, and resolving it again costs a system call per
    folder in its path."""
    return os.path.realpath(root)


def forget_resolved() -> None:
    """Forget the folders and roots resolved so far: a run begins, and the tree it reads may
    have changed since the last run of this process (a folder become a link)."""
    _resolved_folder.cache_clear()
    _resolved.cache_clear()


def read_bounded_at(folder: int, name: str, limit: int) -> bytes | Refusal:
    """:func:`read_bounded` for ``name`` in an opened folder (``folder`` is its descriptor),
    never through a symbolic link."""
    return _read_opened(lambda: os.open(name, _FLAGS | _NOFOLLOW, dir_fd=folder), limit)


def open_bounded_at(folder: int, name: str, limit: int) -> BinaryIO | Refusal:
    """``name`` in an opened folder, opened to be read in pieces (never through a symbolic
    link), when it is a regular file of at most ``limit`` bytes; the caller closes it and reads
    no more than ``limit`` bytes of it (it may grow after the check)."""
    opened = _open_checked(lambda: os.open(name, _FLAGS | _NOFOLLOW, dir_fd=folder), limit)
    if isinstance(opened, Refusal):
        return opened
    descriptor, _ = opened
    return os.fdopen(descriptor, "rb")


def _open_checked(opener: Callable[[], int], limit: int) -> tuple[int, int] | Refusal:
    """The descriptor ``opener`` opens and the file's size, when it is a regular file within
    ``limit`` (else the descriptor is closed again)."""
    try:
        descriptor = opener()
    except OSError as err:
        return Refusal("unreadable", err.strerror or str(err))
    try:
        status = os.fstat(descriptor)
    except OSError as err:
        os.close(descriptor)
        return Refusal("unreadable", err.strerror or str(err))
    refusal = None
    if not stat.S_ISREG(status.st_mode):
        refusal = Refusal("special", "not a regular file (a pipe, socket or device?)")
    elif status.st_size > limit:
        refusal = Refusal(
            "too-large", f"file is {status.st_size:,} bytes, above the {limit:,}-byte limit"
        )
    if refusal is not None:
        os.close(descriptor)
        return refusal
    return descriptor, status.st_size


def _read_opened(opener: Callable[[], int], limit: int) -> bytes | Refusal:
    opened = _open_checked(opener, limit)
    if isinstance(opened, Refusal):
        return opened
    descriptor, size = opened
    try:
        data = _read_at_most(descriptor, limit + 1, size + 1)
    except OSError as err:
        return Refusal("unreadable", err.strerror or str(err))
    finally:
        os.close(descriptor)
    if len(data) > limit:  # the file grew after fstat
        return Refusal("too-large", f"file is larger than the {limit:,}-byte limit")
    return data


def _read_at_most(descriptor: int, count: int, expected: int) -> bytes:
    """Up to ``count`` bytes; the first read asks for the ``expected`` size, so that a file
    that did not change since its fstat arrives in one piece, never copied (a result-cache
    entry can be tens of megabytes)."""
    chunks: list[bytes] = []
    remaining, size = count, max(1, min(count, expected))
    while remaining > 0:
        chunk = os.read(descriptor, min(remaining, size))
        if not chunk:
            break
        chunks.append(chunk)
        remaining -= len(chunk)
        size = _CHUNK
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)
