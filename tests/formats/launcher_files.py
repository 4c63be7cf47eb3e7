"""Helpers for the SkyPilot and dstack adapter tests: adapt a document, read its normalised
workload and provenance; the rules their fixtures pin."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from linter.formats import recognise
from linter.formats.base import Adapted, InputFile
from linter.load import load_text
from linter.load.positions import parse_path
from linter.model.manifest import Manifest

#: The rules the adapters feed directly (memory fit, candidates, idle, spot, the model's disk)
#: and the input rule.
ADAPTER_RULES = (
    "GL001",
    "GL101",
    "GL102",
    "GL107",
    "GL110",
    "GL201",
    "GL202",
    "GL204",
    "GL205",
    "GL214",
)


def adapt(tmp_path: Path, text: str, file_name: str = "task.yaml", index: int = 0) -> Adapted:
    """Adapt document ``index`` of ``text``, written to ``tmp_path/file_name``; it must be
    recognised."""
    path = tmp_path / file_name
    path.write_text(text, encoding="utf-8")
    loaded = load_text(text)
    assert loaded.problems == []
    source = InputFile(file_name, path, loaded.text)
    document = loaded.documents[index]
    found = recognise(document.data, source)
    assert found is not None, "not recognised"
    return found.adapt(document, source)


def recognised_as(tmp_path: Path, text: str, file_name: str = "any.yaml") -> str | None:
    path = tmp_path / file_name
    path.write_text(text, encoding="utf-8")
    loaded = load_text(text)
    source = InputFile(file_name, path, loaded.text)
    found = recognise(loaded.documents[0].data, source)
    return None if found is None else found.name


def workload(adapted: Adapted) -> Manifest:
    assert [f.message for f in adapted.findings] == []
    (manifest,) = adapted.manifests
    return manifest


def spec(adapted: Adapted) -> dict[str, Any]:
    data: dict[str, Any] = workload(adapted).data["spec"]
    return data


def origin_line(manifest: Manifest, path: str) -> tuple[int, int]:
    """Line and column a finding on the normalised ``path`` points at."""
    span, _ = manifest.provenance.locate(parse_path(path), manifest.source_map)
    return span.line, span.column


def problems(adapted: Adapted) -> list[tuple[int, str]]:
    """The adapter's own findings: (line, message)."""
    return [(f.location.span.line, f.message) for f in adapted.findings]
