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

from linter.findings import Finding
from linter.policy.rule_file import RULE_ID
from linter.report.serialise import finding_from_dict, finding_to_dict
from linter.resources import package_stamp

FORMAT = 2

Position = Annotated[int, Field(ge=1)]


class _Record(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class _Location(_Record):
    """A location as linter/report/serialise.py writes it (the JSON report's shape)."""

    file: str = Field(min_length=1)
    line: Position
    column: Position
    end_line: Position = Field(alias="endLine")
    end_column: Position = Field(alias="endColumn")
    document: Annotated[int, Field(ge=0)] | None
    path: str | None
    source_path: str | None = Field(alias="sourcePath")
    message: str | None = None


class _Suppressed(_Record):
    reason: str


class _Finding(_Location):
    rule_id: str = Field(pattern=RULE_ID, alias="ruleId")
    rule_name: str | None = Field(alias="ruleName")
    severity: Literal["error", "warning", "note"]
    fix: str | None
    related: list[_Location]
    suppressed: _Suppressed | None


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


def to_entry(
    findings: Sequence[Finding], files_checked: int, skipped: Sequence[str], texts: dict[str, str]
) -> dict[str, Any]:
    """The entry for a run: findings, counts, skipped files and the texts of files with findings
    (for fingerprints and baselines)."""
    needed = {finding.location.file for finding in findings}
    return {
        "findings": [finding_to_dict(f, None) for f in findings],
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
    locations = [loc for f in run.findings for loc in (f, *f.related)]
    if (
        run.files_checked > len(displays)
        or not set(run.skipped) <= explicit
        or not set(run.texts) <= displays
        or any(f.rule_id not in known_rules for f in run.findings)
        or not all(_fits(loc, displays, run.texts) for loc in locations)
    ):
        return None
    try:
        findings = [finding_from_dict(item) for item in entry["findings"]]
    except (KeyError, TypeError, ValueError):  # a path that does not parse
        return None
    return CachedRun(findings, run.files_checked, list(run.skipped), dict(run.texts))


def _fits(location: _Location, displays: set[str], texts: dict[str, str]) -> bool:
    """In a file of this run, and (where its text is known) inside that text."""
    line, column = location.line, location.column
    end_line, end_column = location.end_line, location.end_column
    if location.file not in displays or (end_line, end_column) < (line, column):
        return False
    text = texts.get(location.file)
    return text is None or end_line <= _most_lines(text)


def _most_lines(text: str) -> int:
    """An upper bound of the lines any reader finds in ``text`` (a position may sit one line
    past the last)."""
    return sum(text.count(c) for c in "\n\r\x85\u2028\u2029") + 2
