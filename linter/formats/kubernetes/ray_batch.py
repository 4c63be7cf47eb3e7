"""A RayJob that runs batch inference with Ray Data LLM (``ray_data.py``): where its script is
(the ``entrypoint`` itself, or a ConfigMap of the same file holding the ``.py`` file the
entrypoint runs), and what its engine processor says, as normalised values with their places.

A value written in the entrypoint points at its characters there; one in a ConfigMap's script
points at the entrypoint that runs it (a finding stays in the object it is about), and its name
says which file of which ConfigMap holds it. ``model_source`` read from an environment variable
is taken from the job's ``runtimeEnvYAML`` ``env_vars``, at its line there.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from linter.formats.kubernetes.context import Context
from linter.formats.kubernetes.embedded import embedded
from linter.formats.kubernetes.engine_options import Option, engine_options
from linter.formats.kubernetes.pods import mapping
from linter.formats.kubernetes.ray_data import (
    PROCESSORS,
    Literal,
    ProcessorConfig,
    processor_configs,
)
from linter.formats.kubernetes.scheduling import StatedValue
from linter.load import load_text
from linter.load.positions import Path
from linter.model.provenance import Origin
from linter.records import datarecord

ENTRYPOINT: Path = ("spec", "entrypoint")
RUNTIME_ENV: Path = ("spec", "runtimeEnvYAML")
_SCRIPT = re.compile(r"[\w./-]+\.py\b")


@datarecord
class Script:
    """A script the job runs, and how a place in it becomes an origin in the object."""

    text: str
    label: str  # what messages call it: "the entrypoint", "tickets.py (ConfigMap scripts)"
    origin: Callable[[int, int], Origin]


@datarecord(frozen=False)
class BatchReading:
    """What the job's processor config says."""

    engine: StatedValue
    values: dict[Path, StatedValue]
    undecided: frozenset[str]
    names: dict[str, str]
    model: StatedValue | None
    accelerator: StatedValue | None
    where: str  # where an unset engine option would be written


def batch_inference(ctx: Context) -> BatchReading | None:
    """The first processor config of the scripts the job runs; None when it runs none."""
    entrypoint = ctx.get(ENTRYPOINT)
    if not isinstance(entrypoint, str) or not any(n in ctx.file.text for n in PROCESSORS):
        return None
    for script in _scripts(ctx, entrypoint):
        configs = processor_configs(script.text)
        if configs:
            return _reading(ctx, script, configs[0])
    return None


def _scripts(ctx: Context, entrypoint: str) -> list[Script]:
    inline = Script(
        entrypoint,
        "the entrypoint",
        lambda start, end: ctx.sink.at_word(ENTRYPOINT, start, end),
    )
    names = {path.rsplit("/", 1)[-1] for path in _SCRIPT.findall(entrypoint)}
    return [inline, *(_config_map_scripts(ctx, names) if names else [])]


def _config_map_scripts(ctx: Context, names: set[str]) -> list[Script]:
    """The files named ``names`` in the data of the file's ConfigMaps (the volume a job's
    script is mounted from is written beside it)."""
    out = []
    for document in load_text(ctx.file.text).documents:
        data = mapping(document.data)
        if data.get("kind") != "ConfigMap":
            continue
        config_map = mapping(data.get("metadata")).get("name")
        for key, text in mapping(data.get("data")).items():
            if key in names and isinstance(text, str):
                label = f"{key} (ConfigMap {config_map})"
                out.append(Script(text, label, lambda _start, _end: Origin(ENTRYPOINT)))
    return out


def _reading(ctx: Context, script: Script, config: ProcessorConfig) -> BatchReading:
    call = f"{config.name} in {script.label}"

    def found(value: object, literal: Literal, name: str) -> StatedValue:
        return StatedValue(value, script.origin(literal.start, literal.end), f"{name} of {call}")

    options = [
        Option("--" + key, literal.value, *_place(found(None, literal, f"engine_kwargs {key}")))
        for key, literal in config.engine_kwargs.items()
    ]
    read = engine_options(config.engine, options, ctx.report)
    accelerator = config.arguments.get("accelerator_type")
    engine = StatedValue(config.engine, script.origin(config.start, config.start + 1), call)
    return BatchReading(
        engine=engine,
        values=read.values,
        undecided=read.undecided,
        names={
            field: f"engine_kwargs {key} of {call}"
            for field, key in (
                ("spec.serving.maxContextTokens", "max_model_len"),
                ("spec.serving.maxBatchSize", "max_num_seqs"),
                ("spec.serving.gpuMemoryUtilization", "gpu_memory_utilization"),
                ("spec.serving.kvCachePrecision", "kv_cache_dtype"),
                ("spec.serving.tensorParallel", "tensor_parallel_size"),
            )
        },
        model=_model(ctx, config.arguments.get("model_source"), found),
        accelerator=None
        if accelerator is None or not isinstance(accelerator.value, str)
        else found(accelerator.value, accelerator, "accelerator_type"),
        where=f"engine_kwargs of {call}",
    )


def _place(value: StatedValue) -> tuple[Origin, str]:
    return value.origin, value.name


def _model(
    ctx: Context,
    source: Literal | None,
    found: Callable[[object, Literal, str], StatedValue],
) -> StatedValue | None:
    """``model_source`` as written, or the runtime environment's value of the variable it is
    read from."""
    if source is None:
        return None
    if source.env is None:
        return (
            found(source.value, source, "model_source") if isinstance(source.value, str) else None
        )
    env = embedded(ctx, RUNTIME_ENV, "runtimeEnvYAML")
    variables = env.child("env_vars") if env is not None else None
    value = variables.get(source.env) if variables is not None else None
    if variables is None or not isinstance(value, str) or not value:
        return None
    return variables.found(value, source.env)
