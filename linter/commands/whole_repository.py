"""``check --whole-repository FILE...``: lint the repository, report only the named files.

The pre-commit hook is given the staged files. Linted alone they are a partial repository: a
training job staged without the QuotaLedger it draws on is "not covered" (a false GL301), and
two jobs that together overrun a quota are not both seen (a missed GL302); pools (GL205) and
budgets (GL212) are the same. So the run lints every file of the repository, as ``check .``
from its root would, and then keeps only the findings located in the named files (and only
their skipped notes): run-wide rules judge the whole repository, per-file rules still speak
only of the files named, and a finding in a file nobody touched does not block the commit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from linter.load.repository import repository_root

if TYPE_CHECKING:
    from linter.load.discovery import PathCandidate
    from linter.run.runner import RunResult


def paths(named: Sequence[str]) -> list[str]:
    """What the run lints: the named files first (so they stay named files, read even when of
    no format gpulint knows, and skipped with a reason), then the repository above the working
    directory (the working directory outside a repository)."""
    return [*named, str(repository_root(Path.cwd()))]


def reported(candidates: Sequence[PathCandidate]) -> frozenset[str]:
    """The display paths of the named files, as findings locate them."""
    return frozenset(candidate.display for candidate in candidates if candidate.explicit)


def only(result: RunResult, files: frozenset[str]) -> RunResult:
    """``result`` with only the findings and skipped files in ``files``; the files checked are
    the named files that were linted."""
    skipped = [item for item in result.skipped if item.file in files]
    left_out = {item.file for item in skipped}
    return dataclasses.replace(
        result,
        findings=[f for f in result.findings if f.location.file in files],
        skipped=skipped,
        files_checked=len(files - left_out),
    )
