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
  ``activeDeadlineSeconds`` stops the run.
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
    model = ctx.get(("spec", "initializer", "model", "storageUri"))
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
            model=(
                StatedValue.at(model.removeprefix(HF_SCHEME), path, format_path(path))
                if isinstance(model, str) and model.startswith(HF_SCHEME)
                else None
            ),
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
    index = _trainer_job(jobs)
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
        )
    ]


def _trainer_job(jobs: list[Any]) -> int | None:
    key, value = TRAINER_STEP
    for index, job in enumerate(jobs):
        labels = mapping(
            mapping(mapping(mapping(job).get("template")).get("metadata")).get("labels")
        )
        if labels.get(key) == value:
            return index
    names = [mapping(job).get("name") for job in jobs]
    return names.index(TRAINER_JOB) if TRAINER_JOB in names else None


def _override(ctx: Context) -> PodSpec | None:
    """The pod overrides that apply to the trainer's job: node selection and tolerations."""
    for key, spec in (("podTemplateOverrides", ("spec",)), ("podSpecOverrides", ())):
        for index, item in enumerate(sequence(ctx.get(("spec", key)))):
            targets = [mapping(t).get("name") for t in sequence(mapping(item).get("targetJobs"))]
            if targets and TRAINER_JOB not in targets:
                continue
            return bare(ctx.data, ("spec", key, index, *spec))
    return None
