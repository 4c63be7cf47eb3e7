"""What a run reads: candidate files, bounded, with the hash of the bytes read.

The bytes hashed for a result's key are the bytes that are parsed and linted: a file edited
while gpulint runs can change the result, but never store one content's result under another
content's key. With a result cache, every file is first read and hashed to look its result up
(``Hashed``, which keeps no bytes), and a file whose result is not there is read again where it
is linted.

A Terraform file means what its module says: a variable's default in ``variables.tf``, a value
in ``terraform.tfvars``. So a ``.tf`` candidate is read with its *companions*, the module's other
files in its folder (``linter.load.terraform.is_module_file``; at most ``MAX_COMPANIONS`` of
them and ``max_bytes`` in all), and their names and bytes are in its hash: editing
``variables.tf`` is another key for every file of the module, while findings stay in the file
that declares each resource.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

from linter.load import DEFAULT_MAX_BYTES, Refusal, read_bounded, syntax_of
from linter.load.discovery import PathCandidate
from linter.records import datarecord

#: Most other files of a Terraform module read with one of its files.
MAX_COMPANIONS = 64

Companions = tuple[tuple[str, bytes], ...]


@datarecord
class Source:
    """A candidate as read: the bytes hashed for its result's key are the bytes linted."""

    candidate: PathCandidate
    content: bytes | Refusal
    digest: bytes
    #: The other files of its Terraform module (name in the folder, bytes).
    companions: Companions = ()

    @property
    def line_count(self) -> int:
        """Lines of the file's text (1 for one that was not read)."""
        content = self.content
        return content.count(b"\n") + 1 if isinstance(content, bytes) else 1


def read_source(candidate: PathCandidate, max_bytes: int = DEFAULT_MAX_BYTES) -> Source:
    """Read one candidate (bounded, links kept inside its repository) and hash what was read,
    with its module's other files for a Terraform file."""
    if candidate.content is not None:
        return source_of(candidate, candidate.content)
    content = read_bounded(candidate.location, max_bytes, candidate.boundary)
    companions: Companions = ()
    if syntax_of(candidate.location) == "hcl" and isinstance(content, bytes):
        companions = read_companions(candidate, max_bytes)
    return source_of(candidate, content, companions)


def companion_names(folder_names: Sequence[str], own: str) -> list[str]:
    """The names of a module's other files among a folder's, in the order they are read."""
    # imported here: the Terraform reader (HCL lexer, evaluator) is needed only by a run that
    # reads a .tf file, and costs a one-file YAML run's start-up otherwise
    from linter.load.terraform import is_module_file

    return sorted(name for name in folder_names if name != own and is_module_file(name))


def read_companions(candidate: PathCandidate, max_bytes: int) -> Companions:
    """The other files of the candidate's module, bounded like the file itself and together
    at most ``max_bytes``; one that cannot be read is left out."""
    folder, own = os.path.split(candidate.location)
    try:
        with os.scandir(folder or ".") as entries:
            names = [entry.name for entry in entries if entry.is_file()]
    except OSError:
        return ()
    out: list[tuple[str, bytes]] = []
    left = max_bytes
    for name in companion_names(names, own)[:MAX_COMPANIONS]:
        content = read_bounded(os.path.join(folder, name), left, candidate.boundary)
        if isinstance(content, bytes):
            out.append((name, content))
            left -= len(content)
    return tuple(out)


def read_sources(
    candidates: Sequence[PathCandidate], max_bytes: int = DEFAULT_MAX_BYTES
) -> list[Source]:
    """Read every candidate (see :func:`read_source`)."""
    return [read_source(candidate, max_bytes) for candidate in candidates]


def source_of(
    candidate: PathCandidate, content: bytes | Refusal, companions: Companions = ()
) -> Source:
    """A candidate with what reading it gave, however it was read (from disk, standard input, or
    a git revision by ``linter.costs.git_tree``)."""
    if isinstance(content, Refusal):
        digest = hashlib.sha256(b"refused\0" + content.message().encode()).digest()
        return Source(candidate, content, digest)
    hashed = hashlib.sha256(b"read\0" + content)
    for name, other in companions:
        encoded = name.encode("utf-8", "surrogateescape")
        hashed.update(b"\0companion\0%d\0%s\0%d\0" % (len(encoded), encoded, len(other)))
        hashed.update(other)
    return Source(candidate, content, hashed.digest(), companions)


@datarecord(slots=True)
class Hashed:
    """A candidate as read to look up the result cache, without its bytes: a run over
    unchanged files never holds them all."""

    candidate: PathCandidate
    digest: bytes
    line_count: int  # what a restored result's positions are checked against

    @classmethod
    def of(cls, source: Source) -> Hashed:
        return cls(source.candidate, source.digest, source.line_count)

    @property
    def key(self) -> str:
        """The key its result is cached under (``FileResult.key`` of the same bytes)."""
        return file_key(self.candidate.display, self.candidate.explicit, self.digest)


@datarecord(slots=True)
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
