"""The JSON report is encoded a batch of findings at a time (memory, issue 31): its text is
exactly what encoding the whole document at once gives, with and without findings."""

from __future__ import annotations

import dataclasses
import json

import pytest

from linter import version
from linter.findings import Finding, Location, Severity, Skipped
from linter.load.positions import Span
from linter.report.json_report import render
from linter.report.record import RenderOptions, Report

_PLACE = Location("a.yaml", Span(3, 5, 3, 17), 0, ("spec", "serving", "maxBatchSize"))
_FINDING = Finding(
    "GL206",
    Severity.NOTE,
    'serves one sequence at a time, \u00e9 "quoted"',
    _PLACE,
    related=(dataclasses.replace(_PLACE, message="the pool"),),
    fix="raise spec.serving.maxBatchSize",
    properties=(("gpus", 4), ("fits", True)),
)
_SUPPRESSED = dataclasses.replace(_FINDING, rule_id="GL110", suppressed_reason="known")
_BASELINED = dataclasses.replace(_FINDING, suppressed_reason="baseline.json", baseline=True)


def _whole(report: Report) -> str:
    """The report as one ``json.dumps`` of the whole document gives it."""
    from linter.report.serialise import finding_to_dict
    from linter.report.summary import counts

    document = {
        "schemaVersion": 1,
        "tool": {"name": "gpulint", "version": version()},
        "findings": [finding_to_dict(f, None) for f in report.findings if not f.baseline],
        "summary": {**counts(report.findings), "filesChecked": report.files_checked},
        "skipped": [{"file": s.file, "reason": s.reason} for s in report.skipped],
        "configuration": list(report.notices),
    }
    return json.dumps(document, separators=(",", ":")) + "\n"


@pytest.mark.parametrize(
    "findings",
    [
        (),
        (_BASELINED,),
        (_FINDING,),
        (_FINDING, _SUPPRESSED, _BASELINED),
        (_FINDING, _BASELINED) * 600 + (_SUPPRESSED,) * 500,  # 1,100 shown: three batches
    ],
    ids=["none", "only-baselined", "one", "three", "batches"],
)
def test_text_is_the_whole_documents(findings: tuple[Finding, ...]) -> None:
    report = Report(
        findings, (), 2, notices=("GL110 is off",), skipped=(Skipped("b.txt", "not ours"),)
    )
    text = render(report, RenderOptions()).text
    assert text == _whole(report)
    assert len(json.loads(text)["findings"]) == len([f for f in findings if not f.baseline])
