"""What an input format is: recognise its documents, validate them in its own vocabulary, and
map each to normalised manifests with provenance."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from linter.findings import Finding
from linter.load import Document
from linter.model.manifest import Manifest
from linter.records import datarecord

if TYPE_CHECKING:
    from linter.model.assumptions import Assumption


@datarecord
class InputFile:
    """The file a document came from, as adapters need it."""

    display: str  # path as reports show it
    fs_path: Path
    text: str  # the whole file, to locate arguments inside scalars
    #: What the configuration's ``assume:`` blocks say about this file
    #: (linter/model/assumptions.py).
    assumptions: tuple[Assumption, ...] = ()


@datarecord(frozen=False)
class Adapted:
    """What one document yields: normalised manifests, and findings about the document itself
    (problems in the format's own vocabulary, at the format's own lines)."""

    manifests: list[Manifest] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


class Format(Protocol):
    """One input format. Implementations are plain modules or objects listed in
    ``linter.formats.FORMATS``; they hold no state between documents."""

    #: Short name shown in ``gpulint facts`` and ``convert`` (``kubernetes``, ``skypilot``).
    name: str
    #: Byte strings of which a document of this format must contain at least one (as a key or
    #: value) when written without escapes; see ``linter.formats.MARKERS``.
    markers: tuple[bytes, ...]

    def recognises(self, data: Mapping[str, Any], source: InputFile) -> bool:
        """Is this parsed document one of this format's (on the data, never the bytes)?"""
        ...

    def claims(self, text: str) -> bool:
        """Should a file with this text that fails to parse be reported (its text says it is one
        of this format's), rather than skipped as someone else's broken YAML?"""
        ...

    def adapt(self, document: Document, source: InputFile) -> Adapted:
        """Validate and normalise one recognised document."""
        ...
