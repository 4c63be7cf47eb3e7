"""KServe: InferenceService (v1beta1), ServingRuntime / ClusterServingRuntime and
LLMInferenceService (v1alpha1). All serve: the profile is inference.

InferenceService: the predictor is a pod spec with the model's container (``predictor.model``)
or its own ``containers``. A ``huggingface`` (or ``vllm``) model format runs vLLM by default
(KServe's Hugging Face runtime falls back to transformers only with ``--backend huggingface``),
so its ``args`` are read as vLLM's, with the runtime's own ``--model_id``; a ``hf://`` storage
URI names the model too. ``minReplicas`` (default 1) are the replicas, ``0`` scales to zero;
``maxReplicas`` caps them. The ``serving.kserve.io/gke-accelerator`` annotation stands for the
GKE accelerator node selector KServe injects from it.

ServingRuntime: a template for the InferenceServices that name it (not joined to them here). It
is linted for what its containers' arguments would make the engine refuse, and becomes a
workload only when its arguments name the model themselves.

LLMInferenceService: vLLM (llm-d) serving ``spec.model.uri`` (or, for weights in a volume or
bucket, the ``spec.model.name`` it serves them as) with ``spec.replicas`` replicas of
``spec.template`` (a pod spec); ``spec.parallelism.tensor`` and ``.pipeline`` shard the model;
with ``spec.worker`` each replica spans ``data / dataLocal`` nodes (a LeaderWorkerSet).
``spec.prefill`` is a second workload: the disaggregated prefill pool, with its own replicas,
template and parallelism.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.formats.cmdline.arguments import read_arguments
from linter.formats.cmdline.engines import engine_for_image
from linter.formats.cmdline.shell import argv_commands
from linter.formats.kubernetes.containers import LaunchedProgram, run
from linter.formats.kubernetes.context import Context
from linter.formats.kubernetes.labels import catalogue
from linter.formats.kubernetes.pod_workload import Unit
from linter.formats.kubernetes.pods import Container, bare, container_gpus, containers, mapping
from linter.formats.kubernetes.scheduling import NodeSelection, StatedValue, place
from linter.load.positions import Path, format_path

ENGINE = "vllm"
HF_SCHEME = "hf://"
GKE_ANNOTATION = "serving.kserve.io/gke-accelerator"
_PREDICTOR = ("spec", "predictor")


def serves_llm(data: Mapping[str, Any]) -> bool:
    """An InferenceService whose model format runs an LLM engine."""
    spec = mapping(data.get("spec"))
    model = mapping(mapping(spec.get("predictor")).get("model"))
    return _format(model) in catalogue().kserve_huggingface.formats


def inference_service(ctx: Context) -> list[Unit]:
    pod = bare(ctx.data, _PREDICTOR)
    model = mapping(ctx.get((*_PREDICTOR, "model")))
    program, gpus, named = None, None, None
    if model:
        container = Container((*_PREDICTOR, "model"), {"name": "kserve-container", **model})
        engine = ENGINE if _format(model) in catalogue().kserve_huggingface.formats else None
        program = run(container, ctx.report, engine)
        flags = _runtime_flags(ctx, program) if program is not None else {}
        named = flags.get("model.id")
        backend = flags.get("serving.engine")
        if backend is not None and backend.value == "huggingface":
            program = None  # transformers, not vLLM: its memory is not vLLM's to judge
        request = container_gpus(container, ctx.report)
        if request is not None:
            where = f"{request.resource} in spec.predictor.model.resources"
            gpus = StatedValue.at(request.count, request.path, where)
    storage = _storage(ctx, (*_PREDICTOR, "model", "storageUri"))
    minimum = ctx.count((*_PREDICTOR, "minReplicas"), "spec.predictor.minReplicas")
    placement = place(NodeSelection.of(pod, _labels(ctx)), ctx.report) if pod else None
    if placement is not None and placement.accelerator is None:
        placement.accelerator = _gke_annotation(ctx)
        if placement.accelerator is not None and placement.provider is None:
            placement.provider = StatedValue("gcp", placement.accelerator.origin, GKE_ANNOTATION)
    return [
        Unit(
            ctx.name,
            ctx.kind,
            "inference",
            pod=pod,
            program=program,
            gpus=gpus,
            placement=placement,
            model=named or storage,
            replicas=minimum,
            max_replicas=ctx.count((*_PREDICTOR, "maxReplicas"), "spec.predictor.maxReplicas"),
            scale_to_zero=(
                StatedValue(True, minimum.origin, minimum.name)
                if minimum is not None and minimum.value == 0
                else None
            ),
            names={
                "spec.serving.replicas": "spec.predictor.minReplicas",
                "spec.lifecycle.scaleToZero": "spec.predictor.minReplicas: 0",
            },
        )
    ]


def serving_runtime(ctx: Context) -> list[Unit]:
    pod = bare(ctx.data, ("spec",))
    if pod is None:
        return []
    program = None
    for container in containers(pod):
        image = container.data.get("image")
        engine = _runtime_engine(image) if isinstance(image, str) else None
        program = run(container, ctx.report, engine)
        if program is not None:
            break
    named = _runtime_flags(ctx, program).get("model.id") if program is not None else None
    return [
        Unit(
            ctx.name,
            ctx.kind,
            "inference",
            pod=pod,
            program=program,
            model=named,
            requires_model=True,
        )
    ]


def llm_inference_service(ctx: Context) -> list[Unit]:
    units = [_llm_workload(ctx, ("spec",), ctx.name, 0)]
    if isinstance(ctx.get(("spec", "prefill")), Mapping):
        units.append(_llm_workload(ctx, ("spec", "prefill"), f"{ctx.name}-prefill", 1))
    return units


def _llm_workload(ctx: Context, spec: Path, name: str, part: int) -> Unit:
    parallelism = (*spec, "parallelism")
    values: dict[Path, StatedValue] = {}
    for key, field in (("tensor", "tensorParallel"), ("pipeline", "pipelineParallel")):
        path = (*parallelism, key)
        found = ctx.count(path, format_path(path), minimum=1)
        if found is not None:
            values[("spec", "serving", field)] = found
    nodes = None
    if isinstance(ctx.get((*spec, "worker")), Mapping):
        nodes = _data_nodes(ctx, parallelism)
    model = _llm_model(ctx)
    return Unit(
        name,
        ctx.kind,
        "inference",
        part=part,
        object_path=spec if part else (),
        pod=bare(ctx.data, (*spec, "template")),
        engine=ENGINE,
        model=model,
        nodes=nodes,
        replicas=ctx.count((*spec, "replicas"), format_path((*spec, "replicas"))),
        values=values,
        names={"spec.serving.replicas": format_path((*spec, "replicas"))},
    )


def _data_nodes(ctx: Context, parallelism: Path) -> StatedValue | None:
    """Nodes of one multi-node replica: ``data / dataLocal`` (KServe's LeaderWorkerSet size)."""
    data = ctx.count((*parallelism, "data"), format_path((*parallelism, "data")), minimum=1)
    local = ctx.count(
        (*parallelism, "dataLocal"), format_path((*parallelism, "dataLocal")), minimum=1
    )
    if data is None or local is None:
        return None
    return StatedValue(max(1, int(data.value) // int(local.value)), data.origin, data.name)


def _format(model: Mapping[str, Any]) -> str | None:
    name = mapping(model.get("modelFormat")).get("name")
    return name.lower() if isinstance(name, str) else None


def _runtime_engine(image: str) -> str | None:
    """The engine a runtime image starts: its own (vLLM's image), or vLLM behind KServe's
    Hugging Face server."""
    table = catalogue().kserve_huggingface
    found = engine_for_image(image)
    if found is not None:
        return found
    repository = image.split("@", 1)[0].rsplit(":", 1)[0]
    return ENGINE if any(repository.endswith(known) for known in table.images) else None


def _runtime_flags(ctx: Context, program: LaunchedProgram) -> dict[str, StatedValue]:
    """What the Hugging Face runtime's own flags say (``--model_id``, ``--backend``)."""
    items = [ctx.get(path) for path, _ in program.items]
    texts = [item if isinstance(item, str) else str(item) for item in items]
    table = catalogue().kserve_huggingface
    out: dict[str, StatedValue] = {}
    for command in argv_commands(texts):
        read = read_arguments(command.words, table)
        for field, setting in read.settings.items():
            word = setting.value_word or setting.flag_word
            if word is None:
                continue
            origin = ctx.sink.at_word(program.item_path(word), word.start, word.end)
            out[field] = StatedValue(setting.value, origin, program.describe(setting.flag, word))
    return out


def _storage(ctx: Context, path: Path) -> StatedValue | None:
    """The model a storage URI names: the repository of ``hf://org/name``; any other URI as it
    is (an unknown model, reported as such)."""
    uri = ctx.get(path)
    if not isinstance(uri, str) or not uri:
        return None
    model = uri.removeprefix(HF_SCHEME) if uri.startswith(HF_SCHEME) else uri
    return StatedValue.at(model, path, format_path(path))


def _llm_model(ctx: Context) -> StatedValue | None:
    """An LLMInferenceService's model: the repository of an ``hf://`` ``spec.model.uri``; for
    weights copied into a volume or bucket (``pvc://``, ``s3://``) the served ``spec.model.name``
    (``RedHatAI/gpt-oss-20b``), which names the checkpoint the volume holds; else the URI."""
    uri = ctx.get(("spec", "model", "uri"))
    name_path: Path = ("spec", "model", "name")
    name = ctx.get(name_path)
    stored_elsewhere = isinstance(uri, str) and not uri.startswith(HF_SCHEME)
    if (stored_elsewhere or uri is None) and isinstance(name, str) and name.strip():
        return StatedValue.at(name.strip(), name_path, format_path(name_path))
    return _storage(ctx, ("spec", "model", "uri"))


def _gke_annotation(ctx: Context) -> StatedValue | None:
    path = ("metadata", "annotations", GKE_ANNOTATION)
    value = ctx.get(path)
    return (
        StatedValue.at(value, path, f"annotation {GKE_ANNOTATION}")
        if isinstance(value, str)
        else None
    )


def _labels(ctx: Context) -> Mapping[str, Any]:
    return mapping(mapping(ctx.data.get("metadata")).get("labels"))
