"""Kubernetes autoscalers: a KEDA ``ScaledObject`` or ``ScaledJob`` or a
``HorizontalPodAutoscaler`` read as an ``Autoscaler`` document, so that the workload it scales
is known to scale (the run-wide
``scaling`` fact joins the two by namespace, kind and name: linter/facts/scaling.py).

- KEDA ``ScaledObject`` (``keda.sh``): ``spec.scaleTargetRef`` (kind default Deployment),
  ``minReplicaCount`` (default 0: scale to zero), ``idleReplicaCount`` (0 while no trigger is
  active: with it set the target scales to zero when idle), ``maxReplicaCount`` (default 100).
- KEDA ``ScaledJob`` (``keda.sh``): starts Jobs from its own ``spec.jobTargetRef``, so it
  scales itself: the document is also read as the workload its Jobs run (objects.py), and the
  autoscaler targets that workload (``ScaledJob`` and its own name); ``minReplicaCount``
  (default 0), ``maxReplicaCount`` (default 100) bound the Jobs at once.
- ``HorizontalPodAutoscaler`` (``autoscaling``, v1 and v2): ``spec.scaleTargetRef``,
  ``minReplicas`` (default 1), ``maxReplicas``.

The field names and defaults are data (``data/kubernetes_autoscalers.yaml``, with sources). A
value the API does not take (a string where a count goes, a target without a name) is a GL001
finding at its place and the document yields no autoscaler.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from linter.catalog.base import Catalogue, Record
from linter.declared import Field
from linter.formats.base import Adapted, InputFile
from linter.formats.builder import ManifestBuilder, Unrendered
from linter.formats.kubernetes import objects
from linter.formats.kubernetes.pods import lookup, mapping, whole
from linter.formats.markers import KUBERNETES_AUTOSCALERS
from linter.formats.vocabulary import read_vocabulary
from linter.load import Document
from linter.load.positions import Path, format_path
from linter.model.provenance import Origin

name: str = "kubernetes-autoscaler"
markers: tuple[bytes, ...] = KUBERNETES_AUTOSCALERS

_TARGET: Path = ("spec", "scaleTargetRef")


class AutoscalerKind(Record):
    """One autoscaler kind: its API group, its replica fields and their defaults."""

    group: str = Field(min_length=1)
    kind: str = Field(min_length=1)
    target_default_kind: str | None = Field(
        None, description="The target's kind when scaleTargetRef names none (null: required)."
    )
    targets_itself: bool = Field(
        False, description="It runs its own workload (no scaleTargetRef): it scales itself."
    )
    min_field: str = Field(min_length=1)
    min_default: int = Field(ge=0)
    idle_field: str | None = None
    max_field: str = Field(min_length=1)
    max_default: int | None = Field(None, ge=0)
    source: str = Field(min_length=1)


class AutoscalerTables(Catalogue):
    """``data/kubernetes_autoscalers.yaml``."""

    autoscalers: list[AutoscalerKind] = Field(min_length=1)


@functools.cache
def tables() -> AutoscalerTables:
    """The data file, read once (packaged and validated by the tests)."""
    return read_vocabulary("kubernetes_autoscalers.yaml", AutoscalerTables)


def _kind_of(data: Mapping[str, Any]) -> AutoscalerKind | None:
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None
    group = api_version.rpartition("/")[0]
    for entry in tables().autoscalers:
        if (entry.group, entry.kind) == (group, kind):
            return entry
    return None


def recognises(data: Mapping[str, Any], source: InputFile) -> bool:
    """A KEDA ScaledObject or ScaledJob or a HorizontalPodAutoscaler, by API group and kind (any
    version)."""
    return _kind_of(data) is not None


def claims(text: str) -> bool:
    """Never: these kinds are as often Helm templates, which do not parse before rendering;
    their rendered output is linted (``helm template ... | gpulint check -``)."""
    return False


class _Reader:
    """One object read into an Autoscaler; each problem is a GL001 finding at its place."""

    def __init__(
        self, document: Document, file: InputFile, entry: AutoscalerKind, part: int
    ) -> None:
        self.data = document.data
        self.entry = entry
        written = mapping(self.data.get("metadata")).get("name")
        self.builder = ManifestBuilder(
            document,
            file,
            format=name,
            source_kind=entry.kind,
            name=written if isinstance(written, str) else "",
            part=part,  # after the workloads read from the same object (a ScaledJob's)
        )
        self.failed = False

    def fail(self, origin: Origin, problem: str | Unrendered) -> None:
        """A value the API does not take, or a placeholder (the file is a template): either way
        the replicas it keeps are not known, so the document yields no autoscaler."""
        self.builder.problem(origin, problem)
        self.failed = True

    def text(self, path: Path, default: str | None = None) -> None:
        """The name at ``path`` into the same normalised place below ``spec.target`` or
        ``metadata``; absent, its ``default`` (or a finding when there is none)."""
        found = lookup(self.data, path)
        field = ("spec", "target", path[-1]) if path[:-1] == _TARGET else ("metadata", path[-1])
        if isinstance(found, str) and found:
            self.builder.set(field, found, Origin(path), name=format_path(path))
        elif found is None and default is not None:
            note = f"{self.entry.kind} default"
            self.builder.default(field, default, note, format_path(path), lacking=path[:-1])
        elif found is not None or path[-1] == "name":
            what = "is missing" if found is None else f"must be a name (got {found!r})"
            where = path if found is not None else path[:-1]
            self.fail(Origin(where), f"{format_path(path)} {what}")

    def itself(self) -> None:
        """The workload read from this object: its own kind and name."""
        name = mapping(self.data.get("metadata")).get("name")
        if isinstance(name, str) and name:
            self.builder.set(("spec", "target", "name"), name, Origin(("metadata", "name")))
            kind = self.entry.kind
            self.builder.set(("spec", "target", "kind"), kind, Origin(("kind",)), name="kind")

    def count(self, key: str, default: int | None) -> int | None:
        """A replica count at ``spec.<key>``; absent, the API's ``default``."""
        path: Path = ("spec", key)
        found = lookup(self.data, path)
        if found is None:
            return default
        return whole(found, format_path(path), path, self.fail)

    def bounds(self) -> None:
        entry = self.entry
        least = self.count(entry.min_field, entry.min_default)
        idle = self.count(entry.idle_field, None) if entry.idle_field else None
        most = self.count(entry.max_field, entry.max_default)
        keeps, key = (idle, entry.idle_field) if idle is not None else (least, entry.min_field)
        if keeps is not None and key is not None:
            self._replicas("spec.minReplicas", keys=key, value=keeps)
        if most is not None:
            self._replicas("spec.maxReplicas", keys=entry.max_field, value=most)

    def _replicas(self, field: str, keys: str, value: int) -> None:
        path: Path = ("spec", keys)
        if lookup(self.data, path) is None:
            note = f"{self.entry.kind} default"
            self.builder.default(field, value, note, f"spec.{keys}", lacking=("spec",))
        else:
            self.builder.set(field, value, Origin(path), name=f"spec.{keys}")


def adapt(document: Document, source: InputFile) -> Adapted:
    """Read one object into an Autoscaler (or GL001 findings at the places it is wrong), after
    the workloads of an object that runs its own (a ScaledJob's Jobs)."""
    entry = _kind_of(document.data)
    assert entry is not None, "adapt is only called on recognised documents"
    workload = (
        objects.adapt(document, source)
        if entry.targets_itself and objects.recognises(document.data, source)
        else Adapted()
    )
    reader = _Reader(document, source, entry, part=len(workload.manifests))
    reader.text(("metadata", "name"))
    reader.text(("metadata", "namespace"), default=None)
    if entry.targets_itself:
        reader.itself()
    else:
        reader.text((*_TARGET, "name"))
        reader.text((*_TARGET, "kind"), default=entry.target_default_kind)
    reader.bounds()
    scaler = (
        Adapted(findings=reader.builder.findings)
        if reader.failed
        else reader.builder.build_kind("Autoscaler")
    )
    return Adapted(
        manifests=[*workload.manifests, *scaler.manifests],
        findings=[*workload.findings, *scaler.findings],
    )
