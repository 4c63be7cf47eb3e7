"""Building a normalised document from a document of another format, with provenance.

An adapter reads its document and calls :meth:`ManifestBuilder.set` for every normalised field
it finds, with the :class:`Origin` of the value (a key, a list item, one argument inside a command
string), and :meth:`~ManifestBuilder.default` for what the engine or launcher decides when the
file is silent. :meth:`WorkloadBuilder.build` applies the object's ``gpulint.dev/`` annotations
and the configuration's assumptions to what is still unset, validates the result against the
Workload model, and turns any error into a finding at the original place, in the file's own
words; :meth:`~ManifestBuilder.build_kind` does the same for the other kinds (``CapacityLimit``).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from linter.declared.checking import errors_of
from linter.findings import Finding, Location, template_note
from linter.formats.base import Adapted, InputFile
from linter.load import Document
from linter.load.positions import Path, parse_path
from linter.load.scalar_offsets import locate
from linter.load.scanning import first_placeholder
from linter.load.sources import FileRead
from linter.model import API_VERSION, kind_model
from linter.model.assumptions import ANNOTATION_PREFIX, annotations_of, read_annotation
from linter.model.manifest import Manifest
from linter.model.provenance import Origin, Provenance
from linter.model.validation import error_path
from linter.model.values import ValueProblem
from linter.records import datarecord

SCHEMA_RULE = "GL001"


@datarecord
class Unrendered:
    """A value that still holds a template placeholder (``replicas: $NUM_NODES``,
    ``nvidia.com/gpu: {{ .Values.gpus }}``): the file is a template another tool fills in, so the
    value is unknown, and the file is said to be a template once (GL010), not wrong (GL001)."""

    what: str  # the file's name for the field
    placeholder: str  # as written
    #: What renders the value, for the fix, when the adapter knows (a Terraform function): the
    #: value is then computed, not a placeholder an ``assume:`` block could give. None: Helm or
    #: envsubst, by the placeholder's syntax.
    renderer: str | None = None


def unrendered(what: str, text: str) -> Unrendered | None:
    """The placeholder ``text`` holds, as a problem of the field ``what``; None when it holds
    none. ``{{ .Values.gpuType }}``, ``{{HF_TOKEN}}`` (Helm, Jinja, Go templates), ``${GPU_TYPE}``
    and a bare ``$NUM_NODES`` (envsubst) all count: Kubernetes expands only ``$(VAR)`` in a
    container's command, args and env, and the other formats expand none in the fields adapters
    read as values. Env values are not checked: ``${LD_LIBRARY_PATH}:/usr/local/nvidia/lib64``
    is passed on as written and read by the image's shell or loader."""
    found = first_placeholder(text, bare_names=True)
    return None if found is None else Unrendered(what, found.text)


def field(path: str | Path) -> Path:
    """``"spec.serving.maxContextTokens"`` -> its tuple form (tuples pass through)."""
    return parse_path(path) if isinstance(path, str) else path


class ManifestBuilder:
    """Collects one normalised document of a document: values, origins and vocabulary."""

    def __init__(
        self,
        document: Document,
        file: InputFile,
        *,
        format: str,
        source_kind: str,
        name: str,
        object_path: Path = (),
        part: int = 0,
    ) -> None:
        self.document = document
        self.file = file
        self.format = format
        self.source_kind = source_kind
        self.name = name
        self.object_path = object_path  # the object it is read from (defaults point there)
        self._reads: list[FileRead] = []
        self.part = part
        self._values: dict[Path, Any] = {}
        self._origins: dict[Path, Origin] = {(): Origin(object_path)}
        self._names: dict[Path, str] = {}
        self.findings: list[Finding] = []

    # -- origins -----------------------------------------------------------------------------

    def at(self, path: Path) -> Origin:
        """The origin of a value written at ``path`` of the document."""
        return Origin(path)

    def at_word(self, item_path: Path, start: int, end: int) -> Origin:
        """The origin of the characters ``[start, end)`` of the string at ``item_path`` (one
        argument inside ``args`` or a shell script); the whole value if it cannot be located."""
        scalar = self.document.source_map.scalar(item_path)
        if scalar is None:
            return Origin(item_path)
        return Origin(item_path, span=locate(self.file.text, scalar, start, end))

    # -- values ------------------------------------------------------------------------------

    def set(self, path: str | Path, value: Any, origin: Origin, name: str | None = None) -> None:
        """A value the file states; ``name`` is what the file calls the field."""
        key = field(path)
        self._values[key] = value
        self._origins[key] = origin
        if name is not None:
            self._names[key] = name

    def default(
        self,
        path: str | Path,
        value: Any,
        note: str,
        name: str | None = None,
        lacking: Path | None = None,
    ) -> None:
        """A value the engine or launcher decides when the file is silent (``note`` says so:
        "vLLM default: the model's maximum context"); findings on it point at the object that
        lacks it: ``lacking`` (a container's ``args``), else the workload's object."""
        key = field(path)
        self._values[key] = value
        where = self.object_path if lacking is None else lacking
        self._origins[key] = Origin(where, kind="default", note=note)
        if name is not None:
            self._names[key] = name

    def read(self, *reads: FileRead) -> None:
        """Files read besides the one linted: the result depends on their bytes too."""
        self._reads.extend(reads)

    def call(self, path: str | Path, name: str) -> None:
        """What the file calls a field it does not set (for messages and fixes)."""
        self._names[field(path)] = name

    def call_unnamed(self, names: Mapping[Path, str]) -> None:
        """:meth:`call` for each field of ``names`` that has no name yet, in one pass."""
        for path, name in names.items():
            self._names.setdefault(path, name)

    def place(self, path: str | Path, origin: Origin) -> None:
        """Where a normalised object is written when it is not one value (``spec.checkpointing``
        from a ``--output_dir`` argument, an accelerator's count from a resource limit and its
        type from a node selector): findings on it, and on its unset fields, point there."""
        self._origins[field(path)] = origin

    def has(self, path: str | Path) -> bool:
        return field(path) in self._values

    def name_of(self, path: str | Path) -> str | None:
        """The file's name for a field so far, or None."""
        return self._names.get(field(path))

    def value(self, path: str | Path) -> Any:
        """The value set or defaulted at ``path`` so far, or None."""
        return self._values.get(field(path))

    def problem(self, origin: Origin, problem: str | Unrendered) -> None:
        """A problem with the document in the format's own words (GL001 at its place), or a
        placeholder that makes the file a template (GL010, kept once a file by the run)."""
        span, original = Provenance({(): origin}).locate((), self.document.source_map)
        location = Location(self.file.display, span, self.document.index, (), None, original)
        if isinstance(problem, Unrendered):
            where = f"in {problem.what} is filled in only when rendered"
            given = problem.renderer
            note = template_note(location, problem.placeholder, where, given is None, given)
            self.findings.append(note)
        else:
            self.findings.append(Finding(SCHEMA_RULE, None, problem, location))

    # -- building ----------------------------------------------------------------------------

    def build_kind(self, kind: str) -> Adapted:
        """Validate the collected values as a document of ``kind`` named ``name`` (beside the
        metadata the adapter set: namespace, labels); an invalid one yields only findings, at
        the original places."""
        data = _nest(self._values)
        metadata = {"name": self.name, **data.pop("metadata", {})}
        document = {"apiVersion": API_VERSION, "kind": kind, "metadata": metadata, **data}
        provenance = Provenance(dict(self._origins), dict(self._names))
        try:
            model = kind_model(kind).model_validate(document)
        except ValueError as err:
            for error in errors_of(err):
                self._report(error, document, provenance)
            return Adapted(findings=self.findings)
        manifest = Manifest(
            self.file.display,
            self.file.fs_path,
            self.document.index,
            kind,
            document,
            model,
            self.document.source_map,
            format=self.format,
            source_kind=self.source_kind,
            part=self.part,
            provenance=provenance,
            reads=tuple(self._reads),
        )
        return Adapted([manifest], self.findings)

    def _report(self, error: Any, document: Any, provenance: Provenance) -> None:
        where = error_path(error, document)
        value = error.get("input")
        shown = "" if isinstance(value, (dict, list)) else f" (got {value!r})"
        message = f"{provenance.name(where)}: {error.get('msg', 'invalid value')}{shown}"
        span, original = provenance.locate(where, self.document.source_map)
        location = Location(self.file.display, span, self.document.index, where, None, original)
        self.findings.append(Finding(SCHEMA_RULE, None, message, location))


class WorkloadBuilder(ManifestBuilder):
    """Collects one normalised workload of a document; what it does not say comes from the
    object's ``gpulint.dev/`` annotations and the configuration's assumptions."""

    def _annotate(self, data: Mapping[str, Any], base: Path) -> None:
        """``gpulint.dev/<field>`` annotations on the object set fields the format has no place
        for; the format's own fields win. ``base`` is where the annotations are written."""
        for suffix, text in annotations_of(data).items():
            where = (*base, ANNOTATION_PREFIX + suffix)
            try:
                path, value = read_annotation(suffix, text)
            except ValueProblem as err:
                self.problem(Origin(where), f"annotation {ANNOTATION_PREFIX}{suffix}: {err}")
                continue
            if path not in self._values:
                self.set(path, value, Origin(where), name=f"annotation {ANNOTATION_PREFIX}{suffix}")

    def _assume(self) -> None:
        for assumption in self.file.assumptions:
            if assumption.path not in self._values:
                self._values[assumption.path] = assumption.value
                note = f"assumed from {assumption.where}"
                self._origins[assumption.path] = Origin(self.object_path, "assumed", note=note)

    def build(
        self, annotated: Mapping[str, Any] | None = None, annotations_path: Path | None = None
    ) -> Adapted:
        """Validate the collected workload; ``annotated`` is the object whose metadata holds
        ``gpulint.dev/`` annotations (the document itself by default), and ``annotations_path``
        where they are written (default: the object's ``metadata.annotations``)."""
        base = annotations_path or (*self.object_path, "metadata", "annotations")
        self._annotate(self.document.data if annotated is None else annotated, base)
        self._assume()
        return self.build_kind("Workload")


_ATOMIC = frozenset((str, int, float, bool, type(None)))


def _nest(values: Mapping[Path, Any]) -> dict[str, Any]:
    """``{("spec", "serving", "maxContextTokens"): 8192}`` -> nested dicts (and lists, for
    integer parts such as alternatives[0]). A value set on a deeper path goes into the object
    set on a shorter one (an accelerator count from the file into an assumed accelerator), so
    values are copied first: an assumption's object is shared by every file it applies to."""
    root: dict[str, Any] = {}
    for path, value in sorted(values.items(), key=lambda item: len(item[0])):
        if type(value) not in _ATOMIC:  # deepcopy returns these as they are, at a cost
            value = copy.deepcopy(value)
        node: Any = root
        for index, part in enumerate(path[:-1]):
            following = path[index + 1]
            empty: Any = [] if isinstance(following, int) else {}
            if isinstance(node, list):
                assert isinstance(part, int)
                while len(node) <= part:
                    node.append({} if not isinstance(following, int) else [])
                node = node[part]
            else:
                node = node.setdefault(part, empty)
        last = path[-1]
        if isinstance(node, list):
            assert isinstance(last, int)
            while len(node) <= last:
                node.append(None)
            node[last] = value
        else:
            node[last] = value
    return root
