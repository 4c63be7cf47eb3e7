"""gpulint's own format, ``gpulint.dev/v1alpha1``: already normalised, so its provenance is the
identity and validation is the manifest records' own (linter/declared/checking.py)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from linter.declared.checking import errors_of
from linter.findings import Finding, Location
from linter.formats.base import Adapted, InputFile
from linter.load import Document
from linter.load.positions import Path as ManifestPath
from linter.model import API_GROUP, API_VERSION, KINDS, kind_model
from linter.model.manifest import Manifest
from linter.model.validation import describe_error, error_path

SCHEMA_RULE = "GL001"

name: str = "gpulint"
markers: tuple[bytes, ...] = (API_GROUP.encode(),)


def recognises(data: Mapping[str, Any], source: InputFile) -> bool:
    """Documents whose apiVersion is in the ``gpulint.dev`` group (any version: an unsupported
    one is reported, not skipped)."""
    api_version = data.get("apiVersion")
    return isinstance(api_version, str) and api_version.split("/")[0] == API_GROUP


def claims(text: str) -> bool:
    return API_GROUP in text


def adapt(document: Document, source: InputFile) -> Adapted:
    """Validate the document against the model of its kind; the GL001 findings stop it."""
    data, source_map = document.data, document.source_map

    def finding(path: ManifestPath, message: str) -> Finding:
        return Finding(
            SCHEMA_RULE,
            None,
            message,
            Location(source.display, source_map.locate(path), document.index, path),
        )

    if data.get("apiVersion") != API_VERSION:
        message = (
            f"apiVersion {data['apiVersion']!r} is not supported; this gpulint reads {API_VERSION}"
        )
        return Adapted(findings=[finding(("apiVersion",), message)])
    kind = data.get("kind")
    if kind not in KINDS:
        known = ", ".join(sorted(KINDS))
        return Adapted(
            findings=[finding(("kind",), f"kind {kind!r} is not a gpulint kind (known: {known})")]
        )
    try:
        model = kind_model(kind).model_validate(data)
    except ValueError as err:
        return Adapted(findings=list(schema_findings(errors_of(err), data, finding)))
    manifest = Manifest(
        source.display, source.fs_path, document.index, kind, data, model, source_map
    )
    return Adapted(manifests=[manifest])


def schema_findings(errors: list[Any], data: Any, finding: Any) -> Iterator[Finding]:
    """One finding per distinct problem of a failed validation's ``errors`` (unions report one
    error per branch)."""
    seen: set[str] = set()
    for error in errors:
        where = error_path(error, data)
        message = describe_error(error, where)
        if message not in seen:
            seen.add(message)
            yield finding(where, message)
