"""Where each value of a normalised workload came from in the file that was read.

An adapter maps a document of its format (a Deployment, a SkyPilot task) to gpulint's normalised
``Workload``. Rules and facts speak in normalised paths (``spec.serving.maxContextTokens``); a
finding must still point at the original line, and a message must still speak the file's
vocabulary (``--max-model-len``). Provenance records, per normalised path, its :class:`Origin`:
the original path, optionally the exact span of one argument inside a command string, and for a
value the file does not state, why it has that value (an engine default, an assumption from
configuration).
"""

from dataclasses import field
from typing import Literal

from linter.load.positions import Path, SourceMap, Span, format_path
from linter.records import datarecord

OriginKind = Literal["file", "default", "assumed"]


@datarecord(slots=True)
class Origin:
    """Where one normalised value came from.

    ``path`` is a path in the original document: the key or list item that states the value, or,
    for a defaulted or assumed value, the object that lacks it (a finding about it points there).
    ``span`` is set when the value is part of a scalar (one argument inside ``args`` or a shell
    string); ``note`` says what a default or assumption was ("vLLM default: the model's maximum
    context", "assumed from .gpulint.yaml:12").
    """

    path: Path
    kind: OriginKind = "file"
    span: Span | None = None
    note: str | None = None


@datarecord
class Provenance:
    """Normalised path -> origin, and the file's own name for each normalised field.

    ``names`` holds the vocabulary: ``spec.serving.maxContextTokens`` -> ``--max-model-len in the
    vllm container's args``. A path without an entry is resolved through its nearest ancestor that
    has one (the whole normalised document maps to the original document's root).
    """

    origins: dict[Path, Origin] = field(default_factory=dict)
    names: dict[Path, str] = field(default_factory=dict)
    identity: bool = False  # gpulint's own format: every normalised path is its own origin

    def origin(self, path: Path) -> Origin:
        if self.identity:
            return self.origins.get(path) or Origin(path)
        for end in range(len(path), -1, -1):
            found = self.origins.get(path[:end])
            if found is not None:
                return found
        return Origin(())

    def name(self, path: Path) -> str:
        """The file's own name for a normalised path (the path itself for gpulint's format)."""
        return self.names.get(path) or format_path(path)

    def is_default(self, path: Path) -> bool:
        """The value at exactly ``path`` is one the engine or platform chooses, not the file
        (an adapter may fill it in: the model's maximum context for an unset --max-model-len)."""
        origin = self.origins.get(path)
        return origin is not None and origin.kind == "default"

    def assumed(self) -> list[tuple[Path, Origin]]:
        """The values that configuration supplied, not the file."""
        return [(path, o) for path, o in self.origins.items() if o.kind == "assumed"]

    def locate(self, path: Path, source_map: SourceMap) -> tuple[Span, Path]:
        """The span a finding on normalised ``path`` points at, and the original path there."""
        if self.identity and path not in self.origins:  # no Origin built for a path that is its own
            return source_map.locate(path), path
        origin = self.origin(path)
        if origin.span is not None:
            return origin.span, origin.path
        return source_map.locate(origin.path), origin.path


IDENTITY = Provenance(identity=True)
