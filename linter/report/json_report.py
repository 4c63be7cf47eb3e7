"""JSON for scripts. The structure is documented in docs/output-formats.md and versioned by
``schemaVersion``; fields are only ever added within a version."""

from __future__ import annotations

import json

from linter import version
from linter.report.record import Rendered, RenderOptions, Report
from linter.report.serialise import finding_to_dict
from linter.report.summary import counts

SCHEMA_VERSION = 1


def render(report: Report, options: RenderOptions) -> Rendered:
    names = report.rule_names()
    document = {
        "schemaVersion": SCHEMA_VERSION,
        "tool": {"name": "gpulint", "version": version()},
        # baseline matches are only counted (summary.baselined), as before they were
        "findings": [
            finding_to_dict(f, names.get(f.rule_id)) for f in report.findings if not f.baseline
        ],
        "summary": {**counts(report.findings), "filesChecked": report.files_checked},
        "skipped": [{"file": s.file, "reason": s.reason} for s in report.skipped],
        "configuration": list(report.notices),
    }
    # compact: Python's indenting encoder is pure Python, 20x slower on a large report
    return Rendered(json.dumps(document, separators=(",", ":")) + "\n")
