"""Findings as JSON data and back: the one shape shared by the JSON report and the result cache
(documented by ``--format json``; fields are only ever added)."""

from __future__ import annotations

from typing import Any

from linter.findings import Finding, Location, Severity
from linter.load.positions import Span, format_path, parse_path


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
        **location_to_dict(finding.location),
        "related": [location_to_dict(r) for r in finding.related],
        "suppressed": None
        if finding.suppressed_reason is None
        else {"reason": finding.suppressed_reason},
    }


def _path(text: Any) -> tuple[str | int, ...]:
    return () if text is None else parse_path(str(text))


def location_from_dict(data: dict[str, Any]) -> Location:
    span = Span(data["line"], data["column"], data["endLine"], data["endColumn"])
    return Location(
        data["file"],
        span,
        data["document"],
        _path(data["path"]),
        data.get("message"),
        _path(data["sourcePath"]),
    )


def finding_from_dict(data: dict[str, Any]) -> Finding:
    """Inverse of :func:`finding_to_dict`; raises KeyError, TypeError or ValueError on data of
    another shape (callers reading untrusted data treat that as no data)."""
    suppressed = data["suppressed"]
    return Finding(
        data["ruleId"],
        None if data["severity"] is None else Severity(data["severity"]),
        data["message"],
        location_from_dict(data),
        tuple(location_from_dict(r) for r in data["related"]),
        None if suppressed is None else suppressed["reason"],
        data["fix"],
    )
