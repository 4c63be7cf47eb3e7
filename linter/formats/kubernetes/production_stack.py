"""vLLM production-stack Helm values, read directly (no Helm needed): one normalised workload per
``servingEngineSpec.modelSpec[]`` entry, the way the chart renders it
(``data/production_stack.yaml`` says how, with the chart files it was checked against).

Each entry is a vLLM Deployment (``vllm serve {modelURL}``) of ``replicaCount`` replicas with
``requestGPU`` GPUs of ``requestGPUType`` (default ``nvidia.com/gpu``; a MIG slice is not a whole
GPU and is not sized), placed by ``nodeSelectorTerms`` (required node affinity) and
``tolerations`` (the entry's and ``servingEngineSpec``'s); ``vllmConfig`` keys are vLLM flags
and ``vllmConfig.extraArgs`` more of them, later ones winning. ``keda.enabled`` scales it with a
KEDA ScaledObject (``minReplicaCount`` default 0: scale to zero, idle for ``cooldownPeriod``,
default 300 s); ``raySpec.enabled`` runs it on a Ray cluster of a head and ``replicaCount``
workers (one replica over ``replicaCount + 1`` nodes).

Recognised only as a values file with ``servingEngineSpec.modelSpec`` as a list and no
``apiVersion``/``kind`` (other charts' values files are never claimed).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from linter.catalog.base import Catalogue, Record
from linter.declared import Field
from linter.formats.base import Adapted, InputFile
from linter.formats.cmdline.engines import engine_arguments, engine_table, release_of_image
from linter.formats.cmdline.shell import argv_commands
from linter.formats.kubernetes import settings
from linter.formats.kubernetes.context import Context
from linter.formats.kubernetes.engine_options import Option, OptionValues, engine_options
from linter.formats.kubernetes.labels import gpu_resources
from linter.formats.kubernetes.pod_workload import Unit, adapt_units
from linter.formats.kubernetes.pods import mapping, quantity, sequence
from linter.formats.kubernetes.scheduling import NodeSelection, StatedValue, place
from linter.formats.kubernetes.settings import normalised
from linter.formats.kubernetes.storage import size_gib
from linter.formats.markers import PRODUCTION_STACK
from linter.formats.vocabulary import read_vocabulary
from linter.load import Document
from linter.load.positions import Path, format_path
from linter.model.provenance import Origin

name: str = "production-stack"
markers: tuple[bytes, ...] = PRODUCTION_STACK

_SPEC = "servingEngineSpec"
_KIND = "production-stack modelSpec"


class ValuesOption(Record):
    key: str = Field(min_length=1, description="vllmConfig key.")
    flag: str = Field(pattern=r"^--[a-z0-9-]+$", description="The vLLM flag the chart renders.")
    source: str = Field(min_length=1)


class Keda(Record):
    min_replicas_default: int = Field(ge=0)
    cooldown_seconds_default: int = Field(ge=0)
    source: str = Field(min_length=1)


class ValuesTable(Catalogue):
    engine: str = Field(min_length=1)
    gpu_resource_default: str = Field(min_length=1)
    options: list[ValuesOption] = Field(min_length=1)
    keda: Keda


@functools.cache
def table() -> ValuesTable:
    return read_vocabulary("production_stack.yaml", ValuesTable)


def recognises(data: Mapping[str, Any], source: InputFile) -> bool:
    spec = data.get(_SPEC)
    return (
        "apiVersion" not in data
        and "kind" not in data
        and isinstance(spec, Mapping)
        and isinstance(spec.get("modelSpec"), list)
    )


def claims(text: str) -> bool:
    return f"{_SPEC}:" in text and "modelSpec:" in text


def adapt(document: Document, source: InputFile) -> Adapted:
    return adapt_units(document, source, _KIND, _read, format=name)


def _read(ctx: Context) -> list[Unit]:
    spec = mapping(ctx.data.get(_SPEC))
    if spec.get("enableEngine") is False:
        return []
    units = []
    for index, entry in enumerate(sequence(spec.get("modelSpec"))):
        path = (_SPEC, "modelSpec", index)
        if not isinstance(entry, Mapping):
            ctx.report(Origin(path), f"{format_path(path)} must be a mapping")
            continue
        if entry.get("enabled") is not False:
            units.append(_entry(ctx, entry, path, index))
    return units


def _entry(ctx: Context, entry: Mapping[str, Any], path: Path, index: int) -> Unit:
    label = entry.get("name")
    title = label if isinstance(label, str) and label else f"model-{index}"
    where = f"modelSpec {title}"
    read = _vllm(ctx, entry, path, where)
    values = read.values
    values[("spec", "serving", "engine")] = StatedValue.at(table().engine, path, where)
    release = _release(entry, path, where)
    if release is not None:
        values[("spec", "serving", "engineVersion")] = release
    if entry.get("pvcStorage") is not None:
        # The chart mounts this claim at /data and sets HF_HOME to it: the model's cache.
        at = (*path, "pvcStorage")
        cache = size_gib(entry["pvcStorage"], at, f"pvcStorage of {where}", ctx.report)
        if cache is not None:
            values[("spec", "model", "cacheGib")] = cache
    replicas = ctx.count((*path, "replicaCount"), f"replicaCount of {where}")
    nodes = None
    if mapping(entry.get("raySpec")).get("enabled") is True and replicas is not None:
        nodes = StatedValue(int(replicas.value) + 1, replicas.origin, replicas.name)
        replicas = None
    unit = Unit(
        title,
        _KIND,
        "inference",
        format=name,
        object_path=path,
        part=index,
        options_at=(
            table().engine,
            f"vllmConfig of {where}",
            (*path, "vllmConfig") if "vllmConfig" in entry else path,
        ),
        undecided=read.undecided,
        gpus=_gpus(ctx, entry, path, where),
        placement=place(_selection(ctx, entry, path), ctx.report),
        model=_model(entry, path, where),
        nodes=nodes,
        replicas=replicas,
        values=values,
        metadata={"annotations": entry.get("annotations")},
        metadata_path=path,
        names=_names(where),
    )
    _keda(ctx, unit, entry, path, where)
    return unit


def _release(entry: Mapping[str, Any], path: Path, where: str) -> StatedValue | None:
    """The vLLM release the entry's image runs (``repository`` and ``tag``), which decides its
    start-up memory accounting."""
    repository, tag = entry.get("repository"), entry.get("tag")
    if not isinstance(repository, str) or not isinstance(tag, str):
        return None
    release = release_of_image(f"{repository}:{tag}", table().engine)
    return (
        None if release is None else StatedValue(release, Origin((*path, "tag")), f"tag of {where}")
    )


def _vllm(ctx: Context, entry: Mapping[str, Any], path: Path, where: str) -> OptionValues:
    """vllmConfig's keys, then its extraArgs (rendered after them, so they win)."""
    config = mapping(entry.get("vllmConfig"))
    base = (*path, "vllmConfig")
    options = [
        Option(
            option.flag, config[option.key], Origin((*base, option.key)), _option(option.key, where)
        )
        for option in table().options
        if option.key in config
    ]
    read = engine_options(table().engine, options, ctx.report)
    values = read.values
    items = sequence(config.get("extraArgs"))
    texts = [item if isinstance(item, str) else str(item) for item in items]
    commands = argv_commands(texts, kubernetes=False)
    words = commands[0].words if len(commands) == 1 else ()
    extra = engine_arguments(table().engine, words)
    extra_path = (*base, "extraArgs")
    for setting in extra.settings.values():
        word = setting.value_word or setting.flag_word
        field = normalised(setting.field)
        if word is None or setting.value is None or field == normalised("serving.engine"):
            continue
        origin = ctx.sink.at_word((*extra_path, word.item), word.start, word.end)
        values[field] = StatedValue(
            setting.value, origin, f"{setting.flag} in vllmConfig.extraArgs of {where}"
        )
    for problem in extra.problems:
        if problem.word is not None:
            at = ctx.sink.at_word(
                (*extra_path, problem.word.item), problem.word.start, problem.word.end
            )
            ctx.report(at, f"{problem.message} (vllmConfig.extraArgs of {where})")
    undecided = (read.undecided - set(extra.settings)) | settings.undecided(extra)
    return OptionValues(values, frozenset(undecided))


def _option(key: str, where: str) -> str:
    return f"vllmConfig.{key} of {where}"


def _names(where: str) -> dict[str, str]:
    """What the values call the engine fields they leave unset."""
    vllm = engine_table(table().engine)
    out = {
        "spec.serving.replicas": f"replicaCount of {where}",
        "spec.lifecycle.scaleToZero": f"keda.enabled with minReplicaCount: 0 in {where}",
        "spec.resources.accelerator": f"requestGPU of {where} with GPU nodeSelectorTerms",
        "spec.model.cacheGib": f"pvcStorage of {where}",
    }
    for option in table().options:
        flag, _ = vllm.lookup(option.flag)
        if flag is not None and flag.field is not None:
            out[format_path(normalised(flag.field))] = _option(option.key, where)
    for flag in vllm.flags:
        if flag.field is not None and format_path(normalised(flag.field)) not in out:
            out[format_path(normalised(flag.field))] = (
                f"{flag.names[0]} in vllmConfig.extraArgs of {where}"
            )
    return out


def _gpus(ctx: Context, entry: Mapping[str, Any], path: Path, where: str) -> StatedValue | None:
    resource = entry.get("requestGPUType", table().gpu_resource_default)
    if "requestGPU" not in entry or resource not in gpu_resources():
        return None
    count = quantity(
        entry["requestGPU"], f"requestGPU of {where}", (*path, "requestGPU"), ctx.report
    )
    return StatedValue.at(count, (*path, "requestGPU"), f"requestGPU of {where}") if count else None


def _selection(ctx: Context, entry: Mapping[str, Any], path: Path) -> NodeSelection:
    """The entry's node selection as the chart renders it into the pod."""
    spec = (_SPEC,)
    tolerations = [
        (sequence(entry.get("tolerations")), (*path, "tolerations")),
        (sequence(mapping(ctx.data.get(_SPEC)).get("tolerations")), (*spec, "tolerations")),
    ]
    return NodeSelection(
        terms=sequence(entry.get("nodeSelectorTerms")),
        terms_path=(*path, "nodeSelectorTerms"),
        tolerations=tuple(tolerations),
    )


def _model(entry: Mapping[str, Any], path: Path, where: str) -> StatedValue | None:
    url = entry.get("modelURL")
    return (
        StatedValue.at(url, (*path, "modelURL"), f"modelURL of {where}")
        if isinstance(url, str)
        else None
    )


def _keda(ctx: Context, unit: Unit, entry: Mapping[str, Any], path: Path, where: str) -> None:
    keda = mapping(entry.get("keda"))
    if keda.get("enabled") is not True:
        return
    base = (*path, "keda")
    defaults = table().keda
    minimum = ctx.count(
        (*base, "minReplicaCount"), f"keda.minReplicaCount of {where}"
    ) or StatedValue.at(
        defaults.min_replicas_default, (*base, "enabled"), f"keda.minReplicaCount of {where}"
    )
    unit.replicas = minimum
    if minimum.value == 0:
        unit.scale_to_zero = StatedValue(True, minimum.origin, minimum.name)
        cooldown = ctx.minutes((*base, "cooldownPeriod"), f"keda.cooldownPeriod of {where}")
        unit.idle_minutes = cooldown or StatedValue.at(
            -(-defaults.cooldown_seconds_default // 60),
            (*base, "enabled"),
            f"keda.cooldownPeriod of {where}",
        )
    unit.max_replicas = ctx.count((*base, "maxReplicaCount"), f"keda.maxReplicaCount of {where}")
