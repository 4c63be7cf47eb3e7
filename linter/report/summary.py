"""Counts shared by the renderers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

from linter.findings import Finding

if TYPE_CHECKING:
    from linter.runner import RunResult


def reported(findings: Iterable[Finding]) -> list[Finding]:
    """Findings that are not suppressed, in report order."""
    return [f for f in findings if f.suppressed_reason is None]


def counts(findings: Iterable[Finding]) -> dict[str, int]:
    findings = list(findings)
    by_level = Counter(f.severity.value for f in findings if f.suppressed_reason is None)
    return {
        "errors": by_level["error"],
        "warnings": by_level["warning"],
        "notes": by_level["note"],
        "suppressed": sum(1 for f in findings if f.suppressed_reason is not None),
    }


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def configuration_note(result: RunResult) -> str | None:
    """What the configuration file left out of the run, so that a repository cannot switch
    rules or files off without it showing: ``Configuration turned off 2 rules (GL202, GL206)
    and excluded 3 files.``; None when it left out nothing."""
    parts = []
    if result.disabled_rules:
        rules = plural(len(result.disabled_rules), "rule")
        parts.append(f"turned off {rules} ({', '.join(result.disabled_rules)})")
    if result.excluded:
        parts.append(f"excluded {plural(len(result.excluded), 'file')}")
    return f"Configuration {' and '.join(parts)}." if parts else None
