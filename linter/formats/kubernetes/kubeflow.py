"""Kubeflow training: PyTorchJob (kubeflow.org/v1), TrainJob, TrainingRuntime and
ClusterTrainingRuntime (trainer.kubeflow.org/v1alpha1). Training unless the launcher (or a
pretrained model it starts from) says fine-tuning.

- PyTorchJob: ``pytorchReplicaSpecs.Master`` and ``.Worker`` (each ``replicas`` pods, default 1)
  are the nodes of one run, with the worker's pod template (else the master's); the container is
  ``pytorch``. ``runPolicy.activeDeadlineSeconds`` stops the run.
- TrainJob: ``spec.trainer`` is the trainer container (``image``, ``command``, ``args``,
  ``env``) on ``numNodes`` nodes with ``resourcesPerNode``; ``initializer.model.storageUri``
  (``hf://``) is the model it starts from; node selection and tolerations come from
  ``podTemplateOverrides`` (or the older ``podSpecOverrides``) for the trainer's job. Its
  runtime (``runtimeRef``) is not joined to it.
- TrainingRuntime / ClusterTrainingRuntime: a template; a workload when its trainer job (the
  replicated job labelled ``trainer.kubeflow.org/trainjob-ancestor-step: trainer``, else the
  one named ``node``) requests GPUs; ``mlPolicy.numNodes`` nodes, and that Job template's
  ``activeDeadlineSeconds`` stops the run. The model it starts from is the ``hf://`` URI in the
  model initializer's ``STORAGE_URI`` (the job labelled ``model-initializer``, else so named),
  as Kubeflow's own runtimes download it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.formats.kubernetes.containers import run
from linter.formats.kubernetes.context import Context
from linter.formats.kubernetes.pod_workload import Unit
from linter.formats.kubernetes.pods import (
    Container,
    PodSpec,
    bare,
    container_gpus,
    mapping,
    sequence,
    template,
)
from linter.formats.kubernetes.scheduling import StatedValue
from linter.load.positions import format_path

HF_SCHEME = "hf://"
TRAINER_STEP = ("trainer.kubeflow.org/trainjob-ancestor-step", "trainer")
TRAINER_JOB = "node"
MODEL_INITIALIZER = "model-initializer"
STORAGE_URI = "STORAGE_URI"
_REPLICAS = ("spec", "pytorchReplicaSpecs")


def pytorch_job(ctx: Context) -> list[Unit]:
    pods: list[PodSpec] = []
    nodes = 0
    first: StatedValue | None = None
    for role in ("Worker", "Master"):
        spec = (*_REPLICAS, role)
        if not isinstance(ctx.get(spec), Mapping):
            continue
        pod = template(ctx.data, (*spec, "template"))
        if pod is not None:
            pods.append(pod)
        replicas = ctx.count((*spec, "replicas"), format_path((*spec, "replicas")))
        nodes += 1 if replicas is None else int(replicas.value)
        first = first or replicas
    deadline = ("spec", "runPolicy", "activeDeadlineSeconds")
    return [
        Unit(
            ctx.name,
            ctx.kind,
            "training",
            pod=pods[0] if pods else None,
            nodes=StatedValue(nodes, first.origin, first.name) if first and nodes else None,
            max_runtime_hours=ctx.hours(deadline, format_path(deadline)),
            names={
                "spec.lifecycle.maxRuntimeHours": format_path(deadline),
                "spec.resources.nodes": format_path((*_REPLICAS, "Worker", "replicas")),
            },
        )
    ]


def train_job(ctx: Context) -> list[Unit]:
    trainer = ("spec", "trainer")
    container = Container(trainer, {"name": "trainer", **mapping(ctx.get(trainer))})
    request = container_gpus(container, ctx.report, key="resourcesPerNode")
    gpus = (
        StatedValue.at(
            request.count, request.path, f"{request.resource} in spec.trainer.resourcesPerNode"
        )
        if request is not None
        else None
    )
    path = ("spec", "initializer", "model", "storageUri")
    return [
        Unit(
            ctx.name,
            ctx.kind,
            "training",
            pod=_override(ctx),
            program=run(container, ctx.report),
            gpus=gpus,
            nodes=ctx.count((*trainer, "numNodes"), "spec.trainer.numNodes", minimum=1),
            model=_hf_model(ctx.get(path), path),
            names={
                "spec.resources.nodes": "spec.trainer.numNodes",
                "spec.lifecycle.maxRuntimeHours": (
                    "activeDeadlineSeconds of the training runtime's trainer job"
                ),
            },
        )
    ]


def training_runtime(ctx: Context) -> list[Unit]:
    jobs = sequence(ctx.get(("spec", "template", "spec", "replicatedJobs")))
    index = _labelled_job(jobs, TRAINER_STEP[1], TRAINER_JOB)
    if index is None:
        return []
    job = ("spec", "template", "spec", "replicatedJobs", index, "template", "spec")
    deadline = (*job, "activeDeadlineSeconds")
    return [
        Unit(
            ctx.name,
            ctx.kind,
            "training",
            pod=template(ctx.data, (*job, "template")),
            nodes=ctx.count(("spec", "mlPolicy", "numNodes"), "spec.mlPolicy.numNodes", minimum=1),
            max_runtime_hours=ctx.hours(deadline, format_path(deadline)),
            names={
                "spec.lifecycle.maxRuntimeHours": format_path(deadline),
                "spec.resources.nodes": "spec.mlPolicy.numNodes",
            },
            requires_gpus=True,
            model=_initializer_model(jobs),
        )
    ]


def _hf_model(uri: Any, path: tuple[str | int, ...]) -> StatedValue | None:
    """The model id of an ``hf://`` URI at ``path``, else None (another store names no id)."""
    if isinstance(uri, str) and uri.startswith(HF_SCHEME):
        return StatedValue.at(uri.removeprefix(HF_SCHEME), path, format_path(path))
    return None


def _initializer_model(jobs: list[Any]) -> StatedValue | None:
    """The model a training runtime's model initializer downloads (``STORAGE_URI`` in its
    containers' env), else None."""
    index = _labelled_job(jobs, MODEL_INITIALIZER, MODEL_INITIALIZER)
    if index is None:
        return None
    pod = ("spec", "template", "spec", "replicatedJobs", index, "template", "spec", "template")
    containers = ("spec", "containers")
    job = mapping(mapping(jobs[index]).get("template"))
    pod_spec = mapping(mapping(mapping(job.get("spec")).get("template")).get("spec"))
    for number, container in enumerate(sequence(pod_spec.get("containers"))):
        for entry, variable in enumerate(sequence(mapping(container).get("env"))):
            if mapping(variable).get("name") == STORAGE_URI:
                path = (*pod, *containers, number, "env", entry, "value")
                return _hf_model(mapping(variable).get("value"), path)
    return None


def _labelled_job(jobs: list[Any], step: str, name: str) -> int | None:
    """The replicated job labelled as the runtime's ``step`` (Kubeflow's ancestor-step label),
    else the one called ``name``."""
    key = TRAINER_STEP[0]
    for index, job in enumerate(jobs):
        labels = mapping(
            mapping(mapping(mapping(job).get("template")).get("metadata")).get("labels")
        )
        if labels.get(key) == step:
            return index
    names = [mapping(job).get("name") for job in jobs]
    return names.index(name) if name in names else None


def _override(ctx: Context) -> PodSpec | None:
    """The pod overrides that apply to the trainer's job: node selection and tolerations."""
    for key, spec in (("podTemplateOverrides", ("spec",)), ("podSpecOverrides", ())):
        for index, item in enumerate(sequence(ctx.get(("spec", key)))):
            targets = [mapping(t).get("name") for t in sequence(mapping(item).get("targetJobs"))]
            if targets and TRAINER_JOB not in targets:
                continue
            return bare(ctx.data, ("spec", key, index, *spec))
    return None
