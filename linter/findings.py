"""Findings: what a run reports. Plain frozen records; renderers turn them into text."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from linter.load.positions import Path, Span


class Severity(str, Enum):
    """Finding levels. The values are SARIF levels."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {Severity.NOTE: 1, Severity.WARNING: 2, Severity.ERROR: 3}


@dataclass(frozen=True)
class Location:
    """A place in a file: display path, span, and (when known) document and manifest path."""

    file: str
    span: Span
    document: int | None = None
    path: Path = ()
    message: str | None = None  # used on related locations ("the inference workload")


@dataclass(frozen=True)
class Finding:
    rule_id: str
    severity: Severity
    message: str
    location: Location
    related: tuple[Location, ...] = ()
    suppressed_reason: str | None = None

    @property
    def sort_key(self) -> tuple[str, int, int, str, str]:
        span = self.location.span
        return (self.location.file, span.line, span.column, self.rule_id, self.message)
