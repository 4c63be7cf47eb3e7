"""Findings travel back from forked workers pickled, one pickle per slice of files: unpickled,
equal texts and paths of different slices are one object again (memory, issue 31)."""

from __future__ import annotations

import pickle

from linter.findings import Finding, Location, Severity
from linter.load.positions import Span


def _finding(line: int) -> Finding:
    # texts built at run time, as rules render them: equal, never the same object
    path = tuple(["spec", "serving", "maxBatchSize"])  # a new tuple per call
    place = Location("".join(["team-00/", "a.yaml"]), Span(line, 5, line, 17), 0, path)
    related = Location(
        "".join(["ledger", ".yaml"]), Span(2, 1, 2, 9), 1, (), "".join(["the ", "pool"])
    )
    return Finding(
        "GL206",
        Severity.NOTE,
        " ".join(["serves", "one", "sequence"]),
        place,
        related=(related,),
        fix=" ".join(["raise", "maxBatchSize"]),
        properties=(("gpus", 4),),
    )


def test_unpickled_findings_are_equal_and_share_their_texts() -> None:
    sent = [_finding(15), _finding(16)]
    first, second = (pickle.loads(pickle.dumps(f, pickle.HIGHEST_PROTOCOL)) for f in sent)
    assert [first, second] == sent
    assert first.message is second.message
    assert first.fix is second.fix
    assert first.location.file is second.location.file
    assert first.location.path is second.location.path
    assert first.related[0].message is second.related[0].message
    assert (first.location.span.line, second.location.span.line) == (15, 16)
