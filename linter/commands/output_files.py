"""Writing what a command produced to a file the command line named.

The command line is trusted; the repository under review is not. A pull request can commit a
symbolic link at the path CI writes its report to (``gpulint.sarif``, a baseline, the folder of
``init --dir``), pointing anywhere the runner's user may write: a shell start-up file, say. So
an output file that is a link is refused with a message, and every folder on its path inside the
working directory is opened without following links (a link there is refused too). Folders above
the working directory are the user's own machine and are followed as given (``/tmp`` is a link
on macOS); so is a link to a pipe or device (``/dev/stdout``), which is written to directly. The
file itself is written to a new temporary beside it and renamed over it, so even a link that
appeared after the check would be replaced, never written through.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

_DIRECTORY = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_WRITE = os.O_WRONLY | getattr(os, "O_CLOEXEC", 0)
#: Descriptor-relative calls; without them (Windows) each part is checked by its path.
_AT = os.stat in os.supports_dir_fd and os.open in os.supports_dir_fd and bool(_NOFOLLOW)


class LinkRefused(OSError):
    """An output file, or a folder on its path inside the working directory, is a link."""


def write_report(target: Path, text: str | Iterable[bytes], what: str) -> None:
    """Write a report or baseline (text, or the pieces of its UTF-8 bytes) whole or not at all:
    a full or read-only disk, or a link in the way, is a clean error (exit 2) and leaves any
    earlier file as it was."""
    from linter.errors import UsageError

    data = text.encode("utf-8") if isinstance(text, str) else text
    try:
        with output_folder(target.parent) as folder:
            _write_in(folder, Path(os.path.abspath(target)), data)
    except LinkRefused as err:
        raise UsageError(f"{target}: {what}: {err.strerror}") from None
    except OSError as err:
        raise UsageError(f"{target}: {what}: {err.strerror or err}") from None


@contextlib.contextmanager
def output_folder(folder: Path, *, create: bool = False) -> Iterator[int | None]:
    """``folder`` opened as a descriptor (None where descriptor-relative calls are missing, once
    each part has been checked by its path), every part of it inside the working directory
    opened without following links; ``create`` makes the missing ones. A link there raises
    LinkRefused."""
    absolute = Path(os.path.abspath(folder))
    here = Path(os.getcwd())
    try:
        inside = absolute.relative_to(here).parts
    except ValueError:  # outside the working directory: the command line named it
        if create:
            os.makedirs(absolute, exist_ok=True)
        inside, here = (), absolute
    if not _AT:
        for depth in range(len(inside)):
            _checked(here.joinpath(*inside[: depth + 1]), create)
        yield None
        return
    descriptor = os.open(here, _DIRECTORY)
    try:
        for depth, part in enumerate(inside):
            child = _child(descriptor, part, here.joinpath(*inside[: depth + 1]), create)
            os.close(descriptor)
            descriptor = child
        yield descriptor
    finally:
        os.close(descriptor)


def _child(parent: int, name: str, path: Path, create: bool) -> int:
    """The folder ``name`` in ``parent``, opened, never through a link."""
    if create:
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, dir_fd=parent)
    if stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode):
        raise link_refusal(path)
    return os.open(name, _DIRECTORY | _NOFOLLOW, dir_fd=parent)


def _checked(path: Path, create: bool) -> None:
    if create:
        with contextlib.suppress(FileExistsError):
            path.mkdir()
    if path.is_symlink():
        raise link_refusal(path)


def _write_in(folder: int | None, target: Path, data: bytes | Iterable[bytes]) -> None:
    """Replace ``target`` (its name in ``folder`` when that is open), refused when it is a link
    to anything but a pipe or device; a pipe or device is written to directly."""
    from linter.atomic_file import replace_file

    path = target.name if folder is not None else str(target)
    try:
        status = os.stat(path, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        status = None
    if status is not None and stat.S_ISLNK(status.st_mode):
        try:
            status = os.stat(path, dir_fd=folder)
        except FileNotFoundError:
            status = None
        if status is None or stat.S_ISREG(status.st_mode) or stat.S_ISDIR(status.st_mode):
            raise link_refusal(target)
        _stream(os.open(path, _WRITE, dir_fd=folder), data)
    elif status is not None and not stat.S_ISREG(status.st_mode):
        _stream(os.open(path, _WRITE | _NOFOLLOW, dir_fd=folder), data)
    else:
        replace_file(path, data, dir_fd=folder)


def _stream(descriptor: int, data: bytes | Iterable[bytes]) -> None:
    from linter.atomic_file import pieces_of

    with os.fdopen(descriptor, "wb") as stream:
        for piece in pieces_of(data):
            stream.write(piece)


def link_refusal(path: Path) -> LinkRefused:
    """The error for a link at ``path`` (shown relative to the working directory when inside)."""
    try:
        shown = path.relative_to(Path(os.getcwd())).as_posix()
    except ValueError:
        shown = path.as_posix()
    return LinkRefused(
        errno.ELOOP,
        f"{shown} is a symbolic link; gpulint does not write through links "
        "(remove it, or name another path)",
    )
