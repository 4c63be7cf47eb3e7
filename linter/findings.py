"""Findings: what a run reports. Plain frozen records; renderers turn them into text."""

from __future__ import annotations

import functools
import sys
from enum import Enum
from typing import Any, NamedTuple, TypeVar

from linter.load.positions import Path, Span
from linter.records import datarecord


class Severity(str, Enum):
    """Finding levels. The values are SARIF levels."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {Severity.NOTE: 1, Severity.WARNING: 2, Severity.ERROR: 3}


@datarecord(slots=True)  # a large run holds hundreds of thousands
class Location:
    """A place in a file: display path, span, and (when known) document and manifest path."""

    file: str
    span: Span
    document: int | None = None
    path: Path = ()
    message: str | None = None  # used on related locations ("the inference workload")
    # The path in the file as written, when the document was adapted from another format
    # (``spec.template.spec.containers[0].args[3]`` for ``spec.serving.maxContextTokens``).
    source_path: Path = ()

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled as its fields, and unpickled sharing its texts and paths (``_location``)."""
        return (
            _location,
            (self.file, self.span, self.document, self.path, self.message, self.source_path),
        )


@datarecord(slots=True)  # a large run holds hundreds of thousands
class Finding:
    """One problem. ``severity`` is None until the run resolves it (rule default, then the
    check's own, then configuration: :func:`linter.policy.selection.resolve_severity`); a check that
    declares its own severity sets it when the finding is made."""

    rule_id: str
    severity: Severity | None
    message: str
    location: Location
    related: tuple[Location, ...] = ()
    suppressed_reason: str | None = None
    fix: str | None = None
    #: The figures the check names (rule ``properties:``), for scripts: JSON and SARIF carry them.
    properties: tuple[tuple[str, str | int | float | bool], ...] = ()
    # matched an entry of the run's --baseline (then ``suppressed_reason`` names the file):
    # left out of the report's findings like a suppressed one, but counted, and in SARIF a
    # result with an external suppression
    baseline: bool = False

    def _values(self) -> tuple[Any, ...]:
        """Its fields' values, in the order ``__init__`` takes them."""
        return (
            self.rule_id,
            self.severity,
            self.message,
            self.location,
            self.related,
            self.suppressed_reason,
            self.fix,
            self.properties,
            self.baseline,
        )

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Pickled as its fields, and unpickled sharing its texts (``_finding``)."""
        return (_finding, self._values())

    def with_severity(self, severity: Severity) -> Finding:
        """This finding at ``severity`` (as ``dataclasses.replace`` makes it, without looking
        every field up by name: half of the time a run's findings took to finalise)."""
        rule_id, _, *rest = self._values()
        return Finding(rule_id, severity, *rest)

    @property
    def level(self) -> Severity:
        """The resolved severity (every finding a run returns has one)."""
        if self.severity is None:
            raise ValueError(f"{self.rule_id} finding reported before its severity was resolved")
        return self.severity

    @property
    def sort_key(self) -> tuple[str, int, int, str, str]:
        span = self.location.span
        return (self.location.file, span.line, span.column, self.rule_id, self.message)


# Worker results arrive in the parent one pickle per slice of files, so findings of other slices
# would each hold their own copy of what many findings share (a message, a fix, a file name, a
# path; a span, the related places, the figures): unpickled, equal ones are one object again.
# At 10,000 manifests 43,792 findings hold 34 spans, 28 tuples of related places and 943 of
# figures.


def _text(text: str | None) -> str | None:
    return None if text is None else sys.intern(text)


@functools.lru_cache(maxsize=4096)
def _path(path: Path) -> Path:
    """The first equal path seen (a tuple's parts are interned with it)."""
    return tuple(sys.intern(part) if isinstance(part, str) else part for part in path)


_Shared = TypeVar("_Shared")


@functools.lru_cache(maxsize=4096)
def _shared(value: _Shared) -> _Shared:
    """The first equal value seen."""
    return value


def _location(
    file: str, span: Span, document: int | None, path: Path, message: str | None, source: Path
) -> Location:
    return Location(
        sys.intern(file), _shared(span), document, _path(path), _text(message), _path(source)
    )


def _finding(
    rule_id: str,
    severity: Severity | None,
    message: str,
    location: Location,
    related: tuple[Location, ...],
    suppressed_reason: str | None,
    fix: str | None,
    properties: tuple[tuple[str, str | int | float | bool], ...],
    baseline: bool,
) -> Finding:
    return Finding(
        sys.intern(rule_id),
        severity,
        sys.intern(message),
        location,
        _shared(related),
        suppressed_reason,
        _text(fix),
        _shared(properties),
        baseline,
    )


#: A file that is a template (GL010): one note, at its first placeholder.
TEMPLATE_RULE = "GL010"


def template_note(
    location: Location,
    placeholder: str,
    where: str,
    parsed: bool = True,
    renderer: str | None = None,
) -> Finding:
    """The GL010 note at a template's first placeholder: ``placeholder`` as written
    (``{{ .Values.gpus }}``, ``${IMAGE}``, ``$NUM_NODES``) and ``where`` it stands; the fix names
    the renderer its syntax belongs to (or ``renderer``, when the caller knows it), and, when the
    file ``parsed`` (the placeholder is a value), the ``assume:`` block that can give the value
    instead."""
    if renderer is None:
        renderer = "helm template CHART" if placeholder.startswith("{") else "envsubst < FILE"
    message = f"this file is a template ({placeholder}): gpulint lints what renders it"
    fix = f"lint the rendered output instead: {renderer} | gpulint check -"
    if parsed:
        fix += " (or give the values in an `assume:` block of .gpulint.yaml)"
    fix += f"; {placeholder} {where}"
    return Finding(TEMPLATE_RULE, None, message, location, fix=fix)


def first_template_note(findings: list[Finding]) -> list[Finding]:
    """``findings`` with only the first GL010 note of each file: a template is said once."""
    first: dict[str, Finding] = {}
    for note in sorted((f for f in findings if f.rule_id == TEMPLATE_RULE), key=_position):
        first.setdefault(note.location.file, note)
    kept = {id(note) for note in first.values()}
    return [f for f in findings if f.rule_id != TEMPLATE_RULE or id(f) in kept]


def _position(finding: Finding) -> tuple[str, int, int]:
    return finding.sort_key[:3]


class Skipped(NamedTuple):
    """A file that was not linted, and why (said on stderr and in the report)."""

    file: str
    reason: str
