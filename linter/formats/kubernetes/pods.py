"""Pod specs as workloads see them: their containers, and the GPUs those containers request.

A GPU is an extended resource (``nvidia.com/gpu``, ``amd.com/gpu``): Kubernetes accepts it in
``limits``, where ``requests`` default to it, or in both with equal values ("Schedule GPUs"), and
only as a whole number. The GPUs of a pod are the sum over its containers; init containers run
before them, one at a time, and do not add to it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from linter.formats.builder import Unrendered, unrendered
from linter.formats.kubernetes.labels import gpu_resources
from linter.load.positions import Path
from linter.model.provenance import Origin
from linter.model.values import LARGEST_WHOLE, out_of_range
from linter.records import datarecord

#: Where an adapter sends a problem at its place: a message, or a placeholder (a template).
Report = Callable[[Origin, str | Unrendered], None]
"""Where a reader says what is wrong with the document (``WorkloadBuilder.problem``)."""

_WHOLE = re.compile(r"\d+\Z")


@datarecord
class Container:
    path: Path  # the container's item in its list
    data: Mapping[str, Any]

    @property
    def name(self) -> str:
        name = self.data.get("name")
        if isinstance(name, str) and name:
            return name
        return f"#{self.path[-1]}" if self.path else "unnamed"


@datarecord
class GpuRequest:
    """The GPUs one container requests, and where the count is written."""

    count: int
    resource: str  # nvidia.com/gpu
    path: Path  # the resource's key in limits (or requests)
    container: Container


@datarecord
class PodSpec:
    """A pod spec and the metadata of the template it is in (labels such as Kueue's queue)."""

    path: Path
    data: Mapping[str, Any]
    labels: Mapping[str, Any]
    labels_path: Path

    def at(self, *parts: str | int) -> Path:
        return (*self.path, *parts)


def mapping(value: Any) -> Mapping[str, Any]:
    """``value`` if it is a mapping, else an empty one (wrong types are reported where read)."""
    return value if isinstance(value, Mapping) else {}


def sequence(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def template(data: Mapping[str, Any], path: Path) -> PodSpec | None:
    """The pod spec of a PodTemplateSpec (``{metadata, spec}``) at ``path`` in ``data``."""
    node = lookup(data, path)
    if not isinstance(node, Mapping) or not isinstance(node.get("spec"), Mapping):
        return None
    labels = mapping(mapping(node.get("metadata")).get("labels"))
    return PodSpec((*path, "spec"), node["spec"], labels, (*path, "metadata", "labels"))


def bare(data: Mapping[str, Any], path: Path) -> PodSpec | None:
    """A pod spec written directly at ``path`` (a Pod's ``spec``, LLMInferenceService
    ``template``), with the object's own labels."""
    node = lookup(data, path)
    if not isinstance(node, Mapping):
        return None
    labels = mapping(mapping(data.get("metadata")).get("labels"))
    return PodSpec(path, node, labels, ("metadata", "labels"))


def lookup(data: Any, path: Path) -> Any:
    """The value at ``path`` in ``data``, or None."""
    for part in path:
        if isinstance(part, int):
            data = data[part] if isinstance(data, list) and 0 <= part < len(data) else None
        else:
            data = data.get(part) if isinstance(data, Mapping) else None
    return data


#: An init container with this restart policy is a native sidecar (Kubernetes 1.29+).
_SIDECAR_RESTART = "Always"


def containers(pod: PodSpec) -> list[Container]:
    """The containers that run for the pod's whole life: its ``containers``, then its native
    sidecars (``initContainers`` with ``restartPolicy: Always``), which start first and keep
    running beside them, holding their GPUs as long. Other init containers run to completion
    before the pod starts and are not its workload."""
    main = [
        Container(pod.at("containers", index), item)
        for index, item in enumerate(sequence(pod.data.get("containers")))
        if isinstance(item, Mapping)
    ]
    sidecars = [
        Container(pod.at("initContainers", index), item)
        for index, item in enumerate(sequence(pod.data.get("initContainers")))
        if isinstance(item, Mapping) and item.get("restartPolicy") == _SIDECAR_RESTART
    ]
    return main + sidecars


def container_gpus(
    container: Container, report: Report, key: str = "resources"
) -> GpuRequest | None:
    """The GPUs a container requests (limits first, then requests), or None. ``key`` holds the
    requirements (a TrainJob trainer's ``resourcesPerNode``)."""
    resources = mapping(container.data.get(key))
    for section in ("limits", "requests"):
        amounts = mapping(resources.get(section))
        for resource in gpu_resources():
            if resource not in amounts:
                continue
            path = (*container.path, key, section, resource)
            count = quantity(amounts[resource], f"{resource} {section[:-1]}", path, report)
            if count is None:
                return None
            return GpuRequest(count, resource, path, container) if count else None
    return None


def pod_gpus(pod: PodSpec, report: Report) -> tuple[int, GpuRequest | None]:
    """The GPUs of one pod (the sum over its containers) and the first container's request."""
    requests = [r for c in containers(pod) if (r := container_gpus(c, report)) is not None]
    return sum(r.count for r in requests), (requests[0] if requests else None)


def quantity(value: Any, what: str, path: Path, report: Report) -> int | None:
    """A whole-number quantity (``2`` or ``"2"``); anything else is reported and None."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str):
        message = unrendered(what, value)
        if message is not None:
            report(Origin(path), message)
            return None
        if _WHOLE.match(value.strip()):
            return int(value)
    report(Origin(path), f"{what} {value!r} is not a whole number (Kubernetes counts GPUs whole)")
    return None


def whole(value: Any, what: str, path: Path, report: Report, minimum: int = 0) -> int | None:
    """A count written as a YAML integer (``replicas: 2``); anything else is reported."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= minimum:
        if value <= LARGEST_WHOLE:
            return value
        report(Origin(path), str(out_of_range(what)))
        return None
    message = unrendered(what, value) if isinstance(value, str) else None
    report(Origin(path), message or f"{what} {value!r} is not a whole number of {minimum} or more")
    return None
