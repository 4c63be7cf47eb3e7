"""SkyPilot's ``resources``: the placements the launcher may pick, and the settings that decide
idle time and recovery.

Placements: the fields outside ``any_of`` / ``ordered`` are defaults that every entry of those
lists overrides (the SkyPilot YAML reference), and every accelerator candidate of an entry is a
placement of its own. Location comes from ``infra`` (``cloud[/region[/zone]]``, ``*`` for any,
``k8s/<context>``) or the legacy ``cloud`` / ``region``; a Kubernetes context is the pool the
workload runs on. ``use_spot`` decides the capacity.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from linter.formats.builder import WorkloadBuilder
from linter.formats.cmdline.durations import DurationProblem, minutes, seconds
from linter.formats.platforms import SkyPilotVocabulary
from linter.formats.platforms.shared import PlacementChoice, template_problem
from linter.formats.skypilot.accelerators import AcceleratorProblem, read_accelerators
from linter.load.positions import Path
from linter.model.provenance import Origin
from linter.records import datarecord

RESOURCES: Path = ("resources",)
_CANDIDATE_LISTS = ("any_of", "ordered")
_WILDCARD = "*"


@datarecord
class Placements:
    choices: list[PlacementChoice]
    pool: tuple[str, Origin] | None


@datarecord
class Setting:
    """A resources setting the workload's lifecycle reads: its value and where it is written."""

    value: Any
    origin: Origin


def read_placements(
    builder: WorkloadBuilder, resources: Mapping[str, Any], vocab: SkyPilotVocabulary
) -> Placements:
    """Every placement ``resources`` allows, the first one first."""
    base = {k: v for k, v in resources.items() if k not in _CANDIDATE_LISTS}
    entries: list[tuple[Mapping[str, Any], Path]] = []
    for key in _CANDIDATE_LISTS:
        value = resources.get(key)
        if value is None:
            continue
        if not isinstance(value, list) or not value:
            builder.problem(builder.at((*RESOURCES, key)), f"{key} is a list of resources")
            continue
        for index, entry in enumerate(value):
            where = (*RESOURCES, key, index)
            if isinstance(entry, Mapping):
                entries.append((entry, where))
            else:
                builder.problem(builder.at(where), f"an {key} entry is a mapping of resources")
    choices: list[PlacementChoice] = []
    pool = None
    for entry, entry_path in entries or [({}, RESOURCES)]:

        def pick(key: str, entry: Mapping[str, Any] = entry, at: Path = entry_path) -> Any:
            if key in entry:
                return entry[key], (*at, key)
            if key in base:
                return base[key], (*RESOURCES, key)
            return None

        found = _entry_choices(builder, pick, vocab)
        choices.extend(found[0])
        pool = pool or found[1]
    return Placements(choices, pool)


def _entry_choices(
    builder: WorkloadBuilder,
    pick: Callable[[str], tuple[Any, Path] | None],
    vocab: SkyPilotVocabulary,
) -> tuple[list[PlacementChoice], tuple[str, Origin] | None]:
    common = PlacementChoice()
    pool = _location(builder, pick, vocab, common)
    spot = pick("use_spot")
    if spot is not None:
        if isinstance(spot[0], bool):
            common.put("capacity", "spot" if spot[0] else "on-demand", builder.at(spot[1]))
        else:
            builder.problem(builder.at(spot[1]), f"use_spot is true or false, got {spot[0]!r}")
    instance = pick("instance_type")
    if instance is not None and not template_problem(
        builder, instance[1], "instance_type", instance[0]
    ):
        if isinstance(instance[0], str) and instance[0].strip():
            common.put("instanceType", instance[0].strip(), builder.at(instance[1]))
        else:
            builder.problem(
                builder.at(instance[1]), f"instance_type is a name, got {instance[0]!r}"
            )
    accelerators = pick("accelerators")
    if accelerators is None:
        return [common], pool
    if template_problem(builder, accelerators[1], "accelerators", accelerators[0]):
        return [common], pool
    try:
        found = read_accelerators(*accelerators)
    except AcceleratorProblem as err:
        builder.problem(builder.at(err.path), str(err))
        return [common], pool
    out = []
    for accelerator in found:
        choice = PlacementChoice(dict(common.values))
        value = {"type": accelerator.name, "count": accelerator.count}
        choice.put("accelerator", value, builder.at(accelerator.path))
        out.append(choice)
    return out, pool


def _location(
    builder: WorkloadBuilder,
    pick: Callable[[str], tuple[Any, Path] | None],
    vocab: SkyPilotVocabulary,
    choice: PlacementChoice,
) -> tuple[str, Origin] | None:
    """Provider and region from ``infra`` (or ``cloud``/``region``); the Kubernetes context of
    ``k8s/<context>``, which is the pool."""
    infra = pick("infra")
    if infra is not None:
        value, path = infra
        if template_problem(builder, path, "infra", value):
            return None
        if not isinstance(value, str) or not value.strip():
            builder.problem(builder.at(path), f"infra is cloud[/region[/zone]], got {value!r}")
            return None
        origin = builder.at(path)
        cloud, _, rest = value.strip().partition("/")
        if cloud.lower() in vocab.kubernetes_infra:
            choice.put("provider", "kubernetes", origin)
            return (rest, origin) if rest and rest != _WILDCARD else None
        if cloud != _WILDCARD:
            choice.put("provider", cloud.lower(), origin)
        region = rest.partition("/")[0]
        if region and region != _WILDCARD:
            choice.put("region", region, origin)
        return None
    for key, field in (("cloud", "provider"), ("region", "region")):
        written = pick(key)
        if written is None or template_problem(builder, written[1], key, written[0]):
            continue
        if isinstance(written[0], str) and written[0].strip():
            text = written[0].strip()
            choice.put(field, text.lower() if field == "provider" else text, builder.at(written[1]))
        else:
            builder.problem(builder.at(written[1]), f"{key} is a name, got {written[0]!r}")
    return None


def read_autostop(
    builder: WorkloadBuilder, resources: Mapping[str, Any], vocab: SkyPilotVocabulary
) -> Setting | None:
    """Idle minutes before the cluster stops: ``true`` (SkyPilot's default minutes), a number of
    minutes, ``<n><unit>``, or ``{idle_minutes, down}``; ``false`` is no autostop (value None)."""
    if "autostop" not in resources:
        return None
    value, path = resources["autostop"], (*RESOURCES, "autostop")
    if isinstance(value, bool):
        return Setting(vocab.autostop_true_minutes if value else None, builder.at(path))
    if isinstance(value, Mapping):
        if "idle_minutes" not in value:
            return Setting(vocab.autostop_true_minutes, builder.at(path))
        value, path = value["idle_minutes"], (*path, "idle_minutes")
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            builder.problem(builder.at(path), f"idle_minutes is whole minutes, got {value!r}")
            return None
    try:
        idle = minutes(seconds(value, "m", "mhdw"))
    except DurationProblem as err:
        builder.problem(builder.at(path), f"autostop: {err}")
        return None
    return Setting(idle, builder.at(path))


def read_recovery(
    builder: WorkloadBuilder, resources: Mapping[str, Any], vocab: SkyPilotVocabulary
) -> Setting | None:
    """Whether a managed job is restarted after a preemption: any recovery strategy (or the
    mapping form, whose strategy defaults to EAGER_NEXT_REGION) is; ``none`` is not. The legacy
    ``spot_recovery`` reads the same."""
    for key in ("job_recovery", "spot_recovery"):
        if key not in resources:
            continue
        value, path = resources[key], (*RESOURCES, key)
        if isinstance(value, Mapping):
            if value.get("strategy") is None:
                return Setting(True, builder.at(path))
            value, path = value["strategy"], (*path, "strategy")
        if isinstance(value, str) and value.strip().lower() == vocab.no_recovery:
            return Setting(False, builder.at(path))
        if isinstance(value, str) and value.strip().lower() in vocab.recovery_strategies:
            return Setting(True, builder.at(path))
        known = ", ".join([*(s.upper() for s in vocab.recovery_strategies), vocab.no_recovery])
        builder.problem(builder.at(path), f"{key} is one of {known}, got {value!r}")
    return None
