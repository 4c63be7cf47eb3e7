"""The rendered report of a run, kept for the next run over the same files with the same output.

A run whose files are all unchanged would otherwise restore every finding, apply suppressions
and severities and render them again, only to print what it printed last time: at 10,000
manifests with 46,599 findings that was most of a warm run's time and memory. The report is
kept under the run's key (linter/run/result_key.py: version, rules, configuration, selection), the
digest of the run's file keys (display path and content hash of each file, in order) and the
output's own key (format and the options that change its bytes), beside what the command needs
besides the text: the renderer's warnings, the rank of the most severe unsuppressed finding (for
the exit status) and the files checked and skipped. An unchanged run is then discovery, reading
and hashing, and the kept text: authenticated and checked in pieces, then printed in pieces, so
that its memory does not grow with the report.

A result may also depend on files that are not among those linted: a workload's
``model.config`` (``linter/facts/files_read.py``). The head records each such file as it was read,
with the digest of its bytes, and a kept report is used only while every one still reads the
same; what discovery left out (excluded files, folders too deep, charts' templates) is part of
the files' digest.

Runs whose output depends on more than that are never kept: a baseline, a cost base, standard
input, colour.
"""

from __future__ import annotations

import codecs
import hashlib
import json
from collections.abc import Iterable, Iterator
from typing import BinaryIO

from linter.atomic_file import pieces_of
from linter.findings import Skipped
from linter.load.sources import FileRead, read_digest
from linter.records import datarecord
from linter.run.result_cache import ResultCache

#: An entry is the length of its head in this many decimal digits, the head (JSON: everything
#: but the text) and the text.
_SIZE = 10


#: How much of a kept report's text is read and printed at a time.
_PIECE = 1024 * 1024
#: The most a head (warnings, counts, skipped files) may take.
_MAX_HEAD = 64 * 1024 * 1024


class KeptText:
    """A kept report's text, read in pieces from its entry as it is printed: a 20,000-file
    report is about 84 MB, and printing it never holds it. Every byte was authenticated and
    decoded as UTF-8 before the first one is printed (``ReportSlot.get``)."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream

    def __iter__(self) -> Iterator[bytes]:
        try:
            while piece := self._stream.read(_PIECE):
                yield piece
        finally:
            self._stream.close()


@datarecord
class KeptReport:
    # The report's text, UTF-8: bytes, or its pieces held (what ``ReportSlot.put`` keeps), or
    # read once: a kept one from its entry, a new one as it is rendered; neither is held whole.
    data: bytes | tuple[bytes, ...] | Iterable[bytes]
    warnings: tuple[str, ...]
    worst: int | None  # rank of the most severe unsuppressed finding; None without any
    files_checked: int
    skipped: tuple[Skipped, ...]
    reads: tuple[tuple[FileRead, str], ...] = ()  # other files read, with their digests then

    def pieces(self) -> Iterable[bytes]:
        """The text's bytes, in order."""
        return pieces_of(self.data)


class ReportSlot:
    """Where one run's report is kept: the run's key, its files and its output options."""

    def __init__(self, cache: ResultCache, run_key: str, files: str, output: str) -> None:
        self._cache = cache
        self._key = hashlib.sha256(f"{run_key}\0report\0{files}\0{output}".encode()).hexdigest()

    def get(self) -> KeptReport | None:
        """The kept report; None on a miss or anything doubtful (the entry is authentic, and
        still checked like input: all of it must be UTF-8 and its head what ``put`` writes)."""
        decoder = codecs.getincrementaldecoder("utf-8")()
        stream = self._cache.open_large(self._key, decoder.decode)
        if stream is None:
            return None
        try:
            decoder.decode(b"", final=True)
            size = _count(int(stream.read(_SIZE).decode("ascii")))
            if size > _MAX_HEAD:
                raise ValueError("a head larger than any written")
            meta = json.loads(stream.read(size))
            reads = tuple(_read(entry) for entry in meta["reads"])
            if any(read_digest(read) != digest for read, digest in reads):
                stream.close()
                return None  # a file the results read changed: lint again
            return KeptReport(
                KeptText(stream),
                tuple(map(_text, meta["warnings"])),
                None if meta["worst"] is None else _count(meta["worst"]),
                _count(meta["filesChecked"]),
                tuple(Skipped(_text(file), _text(reason)) for file, reason in meta["skipped"]),
                reads,
            )
        except (KeyError, TypeError, ValueError, RecursionError):
            stream.close()
            return None

    def put(self, report: KeptReport) -> None:
        """Keep ``report``, whose text is held (bytes or their pieces)."""
        if not isinstance(report.data, bytes | tuple):  # read once: it came from here
            return
        meta = {
            "warnings": list(report.warnings),
            "worst": report.worst,
            "filesChecked": report.files_checked,
            "skipped": [list(skipped) for skipped in report.skipped],
            "reads": [[read.path, read.root, read.limit, digest] for read, digest in report.reads],
        }
        head = json.dumps(meta, separators=(",", ":")).encode()
        size = f"{len(head):0{_SIZE}d}".encode()
        self._cache.put_large(self._key, (size + head, *pieces_of(report.data)))


def _read(entry: object) -> tuple[FileRead, str]:
    """A file read, as ``put`` writes it: path, root (or null), limit, digest."""
    if not isinstance(entry, list) or len(entry) != 4:
        raise TypeError("a file read")
    path, root, limit, digest = entry
    return FileRead(_text(path), None if root is None else _text(root), _count(limit)), _text(
        digest
    )


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("a text")
    return value


def _count(value: object) -> int:
    if type(value) is not int or value < 0:
        raise ValueError("a count")
    return value
