"""What the result cache keeps of a run, the key it is kept under, and the strict check of an
entry before it is believed.

The key covers everything a run's result depends on: gpulint's build, the configuration and
selection, every rule as loaded, and, for every candidate file, its display path and the hash of
the exact bytes that were linted (or of the reason they were not read). Any change misses and
re-lints: cross-file rules make a per-file result unsafe to reuse.

An entry comes back authenticated (linter/cache_store.py) but is still checked like input: its
shape and types, rule ids the run knows, files that are part of this run, positions inside those
files. Anything doubtful is a miss.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from linter.findings import Finding, Location, Severity
from linter.load.positions import Span
from linter.policy.rule_file import RULE_ID
from linter.resources import package_stamp

FORMAT = 2

Position = Annotated[int, Field(ge=1)]


class _Record(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class _Location(_Record):
    file: str = Field(min_length=1)
    span: list[Position] = Field(min_length=4, max_length=4)  # line, column, end line, end column
    document: Annotated[int, Field(ge=0)] | None
    path: list[str | Annotated[int, Field(ge=0)]]
    message: str | None


class _Finding(_Record):
    rule: str = Field(pattern=RULE_ID)
    severity: Literal["error", "warning", "note"]
    message: str
    location: _Location
    related: list[_Location]
    suppressed: str | None


class _Run(_Record):
    findings: list[_Finding]
    files_checked: int = Field(ge=0, alias="filesChecked")
    skipped: list[str]
    texts: dict[str, str]


@dataclass(frozen=True)
class FileState:
    """One candidate of a run as the key sees it."""

    display: str
    explicit: bool
    digest: bytes  # sha256 of the bytes linted, or of the reason they were not read


@dataclass(frozen=True)
class CachedRun:
    findings: list[Finding]
    files_checked: int
    skipped: list[str]
    texts: dict[str, str]


def run_key(files: Iterable[FileState], inputs: Iterable[str], rules: Iterable[str]) -> str:
    """Hash of everything a run's result depends on; ``inputs`` are the configuration and
    selection, ``rules`` each rule as loaded (its source and parsed definition)."""
    digest = hashlib.sha256()
    for part in (f"format {FORMAT}", package_stamp(), *inputs, *rules):
        digest.update(part.encode() + b"\0")
    for file in files:
        digest.update(f"{file.display}\0{file.explicit}\0".encode() + file.digest)
    return digest.hexdigest()


def _location_to_dict(location: Location) -> dict[str, Any]:
    span = location.span
    return {
        "file": location.file,
        "span": [span.line, span.column, span.end_line, span.end_column],
        "document": location.document,
        "path": list(location.path),
        "message": location.message,
    }


def to_entry(
    findings: Sequence[Finding], files_checked: int, skipped: Sequence[str], texts: dict[str, str]
) -> dict[str, Any]:
    """The entry for a run: findings, counts, skipped files and the texts of files with findings
    (for fingerprints and baselines)."""
    needed = {finding.location.file for finding in findings}
    return {
        "findings": [
            {
                "rule": f.rule_id,
                "severity": f.severity.value,
                "message": f.message,
                "location": _location_to_dict(f.location),
                "related": [_location_to_dict(r) for r in f.related],
                "suppressed": f.suppressed_reason,
            }
            for f in findings
        ],
        "filesChecked": files_checked,
        "skipped": list(skipped),
        "texts": {file: text for file, text in texts.items() if file in needed},
    }


def from_entry(
    entry: dict[str, Any], files: Sequence[FileState], rule_ids: Iterable[str]
) -> CachedRun | None:
    """The run an entry records, if it is well-formed and fits this run; else None."""
    try:
        run = _Run.model_validate(entry)
    except ValidationError:
        return None
    displays = {file.display for file in files}
    explicit = {file.display for file in files if file.explicit}
    known_rules = set(rule_ids)
    locations = [loc for f in run.findings for loc in (f.location, *f.related)]
    if (
        run.files_checked > len(displays)
        or not set(run.skipped) <= explicit
        or not set(run.texts) <= displays
        or any(f.rule not in known_rules for f in run.findings)
        or not all(_fits(loc, displays, run.texts) for loc in locations)
    ):
        return None
    findings = [
        Finding(
            f.rule,
            Severity(f.severity),
            f.message,
            _location(f.location),
            tuple(_location(r) for r in f.related),
            f.suppressed,
        )
        for f in run.findings
    ]
    return CachedRun(findings, run.files_checked, list(run.skipped), dict(run.texts))


def _fits(location: _Location, displays: set[str], texts: dict[str, str]) -> bool:
    """In a file of this run, and (where its text is known) inside that text."""
    line, column, end_line, end_column = location.span
    if location.file not in displays or (end_line, end_column) < (line, column):
        return False
    text = texts.get(location.file)
    return text is None or end_line <= _most_lines(text)


def _most_lines(text: str) -> int:
    """An upper bound of the lines any reader finds in ``text`` (a position may sit one line
    past the last)."""
    return sum(text.count(c) for c in "\n\r\x85\u2028\u2029") + 2


def _location(record: _Location) -> Location:
    return Location(
        record.file, Span(*record.span), record.document, tuple(record.path), record.message
    )
