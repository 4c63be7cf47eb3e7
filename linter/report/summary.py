"""Counts shared by the renderers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from linter.findings import Finding
from linter.report.record import Report
from linter.wording import plural


def reported(findings: Iterable[Finding]) -> list[Finding]:
    """Findings that are not suppressed, in report order."""
    return [f for f in findings if f.suppressed_reason is None]


def with_fix(finding: Finding) -> str:
    """The message followed by the fix, for formats that carry one text per finding."""
    return f"{finding.message}. Fix: {finding.fix}" if finding.fix else finding.message


def counts(findings: Iterable[Finding]) -> dict[str, int]:
    """Unsuppressed findings by level, those suppressed by a comment, and those that matched
    the baseline."""
    findings = list(findings)
    by_level = Counter(f.level.value for f in findings if f.suppressed_reason is None)
    return {
        "errors": by_level["error"],
        "warnings": by_level["warning"],
        "notes": by_level["note"],
        "suppressed": sum(
            1 for f in findings if f.suppressed_reason is not None and not f.baseline
        ),
        "baselined": sum(1 for f in findings if f.baseline),
    }


def in_baseline(findings: Iterable[Finding]) -> list[Finding]:
    """Findings that matched the run's baseline, in report order."""
    return [f for f in findings if f.baseline]


def summary_line(report: Report) -> str:
    """``Found 2 errors, 0 warnings and 1 note in 3 files (1 suppressed).``"""
    c = counts(report.findings)

    files = plural(report.files_checked, "file")
    if not any(c[k] for k in ("errors", "warnings", "notes")):
        head = f"No problems found in {files}"
    else:
        head = (
            f"Found {plural(c['errors'], 'error')}, {plural(c['warnings'], 'warning')} and "
            f"{plural(c['notes'], 'note')} in {files}"
        )
    hidden = [f"{c['suppressed']} suppressed"] if c["suppressed"] else []
    if c["baselined"]:
        hidden.append(f"{c['baselined']} matched the baseline")
    tail = f" ({', '.join(hidden)})" if hidden else ""
    return f"{head}{tail}."
