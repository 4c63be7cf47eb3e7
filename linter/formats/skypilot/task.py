"""One SkyPilot task or service document as a normalised Workload.

Profile: a ``service`` section is inference (SkyServe); otherwise the ``run`` script decides (a
serving engine is inference, a training launch is fine-tuning when it names a model or a method
and training otherwise); a document without ``run`` is an interactive cluster (dev: ``sky
launch`` then ssh); any other script is training.

Lifecycle and recovery, and why:

- ``autostop`` stops a cluster when no job runs: it is the idle shutdown of jobs and interactive
  clusters, not of a server (a running server is a running job).
- ``job_recovery`` acts only for managed jobs (``sky jobs launch``); a task started with ``sky
  launch`` is not recovered after a preemption. The file is the only thing gpulint reads, so a
  recovery strategy in it is taken as the author's statement that it runs as a managed job
  (restarted after a preemption; its cluster is torn down when the job ends), ``job_recovery:
  none`` as no restart, and no ``job_recovery`` as a task that is not recovered (SkyPilot's
  behaviour for ``sky launch``, said so in the message).
- A ``timeout DURATION`` around the command in ``run`` is its runtime limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from linter.formats.base import Adapted, InputFile
from linter.formats.builder import WorkloadBuilder
from linter.formats.cmdline.checkpoints import Where, apply_checkpoints
from linter.formats.cmdline.releases import set_release
from linter.formats.cmdline.scripts import (
    Reading,
    Script,
    apply_engine,
    apply_launch,
    apply_limit,
    read_scripts,
)
from linter.formats.platforms import SkyPilotVocabulary, merged, platform_env, platforms
from linter.formats.platforms.instance_choice import cheapest_instance
from linter.formats.platforms.model_cache import moved_by
from linter.formats.platforms.shared import (
    PlacementChoice,
    assume_names,
    set_choices,
    template_problem,
    workload_name,
)
from linter.formats.skypilot.mounts import read_mounts
from linter.formats.skypilot.resources import (
    RESOURCES,
    Setting,
    read_autostop,
    read_placements,
    read_recovery,
)
from linter.formats.skypilot.service import read_service
from linter.load import Document
from linter.model.provenance import Origin

FORMAT = "skypilot"
#: How ``image_id`` names a Docker image ("Using Docker Containers" in SkyPilot's docs).
DOCKER = "docker:"
STORAGE = "a bucket in `file_mounts` with mode: MOUNT, or a volume"
PLACEMENT_NAMES = {
    "provider": "`infra` under resources",
    "region": "`infra` under resources",
    "instanceType": "`instance_type` under resources",
    "accelerator": "`accelerators` under resources",
    "capacity": "`use_spot` under resources",
}
NAMES = {
    "spec.resources.nodes": "`num_nodes`",
    "spec.resources.pool": "`infra: k8s/<context>` under resources",
    "spec.lifecycle.idleShutdownMinutes": "`autostop` under resources",
    "spec.lifecycle.maxRuntimeHours": "a `timeout <duration>` before the command in `run`",
    "spec.lifecycle.restartOnPreemption": (
        "`job_recovery` under resources, launched with `sky jobs launch`"
    ),
}

#: A server started with `sky launch` never goes idle: what releases its GPUs is SkyServe.
SERVER_NAMES = {
    "spec.lifecycle.idleShutdownMinutes": (
        "an idle shutdown (`autostop` never fires while the server runs)"
    ),
    "spec.lifecycle.scaleToZero": (
        "`min_replicas: 0` under service.replica_policy, served with `sky serve up`"
    ),
}


def adapt(document: Document, source: InputFile) -> Adapted:
    data: Mapping[str, Any] = document.data
    vocab = platforms().skypilot
    service = data.get("service")
    kind = "SkyPilot service" if service is not None else "SkyPilot task"
    name = workload_name(data.get("name"), source.fs_path, "skypilot-task")
    builder = WorkloadBuilder(document, source, format=FORMAT, source_kind=kind, name=name)
    assume_names(builder)
    for path, written in NAMES.items():
        builder.call(path, written)
    for key in data:
        if key not in vocab.task_keys:
            builder.problem(builder.at((key,)), f"`{key}` is not a SkyPilot task field")
    resources = _resources(builder, data, vocab)
    nodes = _nodes(builder, data)
    placements = read_placements(builder, resources, vocab) if resources else None
    choices = placements.choices if placements else []
    if placements is not None and placements.pool is not None:
        builder.set("spec.resources.pool", placements.pool[0], placements.pool[1])
    gpus = {c.get("accelerator")["count"] for c in choices if c.get("accelerator")}
    env, env_origins = _environment(builder, data)
    env = merged(platform_env(vocab.env, next(iter(gpus)) if len(gpus) == 1 else None, nodes), env)
    reading = read_scripts(builder, _shells(builder, data), env)
    profile = "inference" if service is not None else reading.profile()
    if profile is None:
        profile = "training" if "run" in data else "dev"
    builder.set("spec.profile", profile, builder.at(("service",) if service else ()))
    if profile == "inference" and service is None:
        for path, written in SERVER_NAMES.items():
            builder.call(path, written)
    _placement(builder, choices, resources)
    if isinstance(service, Mapping):
        read_service(builder, service, vocab)
    elif service is not None:
        builder.problem(builder.at(("service",)), "service is a mapping (readiness_probe, ...)")
    _commands(builder, reading, env_origins)
    _disk(builder, resources, env)
    _release(builder, reading, resources)
    if profile in ("training", "fine-tuning"):
        mounts = read_mounts(builder, data, env, vocab)
        where = Where("run", STORAGE)
        apply_checkpoints(builder, reading, mounts, where, platforms().checkpoint_flag_hints)
    if service is None:
        _lifecycle(builder, resources, profile, vocab)
    return builder.build({})


def _resources(
    builder: WorkloadBuilder, data: Mapping[str, Any], vocab: SkyPilotVocabulary
) -> Mapping[str, Any]:
    resources = data.get("resources")
    if resources is None:
        return {}
    if not isinstance(resources, Mapping):
        builder.problem(builder.at(RESOURCES), "resources is a mapping (accelerators, ...)")
        return {}
    for key in resources:
        if key not in vocab.resource_keys:
            where = builder.at((*RESOURCES, key))
            builder.problem(where, f"`{key}` is not a SkyPilot resources field")
    return resources


def _disk(builder: WorkloadBuilder, resources: Mapping[str, Any], env: Mapping[str, Any]) -> None:
    """``disk_size`` (GB, as the clouds size disks) holds the Hugging Face cache, in the home
    folder, unless the environment moves the cache elsewhere (a mounted bucket or volume)."""
    if "disk_size" not in resources or moved_by(dict(env)) is not None:
        return
    value, path = resources["disk_size"], (*RESOURCES, "disk_size")
    if template_problem(builder, path, "disk_size", value):
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        builder.problem(builder.at(path), f"disk_size is a whole number of GB, got {value!r}")
        return
    builder.set("spec.model.cacheGib", value, builder.at(path), name="`disk_size` under resources")


def _nodes(builder: WorkloadBuilder, data: Mapping[str, Any]) -> int:
    if "num_nodes" not in data:
        return 1
    value = data["num_nodes"]
    if template_problem(builder, ("num_nodes",), "num_nodes", value):
        return 1
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        builder.problem(builder.at(("num_nodes",)), f"num_nodes is 1 or more, got {value!r}")
        return 1
    builder.set("spec.resources.nodes", value, builder.at(("num_nodes",)))
    return value


def _environment(
    builder: WorkloadBuilder, data: Mapping[str, Any]
) -> tuple[dict[str, str | None], dict[str, tuple[Origin, str]]]:
    """``envs`` and ``secrets`` as the scripts see them: a value written as text is known; a
    null one is given at launch, and a secret's value is never read (both unknown)."""
    env: dict[str, str | None] = {}
    origins: dict[str, tuple[Origin, str]] = {}
    for key in ("envs", "secrets"):
        block = data.get(key)
        if block is None:
            continue
        if key == "secrets" and isinstance(block, list):
            block = {name: None for name in block if isinstance(name, str)}
        if not isinstance(block, Mapping):
            builder.problem(builder.at((key,)), f"{key} maps variable names to values")
            continue
        for variable, value in block.items():
            known = None
            if key == "envs" and isinstance(value, str):
                known = value
            elif key == "envs" and isinstance(value, (int, float)) and not isinstance(value, bool):
                known = str(value)
            env[str(variable)] = known
            origins[str(variable)] = (builder.at((key, variable)), key)
    return env, origins


def _shells(builder: WorkloadBuilder, data: Mapping[str, Any]) -> list[list[Script]]:
    """``setup`` and ``run``: two scripts, each in its own shell."""
    shells = []
    for key in ("setup", "run"):
        value = data.get(key)
        if value is None:
            continue
        if isinstance(value, str):
            shells.append([Script((key,), value)])
        else:
            builder.problem(builder.at((key,)), f"{key} is a shell script (a string)")
    return shells


def _placement(
    builder: WorkloadBuilder, choices: list[PlacementChoice], resources: Mapping[str, Any]
) -> None:
    """The placements, with SkyPilot's defaults for the first one: on-demand capacity, and the
    cheapest instance type carrying its accelerators on its cloud."""
    at_resources = builder.at(RESOURCES if resources else ())
    main = choices[0] if choices else PlacementChoice()
    if main.get("capacity") is None:
        note = "SkyPilot default: use_spot false"
        main.put("capacity", "on-demand", replace(at_resources, kind="default", note=note))
    accelerator, provider = main.get("accelerator"), main.get("provider")
    if accelerator and provider and main.get("instanceType") is None:
        chosen = cheapest_instance(
            provider, accelerator["type"], accelerator["count"], main.get("region")
        )
        if chosen is not None:
            note = (
                f"SkyPilot picks the cheapest instance type with {accelerator['count']} x "
                f"{accelerator['type']} on {provider}: {chosen} in gpulint's price catalogue"
            )
            origin = main.values["accelerator"][1]
            main.put("instanceType", chosen, replace(origin, kind="default", note=note))
    set_choices(builder, [main, *choices[1:]], PLACEMENT_NAMES)
    builder.place("spec.resources", at_resources)


def _commands(
    builder: WorkloadBuilder, reading: Reading, env_origins: Mapping[str, tuple[Origin, str]]
) -> None:
    if reading.engine is not None:
        where = str(reading.engine[1].scripts[0].path[0])
        apply_engine(builder, reading.engine, where, env_origins)
    if reading.launch is not None:
        where = str(reading.launch[1].scripts[0].path[0])
        apply_launch(builder, reading.launch, where, env_origins)
    apply_limit(builder, reading.limit, "run")


def _release(builder: WorkloadBuilder, reading: Reading, resources: Mapping[str, Any]) -> None:
    """The engine release of a Docker ``image_id`` (``docker:vllm/vllm-openai:v0.11.0``: SkyPilot
    runs the task in that container image)."""
    image = resources.get("image_id")
    if reading.engine is None or not isinstance(image, str) or not image.startswith(DOCKER):
        return
    where = (*RESOURCES, "image_id")
    name = "the image tag of `image_id` under resources"
    set_release(builder, reading.engine[0].engine, image[len(DOCKER) :], builder.at(where), name)


def _lifecycle(
    builder: WorkloadBuilder,
    resources: Mapping[str, Any],
    profile: str,
    vocab: SkyPilotVocabulary,
) -> None:
    """Idle shutdown (jobs and interactive clusters) and recovery after a preemption."""
    at_resources = builder.at(RESOURCES if resources else ())
    recovery = read_recovery(builder, resources, vocab)
    autostop = read_autostop(builder, resources, vocab) if profile != "inference" else None
    if recovery is not None:
        builder.set("spec.lifecycle.restartOnPreemption", recovery.value, recovery.origin)
    else:
        note = (
            "SkyPilot: a task started with `sky launch` is not recovered after a preemption, "
            "only a managed job started with `sky jobs launch` is, and no `job_recovery` here "
            "says it is one"
        )
        default = replace(at_resources, kind="default", note=note)
        builder.set("spec.lifecycle.restartOnPreemption", False, default)
    if autostop is not None:
        builder.set("spec.lifecycle.idleShutdownMinutes", autostop.value, autostop.origin)
        builder.place("spec.lifecycle", autostop.origin)
        return
    builder.place("spec.lifecycle", at_resources)
    if recovery is not None and recovery.value and profile != "inference":
        _managed_teardown(builder, recovery)


def _managed_teardown(builder: WorkloadBuilder, recovery: Setting) -> None:
    note = "SkyPilot: a managed job's cluster is torn down when the job ends"
    origin = replace(recovery.origin, kind="default", note=note)
    builder.set("spec.lifecycle.idleShutdownMinutes", 0, origin)
