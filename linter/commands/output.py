"""Writing what a command produced to a file the command line named."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path


def write_report(target: Path, text: str | Iterable[bytes], what: str) -> None:
    """Write a report or baseline (text, or the pieces of its UTF-8 bytes) whole or not at all:
    a full or read-only disk is a clean error (exit 2) and leaves any earlier file as it was.
    A target that is not a regular file (``/dev/stdout``, a pipe) is written to directly; a
    link is followed (the command line named it), so the file it points at is the one
    replaced."""
    import os
    import stat

    from linter.atomic_file import pieces_of, replace_file
    from linter.errors import UsageError

    try:
        try:
            special = not stat.S_ISREG(target.stat().st_mode)
        except FileNotFoundError:
            special = False
        data = text.encode("utf-8") if isinstance(text, str) else text
        if special:
            with target.open("wb") as stream:
                for piece in pieces_of(data):
                    stream.write(piece)
        else:
            replace_file(os.path.realpath(target), data)
    except OSError as err:
        raise UsageError(f"{target}: {what}: {err.strerror or err}") from None
