"""``check --format gitlab``: GitLab Code Quality (``artifacts:reports:codequality``), the
subset of the Code Climate issue format GitLab reads: ``description``, ``check_name``,
``fingerprint``, ``severity`` and ``location.path`` with ``location.lines.begin``
(docs.gitlab.com/ci/testing/code_quality, "Code Quality report format").

Paths are relative to the repository root (the SARIF root), as GitLab links them. A
fingerprint is the same from run to run while the finding stays: a hash of the rule, the file,
the line's SARIF fingerprint (its text, so lines added above do not change it), the manifest
path, and how many identical findings came before it.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from linter.findings import Finding, Severity
from linter.load.positions import format_path
from linter.report.record import Rendered, RenderOptions, Report
from linter.report.summary import reported, with_fix

#: GitLab's scale is info, minor, major, critical and blocker.
_SEVERITY = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.NOTE: "info"}


def _path(display: str, options: RenderOptions) -> str:
    """The file relative to the repository root, POSIX style; as displayed when outside it."""
    absolute = Path(os.path.normpath(options.base / display))
    try:
        return absolute.relative_to(options.root).as_posix()
    except ValueError:
        return Path(display).as_posix()


def _identity(finding: Finding, report: Report, path: str) -> str:
    location = finding.location
    info = report.lines.get(location.file, {}).get(location.span.line)
    line = info[0] or info[1] if info else str(location.span.line)
    return "\0".join((finding.rule_id, path, line, format_path(location.path)))


def render(report: Report, options: RenderOptions) -> Rendered:
    names = report.rule_names()
    seen: dict[str, int] = {}
    issues: list[dict[str, Any]] = []
    for finding in reported(report.findings):
        path = _path(finding.location.file, options)
        identity = _identity(finding, report, path)
        seen[identity] = seen.get(identity, 0) + 1
        digest = hashlib.sha256(f"{identity}\0{seen[identity]}".encode()).hexdigest()
        issues.append(
            {
                "description": with_fix(finding),
                "check_name": f"{finding.rule_id} {names.get(finding.rule_id, '')}".strip(),
                "fingerprint": digest[:32],
                "severity": _SEVERITY[finding.level],
                "location": {"path": path, "lines": {"begin": finding.location.span.line}},
            }
        )
    return Rendered((json.dumps(issues, indent=2, ensure_ascii=False) + "\n",))
