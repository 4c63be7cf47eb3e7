"""Storage sizes Kubernetes objects write as resource quantities (``50Gi``, ``100G``), in GiB:
a claim's ``requests.storage``, an emptyDir's ``sizeLimit``, production-stack's ``pvcStorage``;
and which volume of a serving pod holds the model's files (its Hugging Face cache, by the
engine's default folder or the environment that moves it: ``data/model_cache.yaml``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.formats.builder import unrendered
from linter.formats.kubernetes.containers import LaunchedProgram
from linter.formats.kubernetes.pods import (
    Container,
    PodSpec,
    Report,
    containers,
    lookup,
    mapping,
    sequence,
)
from linter.formats.kubernetes.quantity import parse_quantity
from linter.formats.kubernetes.scheduling import StatedValue
from linter.formats.platforms.model_cache import moved_by, tables
from linter.load.positions import Path
from linter.model.provenance import Origin
from linter.model.values import ValueProblem

_GIB = 1024**3


def size_gib(value: Any, path: Path, what: str, report: Report) -> StatedValue | None:
    """The size at ``path`` in GiB; a placeholder or a value that is no quantity is reported
    (the template note, or GL001) and None, as is a size of 0 (no room at all is no limit
    Kubernetes accepts for a volume that holds files)."""
    if isinstance(value, str):
        placeholder = unrendered(what, value)
        if placeholder is not None:
            report(Origin(path), placeholder)
            return None
    try:
        amount = parse_quantity(value)
    except ValueProblem as err:
        report(Origin(path), f"{what}: {err}")
        return None
    if amount <= 0:
        report(Origin(path), f"{what} {value!r} is no room at all")
        return None
    return StatedValue.at(amount / _GIB, path, what)


def cache_volume(
    data: Mapping[str, Any], pod: PodSpec, program: LaunchedProgram, report: Report
) -> StatedValue | None:
    """The size of the volume the engine's container keeps the model's files in: the mount at
    its cache folder (or above it) and that volume's ``emptyDir.sizeLimit``, generic ephemeral
    claim, or StatefulSet ``volumeClaimTemplates`` request. None when no sized volume holds it
    (the node's disk, a claim defined in another document)."""
    engine = program.engine.engine if program.engine is not None else None
    container = next((c for c in containers(pod) if c.path == program.path), None)
    if engine is None or container is None:
        return None
    folder = _cache_folder(container, engine)
    mount = _mount(container, folder) if folder is not None else None
    if mount is None:
        return None
    for index, volume in enumerate(sequence(pod.data.get("volumes"))):
        volume = mapping(volume)
        if volume.get("name") == mount:
            return _volume_size(volume, pod.at("volumes", index), report)
    templates = lookup(data, ("spec", "volumeClaimTemplates"))
    for index, template in enumerate(sequence(templates)):
        if mapping(mapping(template).get("metadata")).get("name") == mount:
            at = ("spec", "volumeClaimTemplates", index)
            return _claim_size(
                mapping(template).get("spec"), at, f"volumeClaimTemplate {mount}", report
            )
    return None


def _cache_folder(container: Container, engine: str) -> str | None:
    env = {
        item["name"]: item.get("value")
        for item in map(mapping, sequence(container.data.get("env")))
        if isinstance(item.get("name"), str)
    }
    moved = moved_by(env)
    if moved is not None:
        return moved
    image = container.data.get("image")
    image = image if isinstance(image, str) else ""
    for default in tables().defaults:
        words = default.image_words
        if default.engine == engine and (not words or any(w in image for w in words)):
            return default.path
    return None


def _mount(container: Container, folder: str) -> str | None:
    """The volume mounted at ``folder`` or the nearest folder above it."""
    best, best_length = None, -1
    for mount in map(mapping, sequence(container.data.get("volumeMounts"))):
        where, name = mount.get("mountPath"), mount.get("name")
        if not isinstance(where, str) or not isinstance(name, str):
            continue
        base = where.rstrip("/") or "/"
        inside = folder == base or folder.startswith(base.rstrip("/") + "/")
        if inside and len(base) > best_length:
            best, best_length = name, len(base)
    return best


def _volume_size(volume: Mapping[str, Any], at: Path, report: Report) -> StatedValue | None:
    empty = mapping(volume.get("emptyDir"))
    if "sizeLimit" in empty:
        where = (*at, "emptyDir", "sizeLimit")
        return size_gib(
            empty["sizeLimit"], where, f"emptyDir.sizeLimit of volume {volume['name']}", report
        )
    template = mapping(mapping(volume.get("ephemeral")).get("volumeClaimTemplate"))
    if template:
        where = (*at, "ephemeral", "volumeClaimTemplate")
        return _claim_size(template.get("spec"), where, f"volume {volume['name']}", report)
    return None


def _claim_size(spec: Any, at: Path, owner: str, report: Report) -> StatedValue | None:
    requests = mapping(mapping(mapping(spec).get("resources")).get("requests"))
    if "storage" not in requests:
        return None
    where = (*at, "spec", "resources", "requests", "storage")
    return size_gib(requests["storage"], where, f"requests.storage of {owner}", report)
