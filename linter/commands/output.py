"""Writing what a command produced to a file the command line named."""

from __future__ import annotations

from pathlib import Path


def write_report(target: Path, text: str, what: str) -> None:
    """Write a report or baseline whole or not at all: a full or read-only disk is a clean
    error (exit 2) and leaves any earlier file as it was. A target that is not a regular file
    (``/dev/stdout``, a pipe) is written to directly; a link is followed (the command line
    named it), so the file it points at is the one replaced."""
    import os
    import stat

    from linter.atomic_file import replace_file
    from linter.errors import UsageError

    try:
        try:
            special = not stat.S_ISREG(target.stat().st_mode)
        except FileNotFoundError:
            special = False
        if special:
            target.write_text(text, encoding="utf-8")
        else:
            replace_file(os.path.realpath(target), text.encode("utf-8"))
    except OSError as err:
        raise UsageError(f"{target}: {what}: {err.strerror or err}") from None
