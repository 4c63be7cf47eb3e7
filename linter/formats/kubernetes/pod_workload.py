"""One normalised workload from what a kind reader found in a Kubernetes object: the pod that
holds the GPUs, the program it runs, its node selection, and the object's own counts (replicas,
nodes, deadlines, scale to zero).

Profile, when no ``gpulint.dev/profile`` annotation says it: a serving engine in the container
makes it inference (batch-inference when the kind's reader found a batch job running one), a
training launcher training; otherwise the kind decides (serving kinds: inference; batch kinds:
training; see each kind's reader). Training that starts from a model it
names (a base model, a model initializer) or uses a fine-tuning method (LoRA) is fine-tuning.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import field
from typing import Any, get_args

from linter.findings import Finding
from linter.formats.base import Adapted, InputFile
from linter.formats.builder import WorkloadBuilder
from linter.formats.cmdline.launchers import METHOD_FIELD
from linter.formats.kubernetes import scheduling, settings
from linter.formats.kubernetes.containers import LaunchedProgram, env_values, pod_program
from linter.formats.kubernetes.context import Context
from linter.formats.kubernetes.devices import requested_device, writes_gpu_request
from linter.formats.kubernetes.labels import gpu_resources
from linter.formats.kubernetes.pods import PodSpec, Report, mapping, pod_gpus
from linter.formats.kubernetes.scheduling import NodeSelection, Placement, StatedValue
from linter.formats.kubernetes.storage import cache_volume
from linter.load import Document
from linter.load.positions import Path
from linter.model.assumptions import annotations_of, read_annotation
from linter.model.base import NAME_PATTERN
from linter.model.fields import FIELDS
from linter.model.provenance import Origin
from linter.model.values import ValueProblem
from linter.model.workload import INFERENCE_PROFILES, Profile
from linter.records import datarecord

FORMAT = "kubernetes"
_UNKNOWN_TYPE = ("spec", "resources", "gpusOfUnknownType")
_ACCELERATOR = ("spec", "resources", "accelerator")
_LOCAL_PATH = "/"
_FALLBACK = "spec.serving.onDemandFallbackReplicas"


@datarecord(frozen=False)
class Unit:
    """One workload an object describes, as its kind's reader found it.

    ``pod`` is the pod that holds the GPUs and runs the program (a worker's, for a group);
    ``gpus`` the GPUs per node when the object counts them outside a pod spec (a TrainJob's
    ``resourcesPerNode``). ``values`` are other normalised values the object states
    (LLMInferenceService ``parallelism.tensor``), ``names`` what the object calls fields it
    leaves unset (``spec.activeDeadlineSeconds``).
    """

    name: str
    kind: str
    profile: Profile
    format: str = FORMAT
    object_path: Path = ()
    part: int = 0
    pod: PodSpec | None = None
    program: LaunchedProgram | None = None
    engine: str | None = None  # the engine the containers' image starts when no command does
    gpus: StatedValue | None = None
    nodes: StatedValue | None = None
    replicas: StatedValue | None = None
    max_replicas: StatedValue | None = None
    scale_to_zero: StatedValue | None = None
    idle_minutes: StatedValue | None = None
    max_runtime_hours: StatedValue | None = None
    model: StatedValue | None = None
    values: dict[Path, StatedValue] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    placement: Placement | None = None
    metadata: Mapping[str, Any] | None = None  # the object's metadata (None: the document's)
    metadata_path: Path = ("metadata",)
    #: A template (a serving or training runtime) is a workload only when it names its model,
    #: or requests GPUs; otherwise only its problems are reported.
    requires_model: bool = False
    requires_gpus: bool = False
    #: Engine options written as structured values rather than a command line: the engine,
    #: what the file calls the options, and where a missing one would go; ``undecided`` the
    #: fields they set to what is only known at run time (``auto``, a secret).
    options_at: tuple[str, str, Path] | None = None
    undecided: frozenset[str] = frozenset()


def builder_for(document: Document, file: InputFile, unit: Unit) -> WorkloadBuilder:
    return WorkloadBuilder(
        document,
        file,
        format=unit.format,
        source_kind=unit.kind,
        name=workload_name(unit.name),
        object_path=unit.object_path,
        part=unit.part,
    )


def build(document: Document, file: InputFile, unit: Unit) -> Adapted:
    """The normalised workload of ``unit``, with the document's problems it found on the way."""
    builder = builder_for(document, file, unit)
    report: Report = builder.problem
    metadata = (
        unit.metadata if unit.metadata is not None else mapping(document.data.get("metadata"))
    )
    _metadata(builder, metadata, unit.metadata_path)
    program = unit.program or (
        pod_program(unit.pod, report, unit.engine) if unit.pod is not None else None
    )
    if program is not None and (program.engine or program.launch):
        settings.apply(builder, program)
    _model(builder, unit)
    _from_env(builder, unit, program, training=False)  # the model: it can make it fine-tuning
    profile = _profile(builder, metadata, unit, program)
    if profile in ("training", "fine-tuning"):
        _from_env(builder, unit, program, training=True)
    placement = unit.placement or (
        scheduling.place(NodeSelection.of(unit.pod, mapping(metadata.get("labels"))), report)
        if unit.pod is not None
        else Placement()
    )
    gpus = _accelerator(builder, unit, placement, metadata, report)
    if gpus is None and unit.pod is not None:
        _without_gpus(builder, unit.pod, program, profile)
    if profile in INFERENCE_PROFILES and program is not None and unit.pod is not None:
        cache = cache_volume(document.data, unit.pod, program, report)
        if cache is not None and not builder.has("spec.model.cacheGib"):
            builder.set("spec.model.cacheGib", cache.value, cache.origin, name=cache.name)
    _placement(builder, placement)
    _counts(builder, unit, profile)
    for path, found in unit.values.items():
        if not builder.has(path):
            builder.set(path, found.value, found.origin, name=found.name)
    fallback = f"a second {unit.kind} on on-demand nodes"
    for field_path, name in {**unit.names, _FALLBACK: fallback}.items():
        if builder.name_of(field_path) is None:
            builder.call(field_path, name)
    if profile in INFERENCE_PROFILES:
        _engine_defaults(builder, unit, program)
    if program is not None and gpus is not None:
        settings.check_parallelism(builder, program, gpus * _number(unit.nodes, 1))
    model = builder.value("spec.model.id")
    named = isinstance(model, str) and not model.startswith(_LOCAL_PATH)
    if (unit.requires_model and not named) or (unit.requires_gpus and gpus is None):
        return Adapted(findings=builder.findings)
    _name_annotations(builder)
    annotations = (*unit.metadata_path, "annotations")
    return builder.build({"metadata": metadata}, annotations)


def adapt_units(
    document: Document,
    file: InputFile,
    kind: str,
    read: Callable[[Context], list[Unit]],
    format: str = FORMAT,
) -> Adapted:
    """The workloads a reader finds in a document, with the document's problems once each."""
    sink = builder_for(document, file, Unit(kind.lower(), kind, "inference", format=format))
    out = Adapted()
    for unit in read(Context(document, file, kind, sink)):
        adapted = build(document, file, unit)
        out.manifests.extend(adapted.manifests)
        out.findings.extend(adapted.findings)
    out.findings = _distinct([*sink.findings, *out.findings])
    return out


def _distinct(findings: list[Finding]) -> list[Finding]:
    """Problems found once per workload of a document (a shared cluster spec) reported once."""
    seen: set[tuple[str, str, Any]] = set()
    out = []
    for finding in findings:
        key = (finding.rule_id, finding.message, finding.location.span)
        if key not in seen:
            seen.add(key)
            out.append(finding)
    return out


def workload_name(name: str) -> str:
    """A name the normalised metadata accepts: Kubernetes names already are; anything else is
    lower-cased with other characters made dashes (the object's own validity is not ours)."""
    if re.match(NAME_PATTERN, name):
        return name
    cleaned = re.sub(r"[^a-z0-9._-]+", "-", name.lower()).strip("-._")
    return cleaned or "unnamed"


def _metadata(builder: WorkloadBuilder, metadata: Mapping[str, Any], path: Path) -> None:
    """Where the name is written (run-wide findings on a workload point there), and namespace,
    labels and annotations, copied for what matches workloads to quotas, queues and node pools
    (string values only: Kubernetes takes no other)."""
    if isinstance(metadata.get("name"), str):
        builder.place("metadata.name", Origin((*path, "name")))
    namespace = metadata.get("namespace")
    if isinstance(namespace, str) and namespace:
        builder.set("metadata.namespace", namespace, Origin((*path, "namespace")))
    for key in ("labels", "annotations"):
        entries = {
            k: v
            for k, v in mapping(metadata.get(key)).items()
            if isinstance(v, str) and isinstance(k, str)
        }
        if entries:
            builder.set(("metadata", key), entries, Origin((*path, key)))


def _model(builder: WorkloadBuilder, unit: Unit) -> None:
    """The model the object names (a storage URI) wins over an engine argument that is only the
    local path it is mounted at (``--model /mnt/models``)."""
    if unit.model is None:
        return
    current = builder.value("spec.model.id")
    if current is None or (isinstance(current, str) and current.startswith(_LOCAL_PATH)):
        builder.set("spec.model.id", unit.model.value, unit.model.origin, name=unit.model.name)


def _from_env(
    builder: WorkloadBuilder, unit: Unit, program: LaunchedProgram | None, *, training: bool
) -> None:
    """The model id (when neither a flag nor the object names one) and a job's fine-tuning
    settings (each when no flag gives it) from the container's environment: a fine-tuning image
    whose script is inside it reads ``MODEL_NAME``, ``LORA_R``."""
    if unit.pod is None or builder.has("spec.model.config"):
        return
    for found in env_values(unit.pod, program, training=training):
        path = f"spec.{found.value.field}"
        if not builder.has(path):
            builder.set(path, found.value.value, found.origin, name=found.name)


def _profile(
    builder: WorkloadBuilder,
    metadata: Mapping[str, Any],
    unit: Unit,
    program: LaunchedProgram | None,
) -> Profile:
    """Set the profile (unless the annotation says it; the builder applies that) and return the
    one in effect."""
    annotated = annotations_of({"metadata": metadata}).get("profile")
    if annotated is not None:
        try:
            _, value = read_annotation("profile", annotated)
        except ValueProblem:
            value = None
        return value if value in get_args(Profile) else unit.profile
    profile: Profile = unit.profile
    launch = program.launch if program is not None else None
    tuned = launch is not None and METHOD_FIELD in launch.settings
    if program is not None and program.engine is not None:
        profile = unit.profile if unit.profile in INFERENCE_PROFILES else "inference"
    elif launch is not None:
        profile = "training"
    if profile == "training" and (tuned or builder.has("spec.model.id")):
        profile = "fine-tuning"  # it starts from a model it names, or tunes it with LoRA
    builder.set("spec.profile", profile, Origin(unit.object_path))
    return profile


def _accelerator(
    builder: WorkloadBuilder,
    unit: Unit,
    placement: Placement,
    metadata: Mapping[str, Any],
    report: Report,
) -> int | None:
    """GPUs per node and their type; returns the count (None when the object requests none)."""
    count, where = _gpu_count(unit, report)
    if not count or where is None:
        return None
    typed = placement.accelerator or placement.memory_gib
    supplied = "accelerator" in annotations_of({"metadata": metadata}) or any(
        a.path == _ACCELERATOR for a in builder.file.assumptions
    )
    if typed is None and not supplied:
        builder.call(
            _ACCELERATOR,
            f"{where.name} with a GPU node selector, or the gpulint.dev/accelerator annotation",
        )
        builder.set(_UNKNOWN_TYPE, count, where.origin, name=where.name)
        return count
    builder.place(_ACCELERATOR, where.origin)
    builder.set((*_ACCELERATOR, "count"), count, where.origin, name=where.name)
    if placement.accelerator is not None:
        found = placement.accelerator
        builder.set((*_ACCELERATOR, "type"), found.value, found.origin, name=found.name)
    elif placement.memory_gib is not None:
        found = placement.memory_gib
        builder.set((*_ACCELERATOR, "memoryGib"), found.value, found.origin, name=found.name)
    for index, alternative in enumerate(placement.alternatives):
        path = ("spec", "resources", "alternatives", index, "accelerator")
        builder.set(
            path,
            {"type": alternative.value, "count": count},
            alternative.origin,
            name=alternative.name,
        )
    return count


def _without_gpus(
    builder: WorkloadBuilder, pod: PodSpec, program: LaunchedProgram | None, profile: Profile
) -> None:
    """A pod whose GPUs are not read: requested but unreadable (a GL001 already), or what it
    runs on instead (a TPU, a CPU build); where its GPUs would be requested."""
    if writes_gpu_request(pod):
        builder.set("spec.resources.gpuCountUnknown", True, Origin(pod.path))
        return
    device = requested_device(pod, program)
    if profile in INFERENCE_PROFILES and device is not None:
        builder.set("spec.serving.device", device.value, device.origin, name=device.name)
    if program is not None and builder.name_of(_ACCELERATOR) is None:
        limits = " or ".join(gpu_resources())
        builder.call(_ACCELERATOR, f"{limits} in the limits of {program.owner}")


def _gpu_count(unit: Unit, report: Report) -> tuple[int, StatedValue | None]:
    if unit.gpus is not None:
        return int(unit.gpus.value), unit.gpus
    if unit.pod is None:
        return 0, None
    count, first = pod_gpus(unit.pod, report)
    if first is None:
        return 0, None
    name = f"{first.resource} in the {first.container.name} container's resources"
    return count, StatedValue.at(count, first.path, name)


def _placement(builder: WorkloadBuilder, placement: Placement) -> None:
    for path, found in (
        ("spec.resources.instanceType", placement.instance_type),
        ("spec.resources.region", placement.region),
        ("spec.resources.provider", placement.provider),
        ("spec.resources.capacity", placement.capacity),
        ("spec.resources.pool", placement.pool),
    ):
        if found is not None:
            builder.set(path, found.value, found.origin, name=found.name)


def _counts(builder: WorkloadBuilder, unit: Unit, profile: Profile) -> None:
    serving = profile == "inference"
    for path, found in (
        ("spec.resources.nodes", unit.nodes),
        ("spec.serving.replicas", unit.replicas if serving else None),
        ("spec.serving.maxReplicas", unit.max_replicas if serving else None),
        ("spec.lifecycle.scaleToZero", unit.scale_to_zero if serving else None),
        ("spec.lifecycle.idleShutdownMinutes", unit.idle_minutes),
        ("spec.lifecycle.maxRuntimeHours", unit.max_runtime_hours),
    ):
        if found is not None:  # the object's own count wins over a launcher's flag
            builder.set(path, found.value, found.origin, name=found.name)


def _number(found: StatedValue | None, default: int) -> int:
    return int(found.value) if found is not None else default


def _engine_defaults(builder: WorkloadBuilder, unit: Unit, program: LaunchedProgram | None) -> None:
    if program is not None and program.engine is not None:
        where = f"{program.owner}'s {program.flag_part()}"
        undecided = settings.undecided(program.engine)
        engine = program.engine.engine
        settings.engine_defaults(builder, engine, where, program.lacking(), undecided)
    elif unit.options_at is not None:
        settings.engine_defaults(builder, *unit.options_at, unit.undecided)


def _name_annotations(builder: WorkloadBuilder) -> None:
    """Fields a Kubernetes object has no place for are set with ``gpulint.dev/`` annotations;
    messages name the annotation (unless the object gave the field a name of its own)."""
    builder.call_unnamed(_ANNOTATION_NAMES)


_ANNOTATION_NAMES = {
    entry.path: f"annotation gpulint.dev/{entry.annotation}"
    for entry in FIELDS.values()
    if entry.annotation is not None
}
