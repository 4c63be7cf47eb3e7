"""A finding copied at its final severity keeps every other field."""

from __future__ import annotations

import dataclasses

from linter.findings import Finding, Location, Severity
from linter.load.positions import Span


def test_with_severity_keeps_every_other_field() -> None:
    place = Location("a.yaml", Span(3, 5, 3, 9), 0, ("spec", "serving"))
    finding = Finding(
        "GL206",
        None,
        "serves one sequence",
        place,
        related=(Location("b.yaml", Span(1, 1, 1, 2), 0, (), "the pool"),),
        suppressed_reason="known",
        fix="raise maxBatchSize",
        properties=(("gpus", 4),),
        baseline=True,
    )
    defaults = Finding("GL000", None, "", Location("", Span(1, 1, 1, 2)))
    # every field differs from its default here: a field added later is copied too, or this fails
    assert all(
        getattr(finding, field.name) != getattr(defaults, field.name)
        for field in dataclasses.fields(Finding)
        if field.name != "severity"
    )
    assert finding.with_severity(Severity.WARNING) == dataclasses.replace(
        finding, severity=Severity.WARNING
    )
