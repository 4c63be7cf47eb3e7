"""What the first pass keeps of one file: everything the rest of the run needs, and nothing
else (no text, no parsed document), as plain data that the result cache can store.

A :class:`FileResult` is independent of every other file, so an unchanged file's result is
reused from the cache as it is; what depends on other files (run-wide facts and the rules that
read them) is recomputed from the results' records and deferred parts in the second pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from linter.deferred import Deferred
from linter.findings import Finding
from linter.report.serialise import finding_from_dict, finding_to_dict
from linter.suppress import Suppression

#: A line's SARIF fingerprint (None when unknown) and its text, whitespace collapsed (baselines).
LineInfo = tuple[str | None, str]
#: (display path, document, part) and what each run-wide provider recorded of that manifest.
Record = tuple[tuple[str, int, int], dict[str, Any]]


@dataclass
class FileResult:
    display: str
    explicit: bool
    checked: bool = False  # read as one of ours (counts in "N files")
    skipped: bool = False  # named on the command line but holds nothing of ours
    findings: list[Finding] = field(default_factory=list)  # before suppressions and severities
    suppressions: list[Suppression] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    deferred: list[Deferred] = field(default_factory=list)
    lines: dict[int, LineInfo] = field(default_factory=dict)
    cacheable: bool = True  # False when the result depends on another file (model.config)

    def to_json(self) -> dict[str, Any]:
        return {
            "checked": self.checked,
            "skipped": self.skipped,
            "findings": [finding_to_dict(f, None) for f in self.findings],
            "suppressions": [
                [s.line, s.column, s.end_column, list(s.rule_ids), s.reason]
                for s in self.suppressions
            ],
            "records": [[list(target), record] for target, record in self.records],
            "deferred": [d.to_json() for d in self.deferred],
            "lines": {str(line): list(info) for line, info in self.lines.items()},
        }

    @classmethod
    def from_json(
        cls, data: Mapping[str, Any], display: str, explicit: bool, line_count: int
    ) -> FileResult:
        """A cached result for this file (its display path, and its text's line count to check
        positions against); raises KeyError, TypeError or ValueError on anything doubtful."""
        findings = [finding_from_dict(item) for item in data["findings"]]
        for finding in findings:
            if finding.location.file != display:
                raise ValueError("a finding on another file")
            for location in (finding.location, *finding.related):
                span = location.span
                if min(span.line, span.column) < 1 or (span.end_line, span.end_column) < (
                    span.line,
                    span.column,
                ):
                    raise ValueError("not a span")
                if location.file == display and span.end_line > line_count + 1:
                    raise ValueError("a position beyond the end of the file")
        deferred = [Deferred.from_json(item) for item in data["deferred"]]
        if any(d.file != display for d in deferred):
            raise ValueError("a deferred part of another file")
        checked, skipped = data["checked"], data["skipped"]
        if not isinstance(checked, bool) or not isinstance(skipped, bool):
            raise TypeError("checked and skipped are true or false")
        return cls(
            display,
            explicit,
            checked,
            skipped,
            findings,
            [
                Suppression(int(a), int(b), int(c), tuple(map(str, ids)), str(reason))
                for a, b, c, ids, reason in data["suppressions"]
            ],
            [(_target(target, display), dict(record)) for target, record in data["records"]],
            deferred,
            {int(line): (info[0], str(info[1])) for line, info in data["lines"].items()},
        )


def _target(raw: Any, display: str) -> tuple[str, int, int]:
    file, document, part = raw
    if file != display:
        raise ValueError("a record of another file")
    return (str(file), int(document), int(part))
