"""KubeRay (ray.io): RayService, RayCluster and RayJob.

The Ray cluster (``RayCluster.spec``, ``RayService.spec.rayClusterConfig``,
``RayJob.spec.rayClusterSpec``) gives the GPUs: its first worker group whose pods request GPUs
(else a head that does), ``replicas`` (else ``minReplicas``) pods of it. With the in-tree
autoscaler on (``enableInTreeAutoscaling``) and a GPU group allowed down to zero, idle GPU
workers are removed after ``autoscalerOptions.idleTimeoutSeconds`` (KubeRay's default, 60 s).

- RayService serves. A Ray Serve LLM application (``import_path: ray.serve.llm:...``) in
  ``serveConfigV2`` is a YAML string: each of its ``llm_configs`` is one workload (vLLM
  serving ``model_loading_config.model_source``, else ``model_id``, on ``accelerator_type``
  GPUs, ``engine_kwargs`` as vLLM's arguments, one replica on ``tensor_parallel_size`` GPUs of
  ``pipeline_parallel_size`` nodes, ``deployment_config.autoscaling_config.min_replicas``
  replicas, 0 scaling to zero), with findings inside the string. Any other Serve application
  that names its model in what it is given (``serve_apps.py``) is one workload on the cluster's
  GPU pods; without such an application the cluster is one workload.
- RayCluster is a dev workload (a long-lived cluster that jobs are submitted to), unless
  annotated otherwise.
- RayJob runs ``spec.entrypoint`` (a shell command, read for an engine or launcher): training
  unless it says otherwise; batch inference when it runs Ray Data LLM (``ray_batch.py``).
  ``activeDeadlineSeconds`` stops it; with ``shutdownAfterJobFinishes: true`` its cluster is
  deleted ``ttlSecondsAfterFinished`` (default 0) after the job ends, otherwise the cluster's
  GPUs stay up after it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.formats.cmdline.shell import script_commands
from linter.formats.kubernetes.containers import LaunchedProgram, recognised
from linter.formats.kubernetes.context import Context
from linter.formats.kubernetes.embedded import Embedded, embedded
from linter.formats.kubernetes.engine_options import Option, engine_options
from linter.formats.kubernetes.pod_workload import Unit
from linter.formats.kubernetes.pods import PodSpec, mapping, pod_gpus, sequence, template
from linter.formats.kubernetes.ray_batch import ENTRYPOINT, BatchReading, batch_inference
from linter.formats.kubernetes.scheduling import NodeSelection, Placement, StatedValue, place
from linter.formats.kubernetes.serve_apps import ENGINE as ENGINE_FIELD
from linter.formats.kubernetes.serve_apps import MODEL as MODEL_FIELD
from linter.formats.kubernetes.serve_apps import read_app
from linter.load.positions import Path, format_path
from linter.model.workload import Profile
from linter.records import datarecord

ENGINE = "vllm"
LLM_IMPORT = "ray.serve.llm"
SERVE_CONFIG = ("spec", "serveConfigV2")
TENSOR_FIELD = ("spec", "serving", "tensorParallel")
PIPELINE_FIELD = ("spec", "serving", "pipelineParallel")
IDLE_TIMEOUT_DEFAULT = 60  # seconds: KubeRay autoscalerOptions.idleTimeoutSeconds
_CLUSTER = {
    "RayService": ("spec", "rayClusterConfig"),
    "RayCluster": ("spec",),
    "RayJob": ("spec", "rayClusterSpec"),
}


def serves_llm(data: Mapping[str, Any]) -> bool:
    """A RayService whose Serve config runs a Ray Serve LLM application."""
    config = mapping(data.get("spec")).get("serveConfigV2")
    return isinstance(config, str) and LLM_IMPORT in config


@datarecord
class GpuGroup:
    """The cluster's pods that hold GPUs: their template and how many run."""

    pod: PodSpec | None
    path: Path | None  # the worker group (None: the head)
    replicas: StatedValue | None
    idle_minutes: StatedValue | None


def ray_service(ctx: Context) -> list[Unit]:
    group = _gpu_group(ctx)
    return _serve_units(ctx, group) or [_cluster_unit(ctx, group, "inference")]


def ray_cluster(ctx: Context) -> list[Unit]:
    return [_cluster_unit(ctx, _gpu_group(ctx), "dev")]


def ray_job(ctx: Context) -> list[Unit]:
    group = _gpu_group(ctx)
    batch = batch_inference(ctx)
    if batch is None:
        unit = _cluster_unit(ctx, group, "training")
        unit.program = _entrypoint(ctx)
    else:
        unit = _batch_unit(ctx, group, batch)
    unit.max_runtime_hours = ctx.hours(
        ("spec", "activeDeadlineSeconds"), "spec.activeDeadlineSeconds"
    )
    if ctx.flag(("spec", "shutdownAfterJobFinishes")):
        ttl = ctx.minutes(("spec", "ttlSecondsAfterFinished"), "spec.ttlSecondsAfterFinished")
        unit.idle_minutes = ttl or StatedValue.at(
            0, ("spec", "shutdownAfterJobFinishes"), "spec.shutdownAfterJobFinishes"
        )
    unit.names = {
        **unit.names,
        "spec.lifecycle.maxRuntimeHours": "spec.activeDeadlineSeconds",
        "spec.lifecycle.idleShutdownMinutes": "spec.shutdownAfterJobFinishes: true",
    }
    return [unit]


def _batch_unit(ctx: Context, group: GpuGroup, batch: BatchReading) -> Unit:
    """Batch inference: one engine on ``tensor_parallel_size`` GPUs of the cluster's GPU pods
    (over ``pipeline_parallel_size`` nodes), for as long as the job runs."""
    values = {**batch.values, ENGINE_FIELD: batch.engine}
    gpus = values.get(TENSOR_FIELD) or StatedValue(
        1, batch.engine.origin, batch.names["spec.serving.tensorParallel"]
    )
    return Unit(
        ctx.name,
        ctx.kind,
        "batch-inference",
        pod=group.pod,
        options_at=(ENGINE, batch.where, ENTRYPOINT),
        undecided=batch.undecided,
        placement=_placement(ctx, group, batch.accelerator),
        gpus=gpus if group.pod is not None else None,
        nodes=values.get(PIPELINE_FIELD),
        model=batch.model,
        idle_minutes=group.idle_minutes,
        values=values,
        names={**_group_names(group), **batch.names},
    )


def _cluster_unit(ctx: Context, group: GpuGroup, profile: Profile) -> Unit:
    return Unit(
        ctx.name,
        ctx.kind,
        profile,
        pod=group.pod,
        nodes=group.replicas if group.replicas is not None and group.replicas.value else None,
        idle_minutes=group.idle_minutes,
        names=_group_names(group),
    )


def _group_names(group: GpuGroup) -> dict[str, str]:
    if group.path is None:
        return {}
    return {
        "spec.resources.nodes": format_path((*group.path, "replicas")),
        "spec.lifecycle.idleShutdownMinutes": (
            f"{format_path((*group.path, 'minReplicas'))}: 0 with enableInTreeAutoscaling"
        ),
    }


def _gpu_group(ctx: Context) -> GpuGroup:
    cluster = _CLUSTER[ctx.kind]
    candidates: list[tuple[PodSpec, Path | None]] = []
    groups = sequence(ctx.get((*cluster, "workerGroupSpecs")))
    for index in range(len(groups)):
        pod = template(ctx.data, (*cluster, "workerGroupSpecs", index, "template"))
        if pod is not None:
            candidates.append((pod, (*cluster, "workerGroupSpecs", index)))
    head = template(ctx.data, (*cluster, "headGroupSpec", "template"))
    if head is not None:
        candidates.append((head, None))
    with_gpus = [c for c in candidates if pod_gpus(c[0], ctx.report)[0] > 0]
    if not with_gpus:
        return GpuGroup(candidates[0][0] if candidates else None, None, None, None)
    pod, path = with_gpus[0]
    if path is None:
        return GpuGroup(pod, None, None, None)
    replicas = ctx.count((*path, "replicas"), format_path((*path, "replicas")))
    minimum = ctx.count((*path, "minReplicas"), format_path((*path, "minReplicas")))
    return GpuGroup(pod, path, replicas or minimum, _idle(ctx, cluster, minimum))


def _idle(ctx: Context, cluster: Path, minimum: StatedValue | None) -> StatedValue | None:
    """Idle GPU workers are removed when the autoscaler may take the group to zero."""
    autoscaling = (*cluster, "enableInTreeAutoscaling")
    if not ctx.flag(autoscaling) or minimum is None or minimum.value != 0:
        return None
    timeout = (*cluster, "autoscalerOptions", "idleTimeoutSeconds")
    found = ctx.minutes(timeout, format_path(timeout))
    if found is not None:
        return found
    minutes = -(-IDLE_TIMEOUT_DEFAULT // 60)
    return StatedValue.at(minutes, autoscaling, f"{format_path(timeout)} (KubeRay default 60 s)")


def _entrypoint(ctx: Context) -> LaunchedProgram | None:
    path = ("spec", "entrypoint")
    text = ctx.get(path)
    if not isinstance(text, str):
        return None
    found = recognised(script_commands([text]))
    if found is None:
        return None
    return LaunchedProgram(
        f"the {ctx.kind}", path, ((path, "entrypoint"),), *found, default_part="entrypoint"
    )


# -- Ray Serve applications in serveConfigV2 ------------------------------------------------------


def _applications(ctx: Context) -> list[Embedded]:
    config = embedded(ctx, SERVE_CONFIG, "serveConfigV2")
    if config is None:
        return []
    count = len(sequence(config.get("applications")))
    return [config.child("applications", index) for index in range(count)]


def _serve_units(ctx: Context, group: GpuGroup) -> list[Unit]:
    """One workload per LLM config of a Ray Serve LLM application, and one per other
    application that names its model (``serve_apps.py``)."""
    units: list[Unit] = []
    for app in _applications(ctx):
        if LLM_IMPORT in str(app.get("import_path") or ""):
            configs = sequence(app.get("args", "llm_configs"))
            for c, config in enumerate(configs):
                if isinstance(config, Mapping):
                    llm = app.child("args", "llm_configs", c)
                    units.append(_llm_unit(ctx, group, llm, len(units)))
        else:
            unit = _app_unit(ctx, group, app, len(units))
            if unit is not None:
                units.append(unit)
    return units


def _llm_unit(ctx: Context, group: GpuGroup, llm: Embedded, part: int) -> Unit:
    kwargs = mapping(llm.get("engine_kwargs"))
    options = [
        Option(
            "--" + str(key),
            value,
            llm.origin("engine_kwargs", str(key)),
            llm.name("engine_kwargs", str(key)),
        )
        for key, value in kwargs.items()
    ]
    read = engine_options(ENGINE, options, ctx.report)
    values = read.values
    values[ENGINE_FIELD] = StatedValue(ENGINE, llm.origin(), "the Ray Serve LLM config")
    tensor = values.get(TENSOR_FIELD)
    gpus = tensor or StatedValue(1, llm.origin(), llm.name("engine_kwargs", "tensor_parallel_size"))
    name = llm.get("model_loading_config", "model_id")
    return _serve_unit(
        ctx,
        group,
        f"{ctx.name}-{name}" if isinstance(name, str) else f"{ctx.name}-{part}",
        part,
        _replicas(llm.child("deployment_config")),
        placement=_placement(ctx, group, _accelerator_type(llm)),
        options_at=(ENGINE, llm.name("engine_kwargs"), SERVE_CONFIG),
        undecided=read.undecided,
        gpus=gpus,
        model=_model(llm),
        values=values,
        names={
            "spec.serving.maxContextTokens": llm.name("engine_kwargs", "max_model_len"),
            "spec.serving.maxBatchSize": llm.name("engine_kwargs", "max_num_seqs"),
            "spec.serving.gpuMemoryUtilization": llm.name(
                "engine_kwargs", "gpu_memory_utilization"
            ),
            "spec.serving.kvCachePrecision": llm.name("engine_kwargs", "kv_cache_dtype"),
            "spec.serving.tensorParallel": llm.name("engine_kwargs", "tensor_parallel_size"),
        },
    )


def _app_unit(ctx: Context, group: GpuGroup, app: Embedded, part: int) -> Unit | None:
    """An application running an engine in its own code: a workload when what it is given
    names its model. Its replicas hold ``ray_actor_options.num_gpus`` GPUs, else the tensor
    parallel size it is given, else the worker pod's."""
    reading = read_app(app, ctx.report)
    values = dict(reading.values)
    model = values.pop(MODEL_FIELD, None)
    if model is None:
        return None
    deployment = reading.deployment
    actor = deployment.child("ray_actor_options") if deployment is not None else None
    gpus = actor.count("num_gpus") if actor is not None else None
    if gpus is None or not gpus.value:
        gpus = values.get(TENSOR_FIELD)
    name = app.get("name")
    engine = reading.engine
    where = app.child("runtime_env").name("env_vars")
    return _serve_unit(
        ctx,
        group,
        f"{ctx.name}-{name}" if isinstance(name, str) else f"{ctx.name}-{part}",
        part,
        _replicas(deployment) if deployment is not None else _Replicas(),
        placement=_placement(ctx, group, _accelerator_type(actor)),
        options_at=(engine, where, SERVE_CONFIG) if engine is not None else None,
        undecided=reading.undecided,
        gpus=gpus,
        model=model,
        values=values,
        names=reading.names,
    )


@datarecord
class _Replicas:
    """A Serve deployment's replicas: the fewest it keeps, the most, and what the file calls
    its minimum."""

    minimum: StatedValue | None = None
    maximum: StatedValue | None = None
    name: str | None = None


def _replicas(deployment: Embedded) -> _Replicas:
    """``autoscaling_config.min_replicas``, else a fixed ``num_replicas`` (``auto`` lets Serve
    choose: unknown here), and ``autoscaling_config.max_replicas``."""
    autoscaling = deployment.child("autoscaling_config")
    fixed = deployment.get("num_replicas")
    minimum = autoscaling.count("min_replicas") or (
        deployment.count("num_replicas") if fixed != "auto" else None
    )
    return _Replicas(minimum, autoscaling.count("max_replicas"), autoscaling.name("min_replicas"))


def _placement(ctx: Context, group: GpuGroup, accelerator: StatedValue | None) -> Placement | None:
    """Where the worker pod's node selection places it; a Ray ``accelerator_type`` the
    configuration asks for is its GPU type."""
    if group.pod is None:
        return None
    labels = mapping(mapping(ctx.data.get("metadata")).get("labels"))
    placement = place(NodeSelection.of(group.pod, labels), ctx.report)
    if accelerator is not None:
        placement.accelerator = accelerator
        placement.alternatives = []
    return placement


def _accelerator_type(node: Embedded | None) -> StatedValue | None:
    """A Ray ``accelerator_type`` (``L4``) written in ``node``."""
    value = node.get("accelerator_type") if node is not None else None
    return (
        node.found(value, "accelerator_type")
        if node is not None and isinstance(value, str)
        else None
    )


def _serve_unit(
    ctx: Context,
    group: GpuGroup,
    name: str,
    part: int,
    replicas: _Replicas,
    *,
    placement: Placement | None,
    options_at: tuple[str, str, Path] | None,
    undecided: frozenset[str],
    gpus: StatedValue | None,
    model: StatedValue | None,
    values: dict[Path, StatedValue],
    names: dict[str, str],
) -> Unit:
    """One served model on the cluster's GPU pods: ``gpus`` per replica (None: the pod's),
    over ``pipeline_parallel_size`` nodes."""
    minimum = replicas.minimum
    replica_names = (
        {
            "spec.serving.replicas": replicas.name,
            "spec.lifecycle.scaleToZero": replicas.name + ": 0",
        }
        if replicas.name is not None
        else {}
    )
    return Unit(
        name,
        ctx.kind,
        "inference",
        part=part,
        pod=group.pod,
        options_at=options_at,
        undecided=undecided,
        placement=placement,
        gpus=gpus if group.pod is not None else None,
        nodes=values.get(PIPELINE_FIELD),
        model=model,
        replicas=minimum,
        max_replicas=replicas.maximum,
        scale_to_zero=StatedValue(True, minimum.origin, minimum.name)
        if minimum is not None and minimum.value == 0
        else None,
        values=values,
        names={**replica_names, **names},
    )


def _model(llm: Embedded) -> StatedValue | None:
    for key in ("model_source", "model_id"):
        value = llm.get("model_loading_config", key)
        if isinstance(value, str) and value:
            return llm.found(value, "model_loading_config", key)
    return None
