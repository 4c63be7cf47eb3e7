"""JSON for scripts. The structure is documented in docs/output-formats.md and versioned by
``schemaVersion``; fields are only ever added within a version."""

from __future__ import annotations

import json
from typing import Any

from linter import __version__
from linter.findings import Finding, Location
from linter.load.positions import format_path
from linter.report.summary import counts
from linter.runner import RunResult

SCHEMA_VERSION = 1


def _location(location: Location) -> dict[str, Any]:
    span = location.span
    out: dict[str, Any] = {
        "file": location.file,
        "line": span.line,
        "column": span.column,
        "endLine": span.end_line,
        "endColumn": span.end_column,
        "document": location.document,
        "path": format_path(location.path) if location.path else None,
    }
    if location.message is not None:
        out["message"] = location.message
    return out


def finding_to_dict(finding: Finding, rule_name: str | None) -> dict[str, Any]:
    return {
        "ruleId": finding.rule_id,
        "ruleName": rule_name,
        "severity": finding.level.value,
        "message": finding.message,
        **_location(finding.location),
        "related": [_location(r) for r in finding.related],
        "suppressed": None
        if finding.suppressed_reason is None
        else {"reason": finding.suppressed_reason},
    }


def render(result: RunResult) -> str:
    names = {rule.id: rule.meta.name for rule in result.rulebook}
    document = {
        "schemaVersion": SCHEMA_VERSION,
        "tool": {"name": "gpulint", "version": __version__},
        "findings": [finding_to_dict(f, names.get(f.rule_id)) for f in result.findings],
        "summary": {**counts(result.findings), "filesChecked": result.files_checked},
    }
    # compact: Python's indenting encoder is pure Python, 20x slower on a large report
    return json.dumps(document, separators=(",", ":")) + "\n"
