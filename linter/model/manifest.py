"""The normalised unit everything after the adapters works on: one validated document of a
gpulint kind (``Workload``, ``QuotaLedger``, ``CapacityLimit``), whichever format it was read
from."""

from dataclasses import field
from pathlib import Path
from typing import Any

from linter.declared import Record
from linter.findings import Location
from linter.load.positions import Path as ManifestPath
from linter.load.positions import SourceMap
from linter.load.sources import FileRead
from linter.model.provenance import IDENTITY, Provenance
from linter.records import datarecord


@datarecord
class Manifest:
    """A normalised document with everything needed to point back into the file it came from.

    ``index`` is the document's number in its file; ``part`` tells apart several workloads one
    document yields (a values file with two models). ``data`` is the normalised document as plain
    data (camelCase, like the manifest format); ``model`` its validated record (linter/model).
    """

    file: str
    fs_path: Path
    index: int
    kind: str
    data: dict[str, Any]
    model: Record
    source_map: SourceMap
    format: str = "gpulint"
    source_kind: str | None = None  # the original kind: Deployment, SkyPilot task, ...
    part: int = 0
    provenance: Provenance = field(default=IDENTITY)
    #: Files the adapter read besides the file linted (a DeepSpeed config in the repository).
    reads: tuple[FileRead, ...] = ()

    @property
    def name(self) -> str:
        return str(self.data["metadata"]["name"])

    def location(self, path: ManifestPath, message: str | None = None) -> Location:
        span, original = self.provenance.locate(path, self.source_map)
        return Location(self.file, span, self.index, path, message, original)

    def present(self, path: ManifestPath) -> bool:
        """Whether the normalised document has ``path`` (findings point at the first present
        alternative of a rule's path)."""
        return has_path(self.data, path)

    def assumed(self) -> list[tuple[ManifestPath, str]]:
        """The values configuration supplied, with the note saying so."""
        return [(path, origin.note or "assumed") for path, origin in self.provenance.assumed()]


ABSENT = object()


def child(node: Any, part: str | int) -> Any:
    """``node[part]`` in a document (a mapping key or a list index), or ABSENT."""
    if isinstance(node, dict) and isinstance(part, str):
        return node.get(part, ABSENT)
    if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
        return node[part]
    return ABSENT


def value_at(data: Any, path: ManifestPath) -> Any:
    """The value at ``path`` in a document, or ABSENT."""
    for part in path:
        data = child(data, part)
        if data is ABSENT:
            return ABSENT
    return data


def has_path(data: Any, path: ManifestPath) -> bool:
    return value_at(data, path) is not ABSENT
