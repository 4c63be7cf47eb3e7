"""The core workload kinds: Deployment, StatefulSet, Pod, Job and CronJob.

- Deployment and StatefulSet: long-running pods, so inference unless a launcher says otherwise;
  ``spec.replicas`` (default 1) are the serving replicas.
- Job (and a CronJob's ``jobTemplate``, a KEDA ScaledJob's ``jobTargetRef``): training unless
  its program says otherwise;
  ``parallelism`` (default 1) pods run at once, each a node of the run; ``activeDeadlineSeconds``
  stops the run, so it is the runtime limit.
- Pod: a bare pod that runs to completion (``restartPolicy`` Never or OnFailure) is a job like a
  Job's pod; one that restarts forever (the default, Always) is taken as a dev pod (an
  interactive GPU box), unless its program says it serves or trains.

A Deployment's scale to zero comes from an autoscaler object (KEDA ScaledObject) that is not
part of the Deployment, so messages name that. A Job's ``ttlSecondsAfterFinished`` deletes the
finished Job object; its pods released their GPUs when they completed, so it is no idle
shutdown (a RayJob's is: there it deletes the Ray cluster).
"""

from __future__ import annotations

from linter.formats.kubernetes.context import Context
from linter.formats.kubernetes.pod_workload import Unit
from linter.formats.kubernetes.pods import bare, template
from linter.load.positions import Path, format_path

_SCALE_TO_ZERO = "a KEDA ScaledObject with minReplicaCount: 0 for this {kind}"
_BATCH_RESTART = ("Never", "OnFailure")


def deployment(ctx: Context) -> list[Unit]:
    return [
        Unit(
            ctx.name,
            ctx.kind,
            "inference",
            pod=template(ctx.data, ("spec", "template")),
            replicas=ctx.count(("spec", "replicas"), "spec.replicas"),
            names={
                "spec.serving.replicas": "spec.replicas",
                "spec.lifecycle.scaleToZero": _SCALE_TO_ZERO.format(kind=ctx.kind),
            },
        )
    ]


def job(ctx: Context) -> list[Unit]:
    return [_job(ctx, ("spec",))]


def cron_job(ctx: Context) -> list[Unit]:
    return [_job(ctx, ("spec", "jobTemplate", "spec"))]


def scaled_job(ctx: Context) -> list[Unit]:
    """KEDA starts Jobs from ``jobTargetRef`` on demand; how many at once is its scaling (the
    same object read as an autoscaler of itself: autoscalers.py)."""
    return [_job(ctx, ("spec", "jobTargetRef"))]


def _job(ctx: Context, spec: Path) -> Unit:
    deadline = (*spec, "activeDeadlineSeconds")
    parallelism = (*spec, "parallelism")
    return Unit(
        ctx.name,
        ctx.kind,
        "training",
        pod=template(ctx.data, (*spec, "template")),
        nodes=ctx.count(parallelism, format_path(parallelism), minimum=1),
        max_runtime_hours=ctx.hours(deadline, format_path(deadline)),
        names={
            "spec.lifecycle.maxRuntimeHours": format_path(deadline),
            "spec.resources.nodes": format_path(parallelism),
        },
    )


def pod(ctx: Context) -> list[Unit]:
    restart = ctx.get(("spec", "restartPolicy"))
    deadline = ("spec", "activeDeadlineSeconds")
    return [
        Unit(
            ctx.name,
            ctx.kind,
            "training" if restart in _BATCH_RESTART else "dev",
            pod=bare(ctx.data, ("spec",)),
            max_runtime_hours=ctx.hours(deadline, format_path(deadline)),
            names={"spec.lifecycle.maxRuntimeHours": format_path(deadline)},
        )
    ]
