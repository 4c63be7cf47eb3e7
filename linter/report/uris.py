"""Artifact URIs for SARIF: POSIX paths relative to the source root, whatever the working directory.

GitHub matches alerts from run to run by rule id and file path, so ``jobs/train.yaml`` must come
out the same whether gpulint ran from the repository root or from ``jobs/``.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote

SRCROOT = "%SRCROOT%"


def artifact_uri(display: str, base: Path, root: Path) -> tuple[str, str | None]:
    """``(uri, uriBaseId)`` for a finding's display path (relative to ``base``, or absolute).

    Inside ``root``: a percent-encoded relative reference against ``%SRCROOT%``. Outside it (a file
    named by absolute path elsewhere): a ``file:`` URI and no base id.
    """
    absolute = Path(os.path.normpath(base / display))
    for candidate, anchor in ((absolute, root), (absolute.resolve(), root.resolve())):
        try:
            relative = candidate.relative_to(anchor).as_posix()
        except ValueError:
            continue
        return quote(relative, safe="/"), SRCROOT
    return absolute.as_uri(), None
