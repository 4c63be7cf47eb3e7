"""The ``scaling`` fact: the autoscaler of the run (an ``Autoscaler`` document: a KEDA
ScaledObject, a HorizontalPodAutoscaler) that scales a workload, and the replicas it keeps with
no load.

An autoscaler scales the workload read from the object its target names: the same kind (a
Kubernetes workload's source kind, ``Workload`` for gpulint's own format), the same name and the
same namespace (both unset counts as the same: both land wherever they are applied). When
several autoscalers name one workload, the one keeping the fewest replicas is its scaling (they
fight over it; the lowest minimum is what it may drop to). The index is built once per run; a
workload costs one lookup.
"""

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from linter.facts.base import Fact, described
from linter.facts.pool import Reference
from linter.facts.run import Records, RunInputs, RunSide
from linter.model import Workload
from linter.model.manifest import Manifest

if TYPE_CHECKING:  # defined when a run first reads one (linter.model.kind_model)
    from linter.model.autoscaler import Autoscaler

_OWN_KIND = "Workload"

Key = tuple[str | None, str, str]


class ScalingFact(Fact):
    scaled_by: str | None = described(
        "The autoscaler that scales it ('ScaledObject chat/llama-scaler'); null: none in the run."
    )
    min_replicas: int | None = described("Replicas it keeps with no load.")
    max_replicas: int | None = described("Most replicas it may scale to.")
    scales_to_zero: bool = described("An autoscaler drops it to zero replicas when idle.")
    related: list[Reference] = described("Where the autoscaler sets its minimum.")


def record(manifest: Manifest, _known: Mapping[str, Fact]) -> dict[str, Any] | None:
    """An autoscaler's target and bounds, or a workload's identity."""
    if manifest.kind == "Autoscaler":
        scaler = cast("Autoscaler", manifest.model)
        spec, namespace = scaler.spec, scaler.metadata.namespace
        shown = f"{namespace}/{manifest.name}" if namespace else manifest.name
        return {
            "scaler": {
                "key": [namespace, spec.target.kind, spec.target.name],
                "display": f"{manifest.source_kind or 'Autoscaler'} {shown}",
                "min": spec.min_replicas,
                "max": spec.max_replicas,
                "at": [manifest.file, manifest.index, manifest.part],
            }
        }
    if isinstance(manifest.model, Workload):
        kind = manifest.source_kind or _OWN_KIND
        return {"workload": [manifest.model.metadata.namespace, kind, manifest.name]}
    return None


def index(records: Records, _inputs: RunInputs) -> dict[Key, dict[str, Any]]:
    """Target -> the autoscaler keeping the fewest replicas of it."""
    out: dict[Key, dict[str, Any]] = {}
    for _, item in records:
        scaler = item.get("scaler")
        if scaler is None:
            continue
        key: Key = tuple(scaler["key"])
        if key not in out or scaler["min"] < out[key]["min"]:
            out[key] = scaler
    return out


def fact(item: dict[str, Any] | None, scalers: dict[Key, dict[str, Any]]) -> ScalingFact:
    workload = None if item is None else item.get("workload")
    scaler = None if workload is None else scalers.get(tuple(workload))
    if scaler is None:
        return ScalingFact(
            scaled_by=None, min_replicas=None, max_replicas=None, scales_to_zero=False, related=[]
        )
    file, document, part = scaler["at"]
    minimum = Reference(
        file=file,
        document=document,
        part=part,
        path="spec.minReplicas",
        message=f"{scaler['display']} keeps {scaler['min']} replicas with no load",
    )
    return ScalingFact(
        scaled_by=scaler["display"],
        min_replicas=scaler["min"],
        max_replicas=scaler["max"],
        scales_to_zero=scaler["min"] == 0,
        related=[minimum],
    )


RUN = RunSide(record, index, fact, {"Autoscaler": ("spec.minReplicas",)})
