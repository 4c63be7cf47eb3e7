"""What the first pass keeps of one file: everything the rest of the run needs, and nothing
else (no text, no parsed document), as plain data that the result cache can store.

A :class:`FileResult` is independent of every other file, so an unchanged file's result is
reused from the cache as it is; what depends on other files (run-wide facts and the rules that
read them) is recomputed from the results' records and wide parts in the second pass.

In the cache a result is two parts: its own findings, suppressions and lines (``to_json``,
compact: findings are arrays whose texts are numbers in a :class:`Strings` table shared by the
whole entry, since many workloads share a message), and what the run-wide rules need of it
(``wide_to_json``: records and wide parts), stored apart and read only when those rules
must run again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from typing import Any

from linter.cache.packed import Chunk, pack
from linter.findings import Finding, Location, Severity
from linter.load.positions import Path, Span, format_path, parse_path
from linter.load.sources import FileRead, file_key
from linter.records import datarecord
from linter.run.suppressions import Suppression
from linter.run.wide_parts import WidePart

#: A line's SARIF fingerprint (None when unknown) and its text, whitespace collapsed (baselines).
LineInfo = tuple[str | None, str]
#: Why a file was not linted (``FileResult.skipped``; the report's skipped list).
NOTHING_OURS = "no document of a format gpulint reads"
A_TEMPLATE = "a template that is YAML only once rendered; lint what renders it"
SKIP_REASONS = (NOTHING_OURS, A_TEMPLATE)
#: (display path, document, part) and what each run-wide provider recorded of that manifest.
Record = tuple[tuple[str, int, int], dict[str, Any]]


@datarecord(frozen=False, slots=True)
class WideParts:
    """What the run-wide rules need of one file: what its manifests recorded for the run-wide
    facts, and their wide parts."""

    records: list[Record] = field(default_factory=list)
    deferred: list[WidePart] = field(default_factory=list)


#: A file's wide parts once packed with other files' (linter/cache/packed.py): chunk and number.
PackedParts = tuple[Chunk, int]


@datarecord(frozen=False, slots=True)  # a run holds one per file until it ends
class FileResult:
    display: str
    explicit: bool
    checked: bool = False  # read as one of ours (counts in "N files")
    skipped: str | None = (
        None  # why it was not linted: an explicit file of nothing of ours, a template
    )
    # Tuples, set once a file is done: a run holds every file's result, and most have no
    # finding, suppression, line or file read, so most hold the one empty tuple (as empty lists
    # and a dict they were about 230 of the 700 bytes a finding-free result held in the parent).
    findings: tuple[Finding, ...] = ()  # before suppressions and severities
    suppressions: tuple[Suppression, ...] = ()
    wide: WideParts | PackedParts = field(default_factory=WideParts)
    lines: tuple[tuple[int, LineInfo], ...] = ()  # (line, info) in order of line
    # The other files the result read (a model.config), each with the digest of its bytes then
    # (linter/facts/files_read.py): such a result is not cached, and a report of it is kept with
    # them.
    reads: tuple[tuple[FileRead, str], ...] = ()
    line_count: int = 1  # of the file's text: positions beyond it are not believed
    cached: bool = False  # restored from the result cache (records and wide parts apart)
    digest: bytes = b""  # of the bytes linted (linter/load/sources.py)

    @property
    def cacheable(self) -> bool:
        """Whether the result depends on nothing but the file's bytes (and the run's key)."""
        return not self.reads

    @property
    def key(self) -> str:
        """What the result cache stores it under: display path, whether it was named, and the
        hash of the bytes linted (an edit of any kind is another key)."""
        return file_key(self.display, self.explicit, self.digest)

    def wide_parts(self) -> WideParts:
        """Its records and wide parts, unpacked if they were packed (``pack_wide``)."""
        if isinstance(self.wide, WideParts):
            return self.wide
        chunk, number = self.wide
        parts: WideParts = chunk.items()[number]
        return parts

    def to_json(self, strings: Strings) -> dict[str, Any]:
        """The file's own part, its texts numbered in ``strings``."""
        return {
            "checked": self.checked,
            "skipped": self.skipped,
            "findings": [encode_finding(f, strings) for f in self.findings],
            "suppressions": [
                [s.line, s.column, s.end_column, list(s.rule_ids), s.reason]
                for s in self.suppressions
            ],
            "lines": {str(line): list(info) for line, info in self.lines},
        }

    def wide_to_json(self) -> dict[str, Any]:
        """What the run-wide rules need of the file."""
        parts = self.wide_parts()
        return {
            "records": [[list(target), record] for target, record in parts.records],
            "deferred": [d.to_json() for d in parts.deferred],
        }

    @classmethod
    def from_json(
        cls,
        data: Mapping[str, Any],
        strings: Strings,
        display: str,
        explicit: bool,
        line_count: int,
    ) -> FileResult:
        """A cached result for this file (its display path, and its text's line count to check
        positions against), without its records and wide parts (``restore_wide``); raises
        KeyError, TypeError or ValueError on anything doubtful."""
        findings = tuple(decode_finding(item, strings) for item in data["findings"])
        check_findings(findings, {display: line_count}, display)
        checked, skipped = data["checked"], data["skipped"]
        if not isinstance(checked, bool) or (skipped is not None and skipped not in SKIP_REASONS):
            raise TypeError("checked is true or false, skipped a known reason or null")
        return cls(
            display,
            explicit,
            checked,
            skipped,
            findings,
            tuple(
                Suppression(int(a), int(b), int(c), tuple(map(str, ids)), str(reason))
                for a, b, c, ids, reason in data["suppressions"]
            ),
            lines=tuple(  # through a dict: two keys of one number ("1", "01") keep the last
                {int(line): (info[0], str(info[1])) for line, info in data["lines"].items()}.items()
            ),
            line_count=line_count,
            cached=True,
        )

    def restore_wide(self, data: Mapping[str, Any]) -> None:
        """Its records and wide parts from ``wide_to_json`` data; raises KeyError,
        TypeError or ValueError on anything doubtful (and then changes nothing)."""
        records = [
            (_target(target, self.display), dict(record)) for target, record in data["records"]
        ]
        deferred = [WidePart.from_json(item) for item in data["deferred"]]
        if any(d.file != self.display for d in deferred):
            raise ValueError("a wide part of another file")
        self.wide = WideParts(records, deferred)


def pack_wide(results: Sequence[FileResult], consecutive: bool = False) -> None:
    """Pack the wide parts of ``results`` together: the run holds every file's until the
    second pass, and packed they take a few percent of the memory (linter/cache/packed.py).
    Results ``consecutive`` in the run have their records packed by provider too
    (:class:`WideChunk`)."""
    make = WideChunk if consecutive else Chunk
    packed_parts = pack([result.wide_parts() for result in results], make)
    for result, packed in zip(results, packed_parts, strict=True):
        result.wide = packed


class WideChunk(Chunk):
    """Consecutive files' wide parts, and the records their manifests made, packed again by
    provider: what the run's indices read (linter/facts/run.py). Made where the files were
    read (a worker, for a large run), they are taken whole into the index
    (:func:`linter.run.second_pass.run_wide_findings`): the run's own process unpacked every
    file's parts and packed the records again, some 18 ms of a run over 1,000 Kubernetes
    Deployments with a CPU idle (issue 31)."""

    __slots__ = ("files", "provider_records")

    def __init__(self, items: Sequence[WideParts]) -> None:
        from linter.facts.run import by_provider  # only once files are linted: facts are loaded

        super().__init__(items)
        self.files = len(items)
        found = by_provider(record for parts in items for record in parts.records)
        self.provider_records = {name: (Chunk(made), len(made)) for name, made in found.items()}


def _target(raw: Any, display: str) -> tuple[str, int, int]:
    file, document, part = raw
    if file != display:
        raise ValueError("a record of another file")
    return (str(file), int(document), int(part))


class Strings:
    """The texts of a cache entry (messages, fixes, paths, file names), each stored once and
    referred to by number."""

    def __init__(self, texts: Iterable[str] = ()) -> None:
        self.texts = list(texts)
        if not all(isinstance(text, str) for text in self.texts):
            raise TypeError("the strings of an entry are strings")
        self._numbers = {text: number for number, text in enumerate(self.texts)}

    def number(self, text: str | None) -> int | None:
        if text is None:
            return None
        found = self._numbers.get(text)
        if found is None:
            found = self._numbers[text] = len(self.texts)
            self.texts.append(text)
        return found

    def text(self, number: Any) -> str | None:
        """The text numbered ``number`` (None for None); ValueError for any other number."""
        if number is None:
            return None
        if type(number) is not int or not 0 <= number < len(self.texts):
            raise ValueError("not a string of this entry")
        return self.texts[number]

    def path(self, number: Any) -> Path:
        """The path whose text is numbered ``number``."""
        text = self.text(number)
        return () if text is None else parse_path(text)


def encode_finding(finding: Finding, strings: Strings) -> list[Any]:
    return [
        finding.rule_id,
        None if finding.severity is None else finding.severity.value,
        strings.number(finding.message),
        strings.number(finding.fix),
        _encode_location(finding.location, strings),
        [_encode_location(related, strings) for related in finding.related],
        strings.number(finding.suppressed_reason),
        [[name, value] for name, value in finding.properties],
    ]


def decode_finding(data: Sequence[Any], strings: Strings) -> Finding:
    """Inverse of :func:`encode_finding`; raises KeyError, TypeError or ValueError on data of
    another shape."""
    rule_id, severity, message, fix, location, related, suppressed, properties = data
    if not isinstance(rule_id, str):
        raise TypeError("a rule id is a string")
    return Finding(
        rule_id,
        None if severity is None else Severity(severity),
        _required(strings.text(message)),
        _decode_location(location, strings),
        tuple(_decode_location(item, strings) for item in related),
        strings.text(suppressed),
        strings.text(fix),
        tuple(_property(item) for item in properties),
    )


def _property(item: Any) -> tuple[str, str | int | float | bool]:
    name, value = item
    if not isinstance(name, str) or not isinstance(value, str | int | float | bool):
        raise TypeError("a finding property is a name and a number, flag or text")
    return name, value


def check_findings(
    findings: Sequence[Finding], line_counts: Mapping[str, int], own: str | None = None
) -> None:
    """Findings read back must be on ``own`` file (or, without one, on a file of the run), with
    every location on a file of the run (``line_counts``: each one's line count) and every span
    one, within its file; raises ValueError if not."""
    for finding in findings:
        if own is not None and finding.location.file != own:
            raise ValueError("a finding on another file")
        for location in (finding.location, *finding.related):
            span = location.span
            count = line_counts.get(location.file)
            if count is None:
                raise ValueError("a location on a file outside the run")
            if min(span.line, span.column) < 1 or (span.end_line, span.end_column) < (
                span.line,
                span.column,
            ):
                raise ValueError("not a span")
            if span.end_line > count + 1:
                raise ValueError("a position beyond the end of the file")


def _encode_location(location: Location, strings: Strings) -> list[Any]:
    span = location.span
    return [
        strings.number(location.file),
        span.line,
        span.column,
        span.end_line,
        span.end_column,
        location.document,
        strings.number(format_path(location.path)) if location.path else None,
        strings.number(format_path(location.source_path)) if location.source_path else None,
        strings.number(location.message),
    ]


def _decode_location(data: Sequence[Any], strings: Strings) -> Location:
    file, line, column, end_line, end_column, document, path, source_path, message = data
    numbers = (line, column, end_line, end_column)
    if not all(type(n) is int for n in numbers) or not (document is None or type(document) is int):
        raise TypeError("positions are integers")
    return Location(
        _required(strings.text(file)),
        Span(line, column, end_line, end_column),
        document,
        strings.path(path),
        strings.text(message),
        strings.path(source_path),
    )


def _required(text: str | None) -> str:
    if text is None:
        raise ValueError("a required text is missing")
    return text
