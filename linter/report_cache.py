"""The rendered report of a run, kept for the next run over the same files with the same output.

A run whose files are all unchanged would otherwise restore every finding, apply suppressions
and severities and render them again, only to print what it printed last time: at 10,000
manifests with 46,599 findings that was most of a warm run's time and memory. The report is
kept under the run's key (linter/run_record.py: version, rules, configuration, selection), the
digest of the run's file keys (display path and content hash of each file, in order) and the
output's own key (format and the options that change its bytes), beside what the command needs
besides the text: the renderer's warnings, the rank of the most severe unsuppressed finding (for
the exit status) and the files checked and skipped. An unchanged run is then discovery, reading
and hashing, and one authenticated read.

Runs whose output depends on more than that are never kept: a baseline, a cost base, standard
input, colour.
"""

from __future__ import annotations

import codecs
import hashlib
import json
from dataclasses import dataclass

from linter.cache import ResultCache

#: An entry is the length of its head in this many decimal digits, the head (JSON: everything
#: but the text) and the text.
_SIZE = 10


@dataclass(frozen=True)
class KeptReport:
    data: bytes | memoryview  # the report's text, UTF-8: tens of megabytes are not decoded
    warnings: tuple[str, ...]
    worst: int | None  # rank of the most severe unsuppressed finding; None without any
    files_checked: int
    skipped: tuple[str, ...]


class ReportSlot:
    """Where one run's report is kept: the run's key, its files and its output options."""

    def __init__(self, cache: ResultCache, run_key: str, files: str, output: str) -> None:
        self._cache = cache
        self._key = hashlib.sha256(f"{run_key}\0report\0{files}\0{output}".encode()).hexdigest()

    def exists(self) -> bool:
        """Whether a report may be kept (cheap: the caller frees what it holds before ``get``)."""
        return self._cache.has(self._key)

    def get(self) -> KeptReport | None:
        """The kept report; None on a miss or anything doubtful (the entry is authentic, and
        still checked like input)."""
        payload = self._cache.get_bytes(self._key)
        if payload is None:
            return None
        try:
            size = int(bytes(payload[:_SIZE]).decode("ascii"))
            meta = json.loads(bytes(payload[_SIZE : _SIZE + size]))
            return KeptReport(
                _utf8(payload[_SIZE + size :]),
                tuple(map(_text, meta["warnings"])),
                None if meta["worst"] is None else _count(meta["worst"]),
                _count(meta["filesChecked"]),
                tuple(map(_text, meta["skipped"])),
            )
        except (KeyError, TypeError, ValueError, RecursionError):
            return None

    def put(self, report: KeptReport) -> None:
        meta = {
            "warnings": list(report.warnings),
            "worst": report.worst,
            "filesChecked": report.files_checked,
            "skipped": list(report.skipped),
        }
        head = json.dumps(meta, separators=(",", ":")).encode()
        size = f"{len(head):0{_SIZE}d}".encode()
        self._cache.put_bytes(self._key, size + head + bytes(report.data))


def _utf8(data: memoryview) -> memoryview:
    """``data`` if it is UTF-8 (checked in slices, without a decoded copy of the whole)."""
    step = 1 << 20
    decoder = codecs.getincrementaldecoder("utf-8")()
    for start in range(0, len(data), step):
        decoder.decode(data[start : start + step])
    decoder.decode(b"", final=True)
    return data


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("a text")
    return value


def _count(value: object) -> int:
    if type(value) is not int or value < 0:
        raise ValueError("a count")
    return value
