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
  replicas, 0 scaling to zero), with findings inside the string. Any other Serve application is
  one workload of the cluster.
- RayCluster is a dev workload (a long-lived cluster that jobs are submitted to), unless
  annotated otherwise.
- RayJob runs ``spec.entrypoint`` (a shell command, read for an engine or launcher): training
  unless it says otherwise. ``activeDeadlineSeconds`` stops it; with
  ``shutdownAfterJobFinishes: true`` its cluster is deleted ``ttlSecondsAfterFinished`` (default
  0) after the job ends, otherwise the cluster's GPUs stay up after it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from linter.formats.cmdline.shell import script_commands
from linter.formats.kubernetes.containers import LaunchedProgram, recognised
from linter.formats.kubernetes.context import Context
from linter.formats.kubernetes.engine_options import Option, engine_options
from linter.formats.kubernetes.pod_workload import Profile, Unit
from linter.formats.kubernetes.pods import PodSpec, mapping, pod_gpus, sequence, template
from linter.formats.kubernetes.scheduling import NodeSelection, StatedValue, place
from linter.load import load_text
from linter.load.positions import Path, SourceMap, format_path
from linter.model.provenance import Origin

ENGINE = "vllm"
LLM_IMPORT = "ray.serve.llm"
SERVE_CONFIG = ("spec", "serveConfigV2")
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


@dataclass(frozen=True)
class GpuGroup:
    """The cluster's pods that hold GPUs: their template and how many run."""

    pod: PodSpec | None
    path: Path | None  # the worker group (None: the head)
    replicas: StatedValue | None
    idle_minutes: StatedValue | None


def ray_service(ctx: Context) -> list[Unit]:
    group = _gpu_group(ctx)
    configs = _llm_configs(ctx)
    if not configs:
        return [_cluster_unit(ctx, group, "inference")]
    return [_llm_unit(ctx, group, embedded, part) for part, embedded in enumerate(configs)]


def ray_cluster(ctx: Context) -> list[Unit]:
    return [_cluster_unit(ctx, _gpu_group(ctx), "dev")]


def ray_job(ctx: Context) -> list[Unit]:
    unit = _cluster_unit(ctx, _gpu_group(ctx), "training")
    unit.program = _entrypoint(ctx)
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


# -- Ray Serve LLM configs embedded in serveConfigV2 ---------------------------------------------


@dataclass(frozen=True)
class Embedded:
    """One LLM config inside the ``serveConfigV2`` string, able to locate its parts in the file."""

    ctx: Context
    config: Mapping[str, Any]
    path: Path  # of the config in the embedded document
    source_map: SourceMap
    line_starts: tuple[int, ...]

    def get(self, *parts: str) -> Any:
        node: Any = self.config
        for part in parts:
            node = mapping(node).get(part)
        return node

    def origin(self, *parts: str | int) -> Origin:
        """The file position of a part of the config (through the string's offsets)."""
        span = self.source_map.locate((*self.path, *parts))
        start = self.line_starts[span.line - 1] + span.column - 1
        end = self.line_starts[span.end_line - 1] + span.end_column - 1
        return self.ctx.sink.at_word(SERVE_CONFIG, start, max(end, start + 1))

    def name(self, *parts: str) -> str:
        return f"{'.'.join(parts)} in serveConfigV2 ({format_path(self.path)})"

    def found(self, value: Any, *parts: str) -> StatedValue:
        return StatedValue(value, self.origin(*parts), self.name(*parts))


def _llm_configs(ctx: Context) -> list[Embedded]:
    text = ctx.get(SERVE_CONFIG)
    if not isinstance(text, str) or LLM_IMPORT not in text:
        return []
    loaded = load_text(text)
    starts = _line_starts(text)
    for problem in loaded.problems:
        span = problem.span
        offset = starts[min(span.line, len(starts)) - 1] + span.column - 1
        ctx.report(
            ctx.sink.at_word(SERVE_CONFIG, offset, offset + 1),
            f"serveConfigV2 is not valid YAML: {problem.message}",
        )
    if not loaded.documents:
        return []
    document = loaded.documents[0]
    out = []
    for a, application in enumerate(sequence(mapping(document.data).get("applications"))):
        application = mapping(application)
        if LLM_IMPORT not in str(application.get("import_path", "")):
            continue
        for c, config in enumerate(sequence(mapping(application.get("args")).get("llm_configs"))):
            if isinstance(config, Mapping):
                path = ("applications", a, "args", "llm_configs", c)
                out.append(Embedded(ctx, config, path, document.source_map, starts))
    return out


def _line_starts(text: str) -> tuple[int, ...]:
    starts = [0]
    for index, char in enumerate(text):
        if char == "\n":
            starts.append(index + 1)
    return tuple(starts)


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
    values[("spec", "serving", "engine")] = StatedValue(
        ENGINE, llm.origin(), "the Ray Serve LLM config"
    )
    labels = mapping(mapping(ctx.data.get("metadata")).get("labels"))
    placement = place(NodeSelection.of(group.pod, labels), ctx.report) if group.pod else None
    accelerator = llm.get("accelerator_type")
    if placement is not None and isinstance(accelerator, str):
        placement.accelerator = llm.found(accelerator, "accelerator_type")
        placement.alternatives = []
    tensor = values.get(("spec", "serving", "tensorParallel"))
    pipeline = values.get(("spec", "serving", "pipelineParallel"))
    gpus = tensor or StatedValue(1, llm.origin(), llm.name("engine_kwargs", "tensor_parallel_size"))
    autoscaling = ("deployment_config", "autoscaling_config")
    minimum = _embedded_count(ctx, llm, *autoscaling, "min_replicas") or _embedded_count(
        ctx, llm, "deployment_config", "num_replicas"
    )
    model = _model(llm)
    name = llm.get("model_loading_config", "model_id")
    return Unit(
        f"{ctx.name}-{name}" if isinstance(name, str) else f"{ctx.name}-{part}",
        ctx.kind,
        "inference",
        part=part,
        pod=group.pod,
        options_at=(ENGINE, llm.name("engine_kwargs"), SERVE_CONFIG),
        undecided=read.undecided,
        placement=placement,
        gpus=gpus if group.pod is not None else None,
        nodes=pipeline,
        model=model,
        replicas=minimum,
        max_replicas=_embedded_count(ctx, llm, *autoscaling, "max_replicas"),
        scale_to_zero=StatedValue(True, minimum.origin, minimum.name)
        if minimum is not None and minimum.value == 0
        else None,
        values=values,
        names={
            "spec.serving.replicas": llm.name(*autoscaling, "min_replicas"),
            "spec.lifecycle.scaleToZero": llm.name(*autoscaling, "min_replicas") + ": 0",
            "spec.serving.maxContextTokens": llm.name("engine_kwargs", "max_model_len"),
            "spec.serving.maxBatchSize": llm.name("engine_kwargs", "max_num_seqs"),
            "spec.serving.gpuMemoryUtilization": llm.name(
                "engine_kwargs", "gpu_memory_utilization"
            ),
            "spec.serving.kvCachePrecision": llm.name("engine_kwargs", "kv_cache_dtype"),
            "spec.serving.tensorParallel": llm.name("engine_kwargs", "tensor_parallel_size"),
        },
    )


def _model(llm: Embedded) -> StatedValue | None:
    for key in ("model_source", "model_id"):
        value = llm.get("model_loading_config", key)
        if isinstance(value, str) and value:
            return llm.found(value, "model_loading_config", key)
    return None


def _embedded_count(ctx: Context, llm: Embedded, *parts: str) -> StatedValue | None:
    value = llm.get(*parts)
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return llm.found(value, *parts)
    ctx.report(llm.origin(*parts), f"{llm.name(*parts)}: {value!r} is not a whole number")
    return None
