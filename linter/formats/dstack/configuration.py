"""One dstack configuration (``type: task | service | dev-environment | fleet``) as a normalised
Workload.

Profile from the type: a service is inference; a task is what its commands start (a serving
engine: inference; a training launch: fine-tuning when it names a model or a method, else
training), training when they start neither; a dev environment is dev. A fleet is capacity held
for runs, not a run: it is read as dev (interactive capacity: what it holds while idle, its
quota and its pool), never as training or serving, so a fleet is not one side of a
training/serving pool conflict and has no model to size.

Placement: ``resources.gpu`` (every name a candidate), one entry of ``backends`` is the provider
and one of ``regions`` the region (several: the launcher chooses, left unset), one of
``instance_types`` the instance; ``fleets`` (or a fleet's own name) is the pool. A service whose
``replicas`` is a list of groups is one workload per group (``replica_groups``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from linter.formats.base import Adapted, InputFile
from linter.formats.builder import WorkloadBuilder
from linter.formats.cmdline.checkpoints import Mount, Where, apply_checkpoints
from linter.formats.cmdline.releases import set_release
from linter.formats.cmdline.scripts import (
    Reading,
    Script,
    apply_engine,
    apply_launch,
    apply_limit,
    read_scripts,
)
from linter.formats.dstack.gpu import GpuProblem, accelerators, read_gpu
from linter.formats.dstack.profile import (
    Written,
    duration_minutes,
    listed,
    retries_interruption,
    spot_policy,
)
from linter.formats.dstack.replica_groups import GroupBuilder, group_view, groups
from linter.formats.platforms import DstackVocabulary, merged, platform_env, platforms
from linter.formats.platforms.instance_choice import cheapest_instance
from linter.formats.platforms.shared import (
    PlacementChoice,
    assume_names,
    set_choices,
    template_problem,
    workload_name,
)
from linter.load import Document
from linter.load.positions import Path
from linter.model.provenance import Origin

FORMAT = "dstack"
STORAGE = "a network volume in `volumes`"
SCRIPTS = "commands"
PLACEMENT_NAMES = {
    "provider": "`backends`",
    "region": "`regions`",
    "instanceType": "`instance_types`",
    "accelerator": "`gpu` under resources",
    "capacity": "`spot_policy`",
}
NAMES = {
    "spec.resources.nodes": "`nodes`",
    "spec.resources.pool": "`fleets`",
    "spec.lifecycle.idleShutdownMinutes": "`idle_duration`",
    "spec.lifecycle.maxRuntimeHours": "`max_duration`",
    "spec.lifecycle.restartOnPreemption": "`retry: {on_events: [interruption]}`",
    "spec.serving.replicas": "`replicas`",
    "spec.serving.maxReplicas": "`replicas` (its upper end)",
    "spec.lifecycle.scaleToZero": "`replicas: 0..N` with `scaling`",
    "spec.serving.onDemandFallbackReplicas": "`spot_policy: auto`",
    "spec.model.id": "`model`",
}
_PROFILES = {"service": "inference", "dev-environment": "dev", "fleet": "dev"}


def adapt(document: Document, source: InputFile) -> Adapted:
    data: Mapping[str, Any] = document.data
    kind = str(data["type"])
    name = workload_name(data.get("name"), source.fs_path, f"dstack-{kind}")
    found = groups(data) if kind == "service" else None
    if found is None:
        builder = WorkloadBuilder(
            document, source, format=FORMAT, source_kind=f"dstack {kind}", name=name
        )
        return _workload(builder, data, kind)
    out = Adapted()
    for part, (path, group) in enumerate(found):
        builder = GroupBuilder(
            document,
            source,
            format=FORMAT,
            source_kind=f"dstack {kind} replica group",
            name=f"{name}-{part}",
            part=part,
            group=path,
            written=group,
        )
        adapted = _workload(builder, group_view(data, group), kind)
        out.manifests.extend(adapted.manifests)
        out.findings.extend(adapted.findings)
    return out


def _workload(builder: WorkloadBuilder, data: Mapping[str, Any], kind: str) -> Adapted:
    """One workload: the whole configuration, or one replica group of a service."""
    vocab = platforms().dstack
    assume_names(builder)
    for path, written in NAMES.items():
        builder.call(path, written)
    if kind == "dev-environment":
        builder.call("spec.lifecycle.idleShutdownMinutes", "`inactivity_duration`")
    if kind == "service":
        builder.call(
            "spec.lifecycle.idleShutdownMinutes",
            "an idle shutdown (a service's replicas are never idle: scale to zero)",
        )
    resources = _mapping(builder, data, "resources")
    choices = _choices(builder, data, resources, vocab)
    nodes = _nodes(builder, data, kind)
    gpus = {c.get("accelerator")["count"] for c in choices if c.get("accelerator")}
    env, env_origins = _environment(builder, data)
    env = merged(platform_env(vocab.env, next(iter(gpus)) if len(gpus) == 1 else None, nodes), env)
    reading = read_scripts(builder, [_scripts(builder, data, kind)], env)
    profile = _PROFILES.get(kind) or reading.profile() or "training"
    builder.set("spec.profile", profile, builder.at(("type",)))
    capacity = spot_policy(builder, data, vocab)
    _placement(builder, choices, capacity)
    if kind == "service":
        _service(builder, data, capacity)
    _commands(builder, reading, env_origins)
    if reading.engine is not None:
        name = "the tag of `image`"
        set_release(
            builder, reading.engine[0].engine, data.get("image"), builder.at(("image",)), name
        )
    if kind == "service" and not builder.has("spec.model.id"):
        _model(builder, data)
    if profile in ("training", "fine-tuning"):
        where = Where(SCRIPTS, STORAGE)
        mounts = _mounts(builder, data)
        apply_checkpoints(builder, reading, mounts, where, platforms().checkpoint_flag_hints)
    _pool(builder, data, kind)
    _lifecycle(builder, data, kind, vocab)
    return builder.build({})


def _mapping(builder: WorkloadBuilder, data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = data.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        builder.problem(builder.at((key,)), f"{key} is a mapping")
        return {}
    return value


def _choices(
    builder: WorkloadBuilder,
    data: Mapping[str, Any],
    resources: Mapping[str, Any],
    vocab: DstackVocabulary,
) -> list[PlacementChoice]:
    """One placement per GPU candidate, with the one backend, region and instance type when the
    file names exactly one of each."""
    common = PlacementChoice()
    for key, field in (
        ("backends", "provider"),
        ("regions", "region"),
        ("instance_types", "instanceType"),
    ):
        names = listed(builder, data, key)
        if len(names) == 1:
            value, where = names[0]
            common.put(field, value.lower() if field == "provider" else value, builder.at(where))
    if "gpu" not in resources:
        return [common]
    path: Path = ("resources", "gpu")
    if template_problem(builder, path, "gpu", resources["gpu"]):
        return [common]
    try:
        wanted = read_gpu(resources["gpu"], path, frozenset(vocab.gpu_vendors))
    except GpuProblem as err:
        builder.problem(builder.at(err.path), str(err))
        return [common]
    out = []
    for accelerator in accelerators(wanted):
        choice = PlacementChoice(dict(common.values))
        choice.put("accelerator", accelerator, builder.at(path))
        out.append(choice)
    if not out and wanted.count >= 1:  # a count alone: any GPU, nothing says which
        builder.set(
            "spec.resources.gpusOfUnknownType", wanted.count, builder.at(path), name="resources.gpu"
        )
    return out or [common]


def _nodes(builder: WorkloadBuilder, data: Mapping[str, Any], kind: str) -> int:
    """Nodes of a task; a fleet's most instances (its ``nodes`` range or ``{min, target, max}``,
    at the upper end when it has one)."""
    if "nodes" not in data:
        return 1
    value, path = data["nodes"], ("nodes",)
    low, high = _range(value)
    count = (high or low) if kind == "fleet" else low
    if count is None or count < 1:
        if kind != "fleet" or low is None:
            builder.problem(builder.at(path), f"nodes is a whole number or a range, got {value!r}")
        return 1
    builder.set("spec.resources.nodes", count, builder.at(path))
    return count


def _range(value: object) -> tuple[int | None, int | None]:
    """``2`` -> (2, 2); ``0..4`` -> (0, 4); ``2..`` -> (2, None); ``{min, target, max}``."""
    if isinstance(value, Mapping):
        low, high = value.get("min"), value.get("max")
        if isinstance(value.get("target"), int) and high is None:
            high = value.get("target")
    elif isinstance(value, str) and ".." in value:
        low, high = (part.strip() or None for part in value.split("..", 1))
    else:
        low = high = value
    return _whole(low), _whole(high)


def _whole(value: object) -> int | None:
    if isinstance(value, str) and value.isdigit():
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def _environment(
    builder: WorkloadBuilder, data: Mapping[str, Any]
) -> tuple[dict[str, str | None], dict[str, tuple[Origin, str]]]:
    """``env`` as a mapping or a list of ``KEY=value`` and bare names (a bare name is taken from
    the environment of ``dstack apply``: unknown here)."""
    env: dict[str, str | None] = {}
    origins: dict[str, tuple[Origin, str]] = {}
    value = data.get("env")
    if value is None:
        return env, origins
    if isinstance(value, Mapping):
        items = [(str(k), v, ("env", k)) for k, v in value.items()]
    elif isinstance(value, list):
        items = []
        for index, entry in enumerate(value):
            if not isinstance(entry, str):
                builder.problem(builder.at(("env", index)), f"env lists KEY=value, got {entry!r}")
                continue
            key, equals, text = entry.partition("=")
            items.append((key.strip(), text if equals else None, ("env", index)))
    else:
        builder.problem(builder.at(("env",)), "env is a mapping or a list of KEY=value")
        return env, origins
    for key, known, path in items:
        if isinstance(known, (int, float)) and not isinstance(known, bool):
            known = str(known)
        env[key] = known if isinstance(known, str) else None
        origins[key] = (builder.at(path), "env")
    return env, origins


def _scripts(builder: WorkloadBuilder, data: Mapping[str, Any], kind: str) -> list[Script]:
    """The commands of the run, in the order dstack runs them in one shell: a dev environment's
    ``init``, the deprecated ``setup``, then ``commands``."""
    keys = ("init", "setup", "commands") if kind == "dev-environment" else ("setup", "commands")
    out = []
    for key in keys:
        value = data.get(key)
        if value is None:
            continue
        if not isinstance(value, list):
            builder.problem(builder.at((key,)), f"{key} is a list of shell commands")
            continue
        for index, command in enumerate(value):
            if isinstance(command, str):
                out.append(Script((key, index), command))
            else:
                builder.problem(builder.at((key, index)), f"a command is a string, got {command!r}")
    return out


def _placement(builder: WorkloadBuilder, choices: list[PlacementChoice], capacity: Written) -> None:
    """Capacity from ``spot_policy`` (dstack's default when absent) for every placement, and the
    cheapest instance for the first one when a backend and a GPU are known."""
    spot = "on-demand" if capacity.value == "on-demand" else "spot"
    origin = capacity.origin
    if capacity.default:
        origin = replace(
            origin, kind="default", note=f"dstack default: spot_policy {capacity.value}"
        )
    for choice in choices:
        choice.put("capacity", spot, origin)
    main = choices[0]
    accelerator, provider = main.get("accelerator"), main.get("provider")
    if accelerator and provider and "type" in accelerator and main.get("instanceType") is None:
        chosen = cheapest_instance(
            provider, accelerator["type"], accelerator["count"], main.get("region")
        )
        if chosen is not None:
            note = (
                f"dstack takes the cheapest offer with {accelerator['count']} x "
                f"{accelerator['type']} on {provider}: {chosen} in gpulint's price catalogue"
            )
            at = main.values["accelerator"][1]
            main.put("instanceType", chosen, replace(at, kind="default", note=note))
    set_choices(builder, choices, PLACEMENT_NAMES)


def _service(builder: WorkloadBuilder, data: Mapping[str, Any], capacity: Written) -> None:
    """Replicas (a count, or a range the autoscaler moves in; 0 at the low end scales to zero),
    and ``spot_policy: auto``'s on-demand fallback."""
    kept = 1
    if "replicas" in data:
        path: Path = ("replicas",)
        low, high = _range(data["replicas"])
        if low is None:
            builder.problem(
                builder.at(path), f"replicas is a count or a range, got {data['replicas']!r}"
            )
        else:
            origin = builder.at(path)
            if low == 0:
                builder.set("spec.lifecycle.scaleToZero", True, origin)
            else:
                builder.set("spec.serving.replicas", low, origin)
                kept = low
            if high is not None:
                builder.set("spec.serving.maxReplicas", high, origin)
    if capacity.value == "auto":
        builder.set("spec.serving.onDemandFallbackReplicas", kept, capacity.origin)


def _model(builder: WorkloadBuilder, data: Mapping[str, Any]) -> None:
    """A service's ``model`` (a name, or ``{name, format, ...}``): the model it serves, when the
    commands do not say."""
    model = data.get("model")
    path: Path = ("model",)
    if isinstance(model, Mapping):
        model, path = model.get("name"), ("model", "name")
    if isinstance(model, str) and model.strip():
        builder.set("spec.model.id", model.strip(), builder.at(path), name="`model`")


def _commands(
    builder: WorkloadBuilder, reading: Reading, env_origins: Mapping[str, tuple[Origin, str]]
) -> None:
    if reading.engine is not None:
        apply_engine(builder, reading.engine, SCRIPTS, env_origins)
    if reading.launch is not None:
        apply_launch(builder, reading.launch, SCRIPTS, env_origins)
    apply_limit(builder, reading.limit, SCRIPTS)


def _mounts(builder: WorkloadBuilder, data: Mapping[str, Any]) -> list[Mount]:
    """``volumes``: a network volume (``name:/path`` or ``{name, path}``) outlives the instance;
    an instance volume (``/host:/path`` or ``{instance_path, path}``) does not."""
    value = data.get("volumes")
    if not isinstance(value, list):
        return []
    mounts = []
    for index, item in enumerate(value):
        origin = builder.at(("volumes", index))
        if isinstance(item, str) and item.count(":") == 1:
            source, target = item.split(":")
            storage = None if "/" in source else f"network volume {source}"
        elif isinstance(item, Mapping) and isinstance(item.get("path"), str):
            target = item["path"]
            name = item.get("name")
            if isinstance(name, list):
                name = ", ".join(str(n) for n in name)
            storage = f"network volume {name}" if isinstance(name, str) else None
        else:
            continue
        mounts.append(Mount(target, storage, origin, f"`volumes` {target}"))
    return mounts


def _pool(builder: WorkloadBuilder, data: Mapping[str, Any], kind: str) -> None:
    """The pool is the fleet: a run's ``fleets`` (the first when several), a fleet's own name."""
    if kind == "fleet":
        if isinstance(data.get("name"), str):
            builder.set("spec.resources.pool", data["name"], builder.at(("name",)), name="`name`")
        return
    fleets = listed(builder, data, "fleets")
    if fleets:
        value, path = fleets[0]
        builder.set("spec.resources.pool", value, builder.at(path))


def _lifecycle(
    builder: WorkloadBuilder, data: Mapping[str, Any], kind: str, vocab: DstackVocabulary
) -> None:
    if kind != "fleet":
        retry = retries_interruption(builder, data, vocab)
        origin = retry.origin
        if retry.default:
            origin = replace(origin, kind="default", note="dstack default: retry false")
        builder.set("spec.lifecycle.restartOnPreemption", retry.value, origin)
        limit = duration_minutes(builder, data, "max_duration", None)
        if limit is not None and limit.value is not None:
            builder.set("spec.lifecycle.maxRuntimeHours", limit.value / 60, limit.origin)
    idle = _idle(builder, data, kind, vocab)
    if idle is None:
        return
    origin = idle.origin
    if idle.default:
        origin = replace(origin, kind="default", note=f"dstack default: {_shown(kind, vocab)}")
    builder.set("spec.lifecycle.idleShutdownMinutes", idle.value, origin)
    builder.place("spec.lifecycle", origin)


def _shown(kind: str, vocab: DstackVocabulary) -> str:
    if kind == "fleet":
        return f"idle_duration {vocab.idle_duration_default.fleet} for fleets"
    return f"idle_duration {vocab.idle_duration_default.run} for runs"


def _idle(
    builder: WorkloadBuilder, data: Mapping[str, Any], kind: str, vocab: DstackVocabulary
) -> Written | None:
    """The idle shutdown each type has: a task's instance after the run (``idle_duration``), a
    dev environment without connections (``inactivity_duration``, else ``utilization_policy``'s
    window), a fleet's instances above its minimum; a service's replicas are never idle."""
    if kind == "service":
        return None
    if kind == "dev-environment":
        inactivity = duration_minutes(builder, data, "inactivity_duration", None)
        if inactivity is not None:
            return inactivity
        return _utilization(builder, data)
    if kind == "fleet":
        low, _ = _range(data.get("nodes", 0))
        if low:
            name = (
                f"idle shutdown (dstack never stops the {low} instances at the `nodes` minimum, "
                f"whatever `idle_duration` says: write `nodes: 0..{low}`)"
            )
            builder.set("spec.lifecycle.idleShutdownMinutes", None, builder.at(("nodes",)), name)
            builder.place("spec.lifecycle", builder.at(("nodes",)))
            return None
        return duration_minutes(builder, data, "idle_duration", vocab.idle_duration_default.fleet)
    return duration_minutes(builder, data, "idle_duration", vocab.idle_duration_default.run)


def _utilization(builder: WorkloadBuilder, data: Mapping[str, Any]) -> Written | None:
    """``utilization_policy``: the run stops after ``time_window`` below the GPU utilisation."""
    policy = data.get("utilization_policy")
    if not isinstance(policy, Mapping) or "time_window" not in policy:
        return None
    window = duration_minutes(builder, policy, "time_window", None, ("utilization_policy",))
    if window is None or window.value is None:
        return None
    builder.call("spec.lifecycle.idleShutdownMinutes", "`utilization_policy.time_window`")
    return window
