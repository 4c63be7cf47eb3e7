"""The normalised unit everything after the adapters works on: one validated document of a
gpulint kind (``Workload``, ``QuotaLedger``, ``CapacityLimit``), whichever format it was read
from."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from linter.findings import Location
from linter.formats.provenance import IDENTITY, Provenance
from linter.load.positions import Path as ManifestPath
from linter.load.positions import SourceMap


@dataclass(frozen=True)
class Manifest:
    """A normalised document with everything needed to point back into the file it came from.

    ``index`` is the document's number in its file; ``part`` tells apart several workloads one
    document yields (a values file with two models). ``data`` is the normalised document as plain
    data (camelCase, like the manifest format); ``model`` its validated pydantic model.
    """

    file: str
    fs_path: Path
    index: int
    kind: str
    data: dict[str, Any]
    model: BaseModel
    source_map: SourceMap
    format: str = "gpulint"
    source_kind: str | None = None  # the original kind: Deployment, SkyPilot task, ...
    part: int = 0
    provenance: Provenance = field(default=IDENTITY)

    @property
    def name(self) -> str:
        return str(self.data["metadata"]["name"])

    def location(self, path: ManifestPath, message: str | None = None) -> Location:
        span, original = self.provenance.locate(path, self.source_map)
        return Location(self.file, span, self.index, path, message, original)
