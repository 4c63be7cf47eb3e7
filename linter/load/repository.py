"""The repository a path belongs to: the boundary that what a repository says may not cross."""

from __future__ import annotations

import os
from pathlib import Path


def repository_root(start: Path) -> Path:
    """The nearest folder from ``start`` upwards that holds ``.git`` (a folder in a clone, a file
    in a worktree or submodule); ``start`` itself (absolute) outside a repository."""
    start = start.absolute()
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return start


def inside(path: Path, root: Path) -> bool:
    """Whether the real location of ``path`` (links resolved; a link loop is left as it is,
    never an error) lies within the real ``root``."""
    return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(root))
