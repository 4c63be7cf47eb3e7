"""Baselines for gradual adoption: record today's findings, report only new ones from then on.

A finding is keyed by rule id, file and a hash of what it points at: the text of its line with
whitespace collapsed, plus its manifest path. Line numbers are left out, so adding or removing
lines elsewhere in the file does not turn old findings into new ones; editing the offending line
does. Files are recorded relative to the baseline file's folder, so the baseline reads the same
from any working directory. Equal keys are counted: two identical findings in one file need two
entries.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from linter.findings import Finding
from linter.load.positions import format_path
from linter.records import datarecord

VERSION = 1
MAX_BYTES = 32 * 1024 * 1024  # about 100,000 entries
Key = tuple[str, str, str]  # rule id, file, content hash


class BaselineError(Exception):
    """A baseline file that cannot be read or is not a gpulint baseline."""


@datarecord
class BaselineEntry:
    rule_id: str
    file: str
    hash: str
    path: str  # the manifest path, for people reading the file or the stale list
    message: str

    @property
    def key(self) -> Key:
        return (self.rule_id, self.file, self.hash)


@datarecord
class BaselineComparison:
    new: list[Finding]  # not in the baseline: reported
    known: list[Finding]  # in the baseline: hidden
    stale: list[BaselineEntry]  # in the baseline, no longer found


def content_hash(line_text: str, manifest_path: str) -> str:
    normalised = " ".join(line_text.split())
    digest = hashlib.sha256(f"{normalised}\n{manifest_path}".encode()).hexdigest()
    return digest[:16]


def relative_file(display: str, base: Path, anchor: Path) -> str:
    """A display path (relative to ``base``, or absolute) as a POSIX path relative to ``anchor``,
    the baseline file's folder; absolute when it lies elsewhere on another drive."""
    absolute = os.path.normpath(base / display)
    try:
        return Path(os.path.relpath(absolute, anchor)).as_posix()
    except ValueError:
        return Path(absolute).as_posix()


#: display path -> line -> (fingerprint, the line's text with whitespace collapsed)
Lines = Mapping[str, Mapping[int, tuple[str | None, str]]]


def entry(finding: Finding, lines: Lines, base: Path, anchor: Path) -> BaselineEntry:
    location = finding.location
    info = lines.get(location.file, {}).get(location.span.line)
    line = info[1] if info else ""
    path = format_path(location.path)
    return BaselineEntry(
        finding.rule_id,
        relative_file(location.file, base, anchor),
        content_hash(line, path),
        path,
        finding.message,
    )


def compare(
    findings: Iterable[Finding],
    baseline: Sequence[BaselineEntry],
    lines: Lines,
    base: Path,
    anchor: Path,
) -> BaselineComparison:
    """Split unsuppressed findings into new and known (suppressed ones are neither), and list
    the baseline entries nothing matched."""
    remaining = Counter(e.key for e in baseline)
    new, known = [], []
    for finding in findings:
        if finding.suppressed_reason is not None:
            continue
        key = entry(finding, lines, base, anchor).key
        if remaining[key] > 0:
            remaining[key] -= 1
            known.append(finding)
        else:
            new.append(finding)
    stale = []
    for item in baseline:
        if remaining[item.key] > 0:
            remaining[item.key] -= 1
            stale.append(item)
    return BaselineComparison(new, known, stale)


def serialise(entries: Iterable[BaselineEntry]) -> str:
    ordered = sorted(entries, key=lambda e: (e.file, e.rule_id, e.path, e.hash, e.message))
    document = {
        "version": VERSION,
        "tool": "gpulint",
        "entries": [
            {
                "ruleId": e.rule_id,
                "file": e.file,
                "hash": e.hash,
                "path": e.path,
                "message": e.message,
            }
            for e in ordered
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def parse(text: str) -> list[BaselineEntry]:
    try:
        document: Any = json.loads(text)
    except json.JSONDecodeError as err:
        raise BaselineError(f"not JSON ({err.msg} at line {err.lineno})") from None
    if not isinstance(document, dict) or "version" not in document:
        raise BaselineError("not a gpulint baseline (no version field)")
    if document["version"] != VERSION:
        raise BaselineError(
            f"baseline version {document['version']!r} is not supported "
            f"(this gpulint reads version {VERSION})"
        )
    entries = document.get("entries")
    if not isinstance(entries, list):
        raise BaselineError("'entries' must be a list")
    out = []
    for number, item in enumerate(entries):
        fields = ("ruleId", "file", "hash", "path", "message")
        if not isinstance(item, dict) or not all(isinstance(item.get(f), str) for f in fields):
            raise BaselineError(f"entries[{number}] needs string fields {', '.join(fields)}")
        out.append(
            BaselineEntry(item["ruleId"], item["file"], item["hash"], item["path"], item["message"])
        )
    return out
