"""Findings as JSON data: the shape of the JSON report (documented by ``--format json``; fields
are only ever added). The result cache stores findings compactly (linter/run/file_result.py)."""

from __future__ import annotations

from typing import Any

from linter.findings import Finding, Location
from linter.load.positions import format_path


def location_to_dict(location: Location) -> dict[str, Any]:
    span = location.span
    out: dict[str, Any] = {
        "file": location.file,
        "line": span.line,
        "column": span.column,
        "endLine": span.end_line,
        "endColumn": span.end_column,
        "document": location.document,
        "path": format_path(location.path) if location.path else None,
        "sourcePath": format_path(location.source_path) if location.source_path else None,
    }
    if location.message is not None:
        out["message"] = location.message
    return out


def finding_to_dict(finding: Finding, rule_name: str | None) -> dict[str, Any]:
    return {
        "ruleId": finding.rule_id,
        "ruleName": rule_name,
        "severity": None if finding.severity is None else finding.severity.value,
        "message": finding.message,
        "fix": finding.fix,
        "properties": dict(finding.properties),
        **location_to_dict(finding.location),
        "related": [location_to_dict(r) for r in finding.related],
        "suppressed": None
        if finding.suppressed_reason is None
        else {"reason": finding.suppressed_reason},
    }
