"""Kubernetes capacity objects: what a Kueue queue, a namespace's ResourceQuota or a Karpenter
NodePool lets workloads hold at once, read as ``CapacityLimit`` documents.

- Kueue ``ClusterQueue`` (``kueue.x-k8s.io``: v1beta1, v1beta2, v1): scope ``queue``. Each
  flavor's ``nominalQuota`` of a GPU resource (with its ``borrowingLimit`` and ``lendingLimit``)
  is one limit; ``spec.cohort`` (``spec.cohortName`` from v1beta2) is its cohort. A queue admits
  only what its ``resourceGroups`` cover, so a GPU resource it does not list is a limit of 0.
- Kueue ``LocalQueue``: scope ``localQueue``. ``spec.clusterQueue`` names the queue; a workload
  is submitted to it with the label ``kueue.x-k8s.io/queue-name: <its name>`` in its namespace.
- ``ResourceQuota`` (``v1``): scope ``namespace``. ``spec.hard`` ``requests.<gpu>`` is the
  limit; ``limits.<gpu>`` or a bare ``<gpu>`` is reported, because Kubernetes accepts and never
  enforces them. A quota with ``scopes`` or a ``scopeSelector`` counts only some pods, which
  the manifests cannot tell: its GPUs are not read.
- Karpenter ``NodePool`` (``karpenter.sh``: v1, v1beta1): scope ``nodePool``. ``spec.limits`` of
  a GPU resource is the limit; workloads whose pool is its name or ``karpenter.sh/nodepool=<name>``
  draw on it; the GPU types and capacity types its template's requirements (operator ``In``) or
  labels pin are recorded.
- Kueue ``ResourceFlavor``: scope ``flavor``, no limit; the GPU types its ``spec.nodeLabels``
  pin (the accelerator labels of ``data/kubernetes.yaml``), which a queue's flavor of that name
  gives the workloads it admits.

GPU resources are the device plugins' (``data/kubernetes_capacity.yaml``, with sources);
``cpu``, ``memory`` and the rest are not read. A value that is not what the object's API takes
(a Helm placeholder, a string where a list goes) is a GL001 finding at its place and the
document yields no limit: a limit read without one of its parts would understate what the object
allows and report workloads that fit.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from linter.catalog.base import Catalogue, SourcedName
from linter.catalog.gpus import Vendor
from linter.declared import Field
from linter.formats.base import Adapted, InputFile
from linter.formats.builder import ManifestBuilder
from linter.formats.kubernetes.labels import catalogue
from linter.formats.kubernetes.quantity import parse_quantity
from linter.formats.markers import KUBERNETES_CAPACITY
from linter.formats.vocabulary import read_vocabulary
from linter.load import Document
from linter.load.positions import Path, format_path
from linter.model.provenance import Origin
from linter.model.values import ValueProblem

name: str = "kubernetes-capacity"
markers: tuple[bytes, ...] = KUBERNETES_CAPACITY


class GpuResource(SourcedName):
    vendor: Vendor


class CapacityTables(Catalogue):
    """``data/kubernetes_capacity.yaml``."""

    gpu_resources: list[GpuResource] = Field(min_length=1)
    quota_request_prefix: SourcedName
    queue_label: SourcedName
    node_pool_gpu_labels: list[SourcedName] = Field(min_length=1)
    node_pool_capacity_label: SourcedName
    node_pool_label: SourcedName


@functools.cache
def tables() -> CapacityTables:
    """The data file, read once (packaged and validated by the tests)."""
    return read_vocabulary("kubernetes_capacity.yaml", CapacityTables)


@functools.cache
def _vendors() -> dict[str, Vendor]:
    """GPU resource name (``nvidia.com/gpu``) -> its vendor."""
    return {resource.name: resource.vendor for resource in tables().gpu_resources}


class _CapacityReader:
    """One object read into a CapacityLimit: typed access to its values, each problem a GL001
    finding at its place. A fatal problem (``failed``) stops the document."""

    def __init__(self, document: Document, file: InputFile, kind: str) -> None:
        self.data = document.data
        metadata = self.data.get("metadata")
        written = metadata.get("name") if isinstance(metadata, Mapping) else None
        self.builder = ManifestBuilder(
            document,
            file,
            format=name,
            source_kind=kind,
            name=written if isinstance(written, str) else "",
        )
        self.failed = False
        self.limits = 0  # spec.limits entries set so far

    def fail(self, path: Path, message: str) -> None:
        self.builder.problem(Origin(path), message)
        self.failed = True

    def value(self, path: Path) -> Any:
        node: Any = self.data
        for part in path:
            if isinstance(part, int):
                node = node[part] if isinstance(node, list) and part < len(node) else None
            else:
                node = node.get(part) if isinstance(node, Mapping) else None
        return node

    def mapping(self, path: Path) -> Mapping[str, Any]:
        """The mapping at ``path``; empty when absent, a finding when something else."""
        found = self.value(path)
        if found is None:
            return {}
        if not isinstance(found, Mapping):
            self.fail(path, f"{format_path(path)} must be a mapping")
            return {}
        return found

    def entries(self, path: Path) -> Iterator[tuple[Path, Mapping[str, Any]]]:
        """The mappings of the list at ``path`` with their paths; anything else is a finding."""
        return self._items(path, Mapping, "a mapping")

    def string(self, path: Path, required: bool = False) -> str | None:
        found = self.value(path)
        if found is None and not required:
            return None
        if not isinstance(found, str) or not found:
            what = "is missing" if found is None else f"must be a name (got {found!r})"
            self.fail(path if found is not None else path[:-1], f"{format_path(path)} {what}")
            return None
        return found

    def strings(self, path: Path) -> Iterator[tuple[Path, str]]:
        """The strings of the list at ``path`` with their paths; anything else is a finding."""
        return self._items(path, str, "a string")

    def _items(self, path: Path, kind: type, noun: str) -> Iterator[tuple[Path, Any]]:
        found = self.value(path)
        if found is None:
            return
        if not isinstance(found, list):
            self.fail(path, f"{format_path(path)} must be a list")
            return
        for index, item in enumerate(found):
            if isinstance(item, kind):
                yield (*path, index), item
            else:
                self.fail((*path, index), f"{format_path((*path, index))} must be {noun}")

    def amount(self, path: Path, what: str) -> float | None:
        """A quantity of GPUs; ``what`` is the object's own name for it."""
        found = self.value(path)
        if found is None:
            self.fail(path[:-1], f"{what} is missing")
            return None
        try:
            return parse_quantity(found)
        except ValueProblem as err:
            self.fail(path, f"{what}: {err}")
            return None

    def set(self, path: str | Path, value: Any, where: Path, called: str | None = None) -> None:
        self.builder.set(path, value, Origin(where), name=called)

    def limit(self, vendor: Vendor, gpus: float, where: Path, called: str) -> Path:
        """One entry of ``spec.limits``; returns its normalised path."""
        at: Path = ("spec", "limits", self.limits)
        self.limits += 1
        self.set((*at, "vendor"), vendor, where)
        self.set((*at, "gpus"), gpus, where, called)
        return at

    def build(self) -> Adapted:
        if self.failed:
            return Adapted(findings=self.builder.findings)
        return self.builder.build_kind("CapacityLimit")


def _metadata(reader: _CapacityReader) -> None:
    found = reader.value(("metadata",))
    if found is not None and not isinstance(found, Mapping):
        reader.fail(("metadata",), "metadata must be a mapping")
        return
    written = reader.string(("metadata", "name"), required=True)
    if written is not None:
        reader.set("metadata.name", written, ("metadata", "name"))
    namespace = reader.string(("metadata", "namespace"))
    if namespace is not None:
        reader.set("metadata.namespace", namespace, ("metadata", "namespace"))


def _cluster_queue(reader: _CapacityReader) -> None:
    """Scope ``queue``: one limit per flavor and GPU resource."""
    reader.set("spec.scope", "queue", ("kind",), "kind")
    spec = reader.mapping(("spec",))
    key = "cohortName" if "cohortName" in spec else "cohort"
    cohort = reader.string(("spec", key))
    if cohort is not None:
        reader.set("spec.cohort", cohort, ("spec", key), f"spec.{key}")
    groups = ("spec", "resourceGroups")
    reader.set("spec.limits", [], groups if "resourceGroups" in spec else ("spec",))
    vendors = _vendors()
    for group, _ in reader.entries(groups):
        for flavor_path, _ in reader.entries((*group, "flavors")):
            flavor = reader.string((*flavor_path, "name"), required=True)
            for quota_path, quota in reader.entries((*flavor_path, "resources")):
                resource = reader.string((*quota_path, "name"), required=True)
                vendor = vendors.get(resource or "")
                if vendor is None or flavor is None:
                    continue
                of = f"{resource} in flavor {flavor}"
                nominal = reader.amount((*quota_path, "nominalQuota"), f"nominalQuota of {of}")
                if nominal is None:
                    continue
                at = reader.limit(
                    vendor, nominal, (*quota_path, "nominalQuota"), f"nominalQuota of {of}"
                )
                reader.set((*at, "flavor"), flavor, (*flavor_path, "name"))
                for field in ("borrowingLimit", "lendingLimit"):
                    if field not in quota:
                        continue
                    where = (*quota_path, field)
                    if cohort is None:
                        reader.fail(where, f"{field} of {of} needs spec.{key}: Kueue rejects it")
                        continue
                    amount = reader.amount(where, f"{field} of {of}")
                    if amount is not None:
                        reader.set((*at, field), amount, where, f"{field} of {of}")


def _local_queue(reader: _CapacityReader) -> None:
    """Scope ``localQueue``: the queue it submits to, and the label that submits to it."""
    reader.set("spec.scope", "localQueue", ("kind",), "kind")
    reader.mapping(("spec",))
    queue = reader.string(("spec", "clusterQueue"), required=True)
    if queue is not None:
        reader.set("spec.clusterQueue", queue, ("spec", "clusterQueue"), "spec.clusterQueue")
    label = tables().queue_label.name
    queue_name = reader.value(("metadata", "name"))
    if isinstance(queue_name, str):
        reader.set(("spec", "matchLabels"), {label: queue_name}, ("metadata", "name"), label)


def _resource_quota(reader: _CapacityReader) -> None:
    """Scope ``namespace``: ``spec.hard`` requests of GPU resources."""
    reader.set("spec.scope", "namespace", ("kind",), "kind")
    spec = reader.mapping(("spec",))
    if spec.get("scopes") or spec.get("scopeSelector"):
        return  # it counts only the pods its scopes select: not judged from the manifests
    prefix = tables().quota_request_prefix.name
    hard = reader.mapping(("spec", "hard"))
    for resource, vendor in _vendors().items():
        for key in (resource, f"limits.{resource}"):
            if key in hard:
                reader.builder.problem(
                    Origin(("spec", "hard", key)),
                    f"spec.hard {key} is never enforced: a ResourceQuota counts {resource} only "
                    f"as {prefix}{resource}",
                )
        key = prefix + resource
        if key in hard:
            where = ("spec", "hard", key)
            gpus = reader.amount(where, f"spec.hard {key}")
            if gpus is not None:
                reader.limit(vendor, gpus, where, f"spec.hard {key}")


def _node_pool(reader: _CapacityReader) -> None:
    """Scope ``nodePool``: ``spec.limits`` of GPU resources, and what its nodes are pinned to."""
    reader.set("spec.scope", "nodePool", ("kind",), "kind")
    reader.mapping(("spec",))
    pool = reader.value(("metadata", "name"))
    if isinstance(pool, str):
        label = tables().node_pool_label.name
        reader.set(("spec", "matchPools"), [f"{label}={pool}"], ("metadata", "name"), label)
    vendors = _vendors()
    for key in reader.mapping(("spec", "limits")):
        vendor = vendors.get(key)
        if vendor is not None:
            where = ("spec", "limits", key)
            gpus = reader.amount(where, f"spec.limits {key}")
            if gpus is not None:
                reader.limit(vendor, gpus, where, f"spec.limits {key}")
    _pins(reader, ("spec", "template"))


def _pins(reader: _CapacityReader, template: Path) -> None:
    """The GPU types and capacity types a NodePool's template pins its nodes to: requirements
    with operator ``In`` and the labels it puts on every node."""
    fields = {label.name: "accelerators" for label in tables().node_pool_gpu_labels}
    fields[tables().node_pool_capacity_label.name] = "capacity"
    pinned: dict[str, list[tuple[Path, str, str]]] = {"accelerators": [], "capacity": []}
    for path, requirement in reader.entries((*template, "spec", "requirements")):
        key = requirement.get("key")
        if requirement.get("operator") == "In" and isinstance(key, str) and key in fields:
            written = reader.strings((*path, "values"))
            pinned[fields[key]].extend((where, key, value) for where, value in written)
    labels = (*template, "metadata", "labels")
    for key in reader.mapping(labels):
        value = reader.string((*labels, key)) if key in fields else None
        if value is not None:
            pinned[fields[key]].append(((*labels, key), key, value))
    for field, found in pinned.items():
        for index, (where, key, value) in enumerate(found):
            reader.set(("spec", field, index), value, where, f"{key} {value}")


def _resource_flavor(reader: _CapacityReader) -> None:
    """Scope ``flavor``: the GPU types its ``spec.nodeLabels`` pin the flavor's nodes to (the
    GPU labels a node selector names a type by)."""
    reader.set("spec.scope", "flavor", ("kind",), "kind")
    reader.mapping(("spec",))
    keys = {label.key for label in catalogue().accelerator_labels}
    labels = ("spec", "nodeLabels")
    found = 0
    for key in reader.mapping(labels):
        value = reader.string((*labels, key)) if key in keys else None
        if value is not None:
            reader.set(("spec", "accelerators", found), value, (*labels, key), f"{key} {value}")
            found += 1


_READERS: dict[tuple[str, str], Callable[[_CapacityReader], None]] = {
    ("kueue.x-k8s.io", "ClusterQueue"): _cluster_queue,
    ("kueue.x-k8s.io", "LocalQueue"): _local_queue,
    ("", "ResourceQuota"): _resource_quota,
    ("karpenter.sh", "NodePool"): _node_pool,
    ("kueue.x-k8s.io", "ResourceFlavor"): _resource_flavor,
}


def _reader_of(data: Mapping[str, Any]) -> Callable[[_CapacityReader], None] | None:
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None
    return _READERS.get((api_version.rpartition("/")[0], kind))


def recognises(data: Mapping[str, Any], source: InputFile) -> bool:
    """Kueue ClusterQueue, LocalQueue and ResourceFlavor, core ResourceQuota and Karpenter NodePool
    objects, by their API group and kind (any version of the group)."""
    return _reader_of(data) is not None


def claims(text: str) -> bool:
    """Never: these kinds are as often Helm templates, which do not parse before rendering and
    are not ours to judge; their rendered output is (``helm template ... | gpulint check -``)."""
    return False


def adapt(document: Document, source: InputFile) -> Adapted:
    """Read one object into a CapacityLimit (or GL001 findings at the places it is wrong)."""
    read = _reader_of(document.data)
    assert read is not None, "adapt is only called on recognised documents"
    reader = _CapacityReader(document, source, str(document.data["kind"]))
    _metadata(reader)
    read(reader)
    return reader.build()
