"""What a run reads: candidate files, bounded, with the hash of the bytes read.

The bytes hashed for a result's key are the bytes that are parsed and linted: a file edited
while gpulint runs can change the result, but never store one content's result under another
content's key. With a result cache, every file is first read and hashed to look its result up
(``Hashed``, which keeps no bytes), and a file whose result is not there is read again where it
is linted.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from linter.load import DEFAULT_MAX_BYTES, Refusal, read_bounded
from linter.load.discovery import Candidate


@dataclass(frozen=True)
class Source:
    """A candidate as read: the bytes hashed for its result's key are the bytes linted."""

    candidate: Candidate
    content: bytes | Refusal
    digest: bytes

    @property
    def line_count(self) -> int:
        """Lines of the file's text (1 for one that was not read)."""
        content = self.content
        return content.count(b"\n") + 1 if isinstance(content, bytes) else 1


def read_source(candidate: Candidate, max_bytes: int = DEFAULT_MAX_BYTES) -> Source:
    """Read one candidate (bounded, links kept inside its repository) and hash what was read."""
    content = (
        read_bounded(candidate.location, max_bytes, candidate.boundary)
        if candidate.content is None
        else candidate.content
    )
    return source_of(candidate, content)


def read_sources(
    candidates: Sequence[Candidate], max_bytes: int = DEFAULT_MAX_BYTES
) -> list[Source]:
    """Read every candidate (see :func:`read_source`)."""
    return [read_source(candidate, max_bytes) for candidate in candidates]


def source_of(candidate: Candidate, content: bytes | Refusal) -> Source:
    """A candidate with what reading it gave, however it was read (from disk, standard input, or
    a git revision by ``linter.costs.revision``)."""
    if isinstance(content, Refusal):
        digest = hashlib.sha256(b"refused\0" + content.message().encode()).digest()
        return Source(candidate, content, digest)
    return Source(candidate, content, hashlib.sha256(b"read\0" + content).digest())


@dataclass(frozen=True, slots=True)
class Hashed:
    """A candidate as read to look up the result cache, without its bytes: a run over
    unchanged files never holds them all."""

    candidate: Candidate
    digest: bytes
    line_count: int  # what a restored result's positions are checked against

    @classmethod
    def of(cls, source: Source) -> Hashed:
        return cls(source.candidate, source.digest, source.line_count)

    @property
    def key(self) -> str:
        """The key its result is cached under (``FileResult.key`` of the same bytes)."""
        return file_key(self.candidate.display, self.candidate.explicit, self.digest)


@dataclass(frozen=True, slots=True)
class FileRead:
    """A file a result read besides the file linted (a workload's ``model.config``), as it is
    read: the path opened, the folder a link in it must resolve inside (None: anywhere) and the
    size limit. A result depends on its bytes, so a report kept for the result is used only
    while :func:`read_digest` of it is unchanged."""

    path: str
    root: str | None
    limit: int

    def read(self) -> bytes | Refusal:
        return read_bounded(self.path, self.limit, None if self.root is None else Path(self.root))


def read_digest(read: FileRead) -> str:
    """The hash of what reading ``read`` gives now (bytes, or why it was refused)."""
    content = read.read()
    if isinstance(content, Refusal):
        return hashlib.sha256(b"refused\0" + content.message().encode()).hexdigest()
    return hashlib.sha256(b"read\0" + content).hexdigest()


def file_key(display: str, explicit: bool, digest: bytes) -> str:
    """What a file's result is kept under: its display path, whether it was named, and the hash
    of the bytes linted (an edit of any kind is another key)."""
    return f"{display}\0{explicit}\0{digest.hex()}"
