"""YAML written as a string inside a Kubernetes object (KubeRay's ``serveConfigV2`` and
``runtimeEnvYAML`` block scalars), read with positions that point at the real line of the file:
each part's place in the string is found through the embedded document's own source map, then
located in the file's text through the outer scalar.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.formats.kubernetes.context import Context
from linter.formats.kubernetes.pods import mapping, sequence
from linter.formats.kubernetes.scheduling import StatedValue
from linter.load import load_text
from linter.load.positions import Path, SourceMap, format_path
from linter.model.provenance import Origin
from linter.records import datarecord

Part = str | int


@datarecord
class Embedded:
    """One node of a YAML string inside the object, able to locate its parts in the file."""

    ctx: Context
    node: Any
    path: Path  # of the node in the embedded document
    outer: Path  # of the string in the object (``spec.serveConfigV2``)
    label: str  # what the file calls the string (``serveConfigV2``)
    source_map: SourceMap
    line_starts: tuple[int, ...]

    def get(self, *parts: Part) -> Any:
        node: Any = self.node
        for part in parts:
            if isinstance(part, int):
                items = sequence(node)
                node = items[part] if 0 <= part < len(items) else None
            else:
                node = mapping(node).get(part)
        return node

    def child(self, *parts: Part) -> Embedded:
        return Embedded(
            self.ctx,
            self.get(*parts),
            (*self.path, *parts),
            self.outer,
            self.label,
            self.source_map,
            self.line_starts,
        )

    def origin(self, *parts: Part) -> Origin:
        """The file position of a part of the node (through the string's offsets)."""
        span = self.source_map.locate((*self.path, *parts))
        start = self.line_starts[span.line - 1] + span.column - 1
        end = self.line_starts[span.end_line - 1] + span.end_column - 1
        return self.ctx.sink.at_word(self.outer, start, max(end, start + 1))

    def name(self, *parts: Part) -> str:
        """``engine_kwargs.max_model_len in serveConfigV2 (applications[0].args...)``."""
        where = format_path(self.path)
        inside = format_path(tuple(parts)) if parts else ""
        return f"{inside} in {self.label} ({where})" if inside else f"{self.label} ({where})"

    def found(self, value: Any, *parts: Part) -> StatedValue:
        return StatedValue(value, self.origin(*parts), self.name(*parts))

    def count(self, *parts: Part) -> StatedValue | None:
        """A whole number at ``parts`` (None when absent; a wrong value is reported)."""
        value = self.get(*parts)
        if value is None:
            return None
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return self.found(value, *parts)
        problem = f"{self.name(*parts)}: {value!r} is not a whole number"
        self.ctx.report(self.origin(*parts), problem)
        return None


def embedded(ctx: Context, outer: Path, label: str) -> Embedded | None:
    """The first document of the YAML string at ``outer`` (None when it is not a string or holds
    no document); a string that is not valid YAML is reported at the line it breaks."""
    text = ctx.get(outer)
    if not isinstance(text, str):
        return None
    loaded = load_text(text)
    starts = _line_starts(text)
    for problem in loaded.problems:
        span = problem.span
        offset = starts[min(span.line, len(starts)) - 1] + span.column - 1
        ctx.report(
            ctx.sink.at_word(outer, offset, offset + 1),
            f"{label} is not valid YAML: {problem.message}",
        )
    if not loaded.documents:
        return None
    document = loaded.documents[0]
    if not isinstance(document.data, Mapping):
        return None
    return Embedded(ctx, document.data, (), outer, label, document.source_map, starts)


def _line_starts(text: str) -> tuple[int, ...]:
    starts = [0]
    for index, char in enumerate(text):
        if char == "\n":
            starts.append(index + 1)
    return tuple(starts)
