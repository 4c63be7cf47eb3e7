"""JSON for scripts. The structure is documented in docs/output-formats.md and versioned by
``schemaVersion``; fields are only ever added within a version."""

from __future__ import annotations

import json
from itertools import chain

from linter import version
from linter.report.pieces import joined
from linter.report.record import Rendered, RenderOptions, Report
from linter.report.serialise import finding_to_dict
from linter.report.summary import counts

SCHEMA_VERSION = 1
#: Compact: Python's indenting encoder is pure Python, 20x slower on a large report.
_ENCODE = json.JSONEncoder(separators=(",", ":")).encode


def render(report: Report, options: RenderOptions) -> Rendered:
    """The text encoding the whole document would give, made of each finding encoded on its
    own as it is written (linter/report/pieces.py): a large report never holds every finding
    as a dict (about 1 KiB a finding), nor its text."""
    names = report.rule_names()
    head = {
        "schemaVersion": SCHEMA_VERSION,
        "tool": {"name": "gpulint", "version": version()},
    }
    tail = {
        "summary": {**counts(report.findings), "filesChecked": report.files_checked},
        "skipped": [{"file": s.file, "reason": s.reason} for s in report.skipped],
        "configuration": list(report.notices),
    }
    # baseline matches are only counted (summary.baselined), as before they were
    shown = (finding for finding in report.findings if not finding.baseline)
    findings = joined(
        (_ENCODE(finding_to_dict(finding, names.get(finding.rule_id))) for finding in shown), ","
    )
    opening = f'{_ENCODE(head)[:-1]},"findings":['
    return Rendered(chain((opening,), findings, (f"],{_ENCODE(tail)[1:]}\n",)))
