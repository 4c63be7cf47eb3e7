"""Where the shipped rules/ and schemas/ folders are, installed or in a source checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def bundled(name: str) -> Path:
    """``rules`` or ``schemas``: inside the wheel they live in ``linter/_bundled``; in a checkout
    (or an editable install) they are the top-level folders next to ``linter/``."""
    installed = _PACKAGE / "_bundled" / name
    return installed if installed.is_dir() else _PACKAGE.parent / name
