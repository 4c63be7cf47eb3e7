"""Kubernetes workloads as gpulint reads them: the objects that run GPU pods, each mapped to one
normalised Workload (or one per model it serves).

Kinds read (any version of their API group): Deployment, StatefulSet, Pod, Job, CronJob;
LeaderWorkerSet; KServe InferenceService, ServingRuntime, ClusterServingRuntime and
LLMInferenceService; KubeRay RayService, RayCluster and RayJob; Kubeflow PyTorchJob, TrainJob,
TrainingRuntime and ClusterTrainingRuntime; AIBrix StormService, RoleSet, RayClusterFleet and
RayClusterReplicaSet. An object of these kinds is this format's when it
requests GPUs, runs a serving engine or training launcher, carries ``gpulint.dev/``
annotations, or is a kind that always serves a model (LLMInferenceService); any other
Kubernetes object, and these kinds without any of that (a web server's Deployment), are skipped
silently.

Recognition is decided per document on its parsed structure, never on the file's text: a
template action in a comment or in another document's string value (a ConfigMap's data) does not
hide a GPU Deployment beside it. A chart's template that is not YAML until rendered fails to
parse and is reported once as a template (GL010, ``linter/load/templates.py``); its rendered
output (``helm template ... | gpulint check -``) is what is linted.

Each object is read on its own: an InferenceService that names a ServingRuntime, a TrainJob that
names a ClusterTrainingRuntime, an autoscaler that targets a Deployment, are not joined to it
(runtimes are linted as templates of their own).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from linter.formats.base import Adapted, InputFile
from linter.formats.builder import Unrendered
from linter.formats.cmdline.shell import script_commands
from linter.formats.kubernetes import aibrix, core, kserve, kubeflow, lws, ray
from linter.formats.kubernetes.containers import recognised, run
from linter.formats.kubernetes.context import Context
from linter.formats.kubernetes.labels import gpu_resources
from linter.formats.kubernetes.pod_workload import FORMAT, Unit, adapt_units
from linter.formats.kubernetes.pods import Container, mapping
from linter.formats.markers import KUBERNETES
from linter.load import Document
from linter.model.assumptions import annotations_of
from linter.model.provenance import Origin

Reader = Callable[[Context], list[Unit]]

#: (API group, kind) -> the reader of its workloads. The group is the apiVersion without its
#: version ("" for the core group's ``v1``).
KINDS: dict[tuple[str, str], Reader] = {
    ("apps", "Deployment"): core.deployment,
    ("apps", "StatefulSet"): core.deployment,
    ("", "Pod"): core.pod,
    ("batch", "Job"): core.job,
    ("batch", "CronJob"): core.cron_job,
    ("keda.sh", "ScaledJob"): core.scaled_job,
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"): lws.leader_worker_set,
    ("serving.kserve.io", "InferenceService"): kserve.inference_service,
    ("serving.kserve.io", "ServingRuntime"): kserve.serving_runtime,
    ("serving.kserve.io", "ClusterServingRuntime"): kserve.serving_runtime,
    ("serving.kserve.io", "LLMInferenceService"): kserve.llm_inference_service,
    ("ray.io", "RayService"): ray.ray_service,
    ("ray.io", "RayCluster"): ray.ray_cluster,
    ("ray.io", "RayJob"): ray.ray_job,
    ("kubeflow.org", "PyTorchJob"): kubeflow.pytorch_job,
    ("trainer.kubeflow.org", "TrainJob"): kubeflow.train_job,
    ("trainer.kubeflow.org", "TrainingRuntime"): kubeflow.training_runtime,
    ("trainer.kubeflow.org", "ClusterTrainingRuntime"): kubeflow.training_runtime,
    ("orchestration.aibrix.ai", "StormService"): aibrix.storm_service,
    ("orchestration.aibrix.ai", "RoleSet"): aibrix.storm_service,
    ("orchestration.aibrix.ai", "RayClusterFleet"): aibrix.ray_cluster_fleet,
    ("orchestration.aibrix.ai", "RayClusterReplicaSet"): aibrix.ray_cluster_fleet,
}
#: Kinds that always serve a model, with or without GPUs in the object itself.
ALWAYS_OURS = frozenset({("serving.kserve.io", "LLMInferenceService")})

name: str = FORMAT
markers: tuple[bytes, ...] = KUBERNETES

# A kind line at any indentation, a list item's included (``- kind: Deployment`` inside a
# ``kind: List``), JSON's (``"kind": "Pod",``), and the typed lists of those kinds
# (``DeploymentList``).
_KIND_LINE = re.compile(
    r"^[ \t]*(?:-[ \t]+)?[\"']?kind[\"']?[ \t]*:[ \t]*[\"']?("
    + "|".join(sorted({k for _, k in KINDS}))
    + r")(?:List)?[\"']?(?:[ \t]*,)?[ \t]*$",
    re.MULTILINE,
)


def recognises(data: Mapping[str, Any], source: InputFile) -> bool:
    """A known kind that requests GPUs, runs an engine or launcher, or is annotated for
    gpulint."""
    key = _kind(data)
    if key is None:
        return False
    return (
        key in ALWAYS_OURS
        or bool(annotations_of(data))
        or _requests_gpus(data)
        or kserve.serves_llm(data)
        or ray.serves_llm(data)
        or _runs_program(data)
    )


def claims(text: str) -> bool:
    """A file that fails to parse is reported when it is a manifest of a known kind requesting
    GPUs (a chart's template among them: reported once as a template)."""
    return _KIND_LINE.search(text) is not None and any(
        resource in text for resource in gpu_resources()
    )


def adapt(document: Document, source: InputFile) -> Adapted:
    key = _kind(document.data)
    assert key is not None  # recognised
    return adapt_units(document, source, key[1], KINDS[key])


def _kind(data: Mapping[str, Any]) -> tuple[str, str] | None:
    api_version, kind = data.get("apiVersion"), data.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None
    group = api_version.rpartition("/")[0]
    return (group, kind) if (group, kind) in KINDS else None


def _walk(data: Any) -> Iterator[Mapping[str, Any]]:
    """Every mapping in a document (an explicit stack: documents are bounded in depth)."""
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            yield node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


#: Where a container, a Ray worker group or a training job states the resources it asks for.
_RESOURCE_SECTIONS = ("limits", "requests", "resourcesPerNode")


def _requests_gpus(data: Mapping[str, Any]) -> bool:
    """Whether any mapping of the document asks for a GPU resource (loops, not nested
    generators: every Kubernetes document of a run is asked this before it is adapted)."""
    resources = gpu_resources()
    for node in _walk(data):
        for section in _RESOURCE_SECTIONS:
            asked = node.get(section)
            if isinstance(asked, Mapping) and any(resource in asked for resource in resources):
                return True
    return False


def _runs_program(data: Mapping[str, Any]) -> bool:
    """A container (anything with an image) or a RayJob entrypoint starts an engine or launcher."""
    for node in _walk(data):
        if isinstance(node.get("image"), str) and run(Container((), node), _ignore) is not None:
            return True
    entrypoint = mapping(data.get("spec")).get("entrypoint")
    return isinstance(entrypoint, str) and recognised(script_commands([entrypoint])) is not None


def _ignore(origin: Origin, problem: str | Unrendered) -> None:
    """Recognition reads containers only to find a program; problems are reported by adapt."""


__all__ = ["KINDS", "adapt", "claims", "markers", "name", "recognises"]
