"""Where the shipped rules/ and schemas/ folders are, and which build of gpulint this is."""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from pathlib import Path

from linter import version

_PACKAGE = Path(__file__).resolve().parent


def bundled(name: str) -> Path:
    """``rules`` or ``schemas``: inside the wheel they live in ``linter/_bundled``; in a checkout
    (or an editable install) they are the top-level folders next to ``linter/``."""
    installed = _PACKAGE / "_bundled" / name
    return installed if installed.is_dir() else _PACKAGE.parent / name


@functools.cache
def package_stamp() -> str:
    """gpulint's version, the Python version, and the size and modification time of every file
    of the installed package: a changed gpulint (a development checkout, a reinstall of the same
    version) never reuses what an older one cached."""
    stamps = [version(), sys.version.split()[0]]
    # os.walk without the bytecode folders: Path.rglob over them took ~10 ms of every start-up;
    # each path made relative by cutting the package's folder off (os.path.relpath, which
    # normalises both paths, was two thirds of the walk's time).
    root = str(_PACKAGE)
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
        for name in sorted(names):
            if os.path.splitext(name)[1] in (".py", ".yaml", ".json"):
                path = os.path.join(folder, name)
                status = os.stat(path)
                relative = path[len(root) + 1 :]
                stamps.append(f"{relative}:{status.st_size}:{status.st_mtime_ns}")
    return hashlib.sha256("\n".join(stamps).encode()).hexdigest()
