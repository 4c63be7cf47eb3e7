"""Replace a file in one step: readers see the old content or the new, never a partial file."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from pathlib import Path

# O_EXCL with O_NOFOLLOW: the temporary is always a new file, never one planted in advance
# (a link at that name makes the open fail instead of writing through it).
_CREATE = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
TEMPORARY_SUFFIX = ".tmp"


def temporary_name(name: str) -> str:
    """``.NAME.<16 hex>.tmp``: hidden, unique, and recognisable for clean-up."""
    return f".{name}.{os.urandom(8).hex()}{TEMPORARY_SUFFIX}"  # secrets.token_hex, unimported


def pieces_of(data: bytes | Iterable[bytes]) -> Iterable[bytes]:
    """``data`` as the pieces to write, in order: bytes are one piece (large outputs and cache
    entries are written from pieces that are never joined)."""
    return (data,) if isinstance(data, bytes) else data


def replace_file(
    path: str | Path, data: bytes | Iterable[bytes], *, dir_fd: int | None = None, mode: int = 0o666
) -> None:
    """Write ``data`` (bytes, or its pieces) to a new temporary file beside ``path`` and rename it
    over ``path``.

    With ``dir_fd``, ``path`` is a name in that (already opened and checked) folder. On any error
    the temporary is removed, the old file is left as it was, and the OSError propagates: a full
    or read-only disk never leaves an empty or truncated file behind.
    """
    folder, name = os.path.split(os.fspath(path))
    temporary = os.path.join(folder, temporary_name(name))
    descriptor = os.open(temporary, _CREATE, mode, dir_fd=dir_fd)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            for piece in pieces_of(data):
                handle.write(piece)
        os.replace(temporary, path, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=dir_fd)
        raise
