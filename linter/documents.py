"""From loaded YAML documents to typed manifests: recognise ours, validate, report GL001."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from linter.findings import Finding, Location, Severity
from linter.load import Document
from linter.load.positions import Path as ManifestPath
from linter.load.positions import SourceMap
from linter.model import API_GROUP, API_VERSION, KINDS
from linter.validation import describe_error, error_path

SCHEMA_RULE = "GL001"


@dataclass(frozen=True)
class Manifest:
    """A validated document of one of our kinds, with everything needed to point back into it."""

    file: str
    fs_path: Path
    index: int
    kind: str
    data: dict[str, Any]
    model: BaseModel
    source_map: SourceMap

    @property
    def name(self) -> str:
        return str(self.data["metadata"]["name"])

    def location(self, path: ManifestPath, message: str | None = None) -> Location:
        return Location(self.file, self.source_map.locate(path), self.index, path, message)


def is_ours(data: Any) -> bool:
    """Documents of another apiVersion (a Deployment, a workflow) are not gpulint's."""
    if not isinstance(data, dict):
        return False
    api_version = data.get("apiVersion")
    return isinstance(api_version, str) and api_version.split("/")[0] == API_GROUP


def classify(file: str, fs_path: Path, document: Document) -> tuple[Manifest | None, list[Finding]]:
    """Validate one of our documents; return the manifest or the GL001 findings that stop it."""
    data, source_map = document.data, document.source_map

    def finding(path: ManifestPath, message: str) -> Finding:
        location = Location(file, source_map.locate(path), document.index, path)
        return Finding(SCHEMA_RULE, Severity.ERROR, message, location)

    if data.get("apiVersion") != API_VERSION:
        return None, [
            finding(
                ("apiVersion",),
                f"apiVersion {data['apiVersion']!r} is not supported; this "
                f"gpulint reads {API_VERSION}",
            )
        ]
    kind = data.get("kind")
    model_type = KINDS.get(kind) if isinstance(kind, str) else None
    if model_type is None:
        known = ", ".join(sorted(KINDS))
        return None, [finding(("kind",), f"kind {kind!r} is not a gpulint kind (known: {known})")]
    try:
        model = model_type.model_validate(data)
    except ValidationError as err:
        return None, list(_schema_findings(err, data, finding))
    return Manifest(file, fs_path, document.index, kind, data, model, source_map), []


def _schema_findings(err: ValidationError, data: Any, finding: Any) -> Iterator[Finding]:
    seen: set[str] = set()
    for error in err.errors():
        where = error_path(error, data)
        message = describe_error(error, where)
        if message not in seen:  # unions report one error per branch; say each thing once
            seen.add(message)
            yield finding(where, message)
