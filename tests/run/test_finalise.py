"""The last step of a run (linter/run/second_pass.py ``finalise``): every finding gets its final
severity, and the findings it was given are moved out, not kept beside their copies (memory,
issue 31)."""

from __future__ import annotations

from linter.findings import Finding, Location, Severity
from linter.load.positions import Span
from linter.policy.loader import Rulebook
from linter.policy.selection import RuleSettings
from linter.run.file_result import FileResult
from linter.run.second_pass import finalise


def _finding(rule_id: str, file: str, line: int) -> Finding:
    return Finding(rule_id, None, f"{rule_id} here", Location(file, Span(line, 1, line, 5)))


def test_findings_get_their_severity_and_are_moved_out(rulebook: Rulebook) -> None:
    result = FileResult("a.yaml", explicit=True, checked=True)
    result.findings = [_finding("GL206", "a.yaml", 9)]
    run_wide = [_finding("GL205", "a.yaml", 3)]
    settings = {"GL205": RuleSettings(), "GL206": RuleSettings(severity=Severity.WARNING)}
    final = finalise([result], run_wide, rulebook, [settings])
    assert [(f.rule_id, f.location.span.line, f.severity) for f in final] == [
        ("GL205", 3, Severity.ERROR),  # the rule's own
        ("GL206", 9, Severity.WARNING),  # configured (the rule says note)
    ]
    assert (result.findings, run_wide) == ((), [])
