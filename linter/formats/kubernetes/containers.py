"""The program a container runs: a serving engine or a training launcher, read from its
``command`` + ``args`` with its ``env``, with every word's place in the file.

Kubernetes joins ``command`` (the image's entrypoint when absent) and ``args`` into one argument
vector and expands ``$(VAR)`` in them from the container's ``env`` ("Define a Command and
Arguments for a Container"); ``valueFrom`` values (secrets, config maps, fields) are unknown
here, so a word that needs one is unresolved, never guessed. A container without ``command``
whose image starts an engine by itself (``vllm/vllm-openai``, a cloud image built on TGI) passes
its ``args`` to that engine; so does one of any image whose ``env`` configures an engine in
variables only it reads (TGI's ``MODEL_ID`` with ``NUM_SHARD``). When no flag names the model,
a variable whose name says it holds one (``MODEL_NAME: google/gemma-2b`` for a fine-tuning
image, ``linter.formats.platforms.model_env``) does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any

from linter.formats.builder import Unrendered, WorkloadBuilder
from linter.formats.cmdline.engines import (
    EngineCommand,
    engine_arguments,
    engine_for_env,
    engine_for_image,
    recognise_engine,
)
from linter.formats.cmdline.launchers import LaunchCommand, recognise_launch
from linter.formats.cmdline.shell import Command, Variable, Word, argv_commands, not_expanded
from linter.formats.kubernetes.pods import (
    Container,
    PodSpec,
    Report,
    container_gpus,
    containers,
    mapping,
    sequence,
)
from linter.formats.platforms.model_env import EnvValue, fine_tuning_in_env, model_in_env
from linter.load.positions import Path
from linter.model.provenance import Origin
from linter.records import datarecord


@datarecord
class LaunchedProgram:
    """An engine or launcher started by an argument vector (a container's ``command`` +
    ``args``, a RayJob's ``entrypoint``), and where each of its words is written.

    ``items`` gives, per item of the vector, its path and what the file calls that part
    (``args``); ``owner`` names whose it is (``the vllm container``); ``path`` is the object
    that holds them (findings on a flag it lacks point there).
    """

    owner: str
    path: Path
    items: tuple[tuple[Path, str], ...]
    engine: EngineCommand | None
    launch: LaunchCommand | None
    env_paths: Mapping[str, Path] = field(default_factory=dict)
    default_part: str = "args"
    #: The container's image and where it is written (its tag may name the engine release).
    image: tuple[str, Path] | None = None

    def item_path(self, word: Word) -> Path:
        return self.items[word.item][0] if word.item < len(self.items) else self.path

    def part(self, word: Word | int | None) -> str:
        item = word.item if isinstance(word, Word) else word
        if item is None or item >= len(self.items):
            return self.default_part
        return self.items[item][1]

    def origin(self, builder: WorkloadBuilder, word: Word) -> Origin:
        return builder.at_word(self.item_path(word), word.start, word.end)

    def describe(self, flag: str, word: Word | None) -> str:
        """How the file spells a flag: ``--max-model-len in the vllm container's args``."""
        return f"{flag} in {self.owner}'s {self.part(word)}"

    def flag_part(self) -> str:
        """Where the program's flags are written (and a missing one would go): the part of its
        last word."""
        found = self.engine or self.launch
        words = [self.engine.program] if self.engine is not None else []
        if found is not None:
            for setting in found.settings.values():
                words.extend((setting.flag_word, setting.value_word))
        items = [word.item for word in words if word is not None]
        return self.part(max(items)) if items else self.default_part

    def env_origin(self, name: str) -> Origin:
        return Origin(self.env_paths.get(name, self.path))

    def lacking(self) -> Path:
        """Where a flag the engine's command lacks would go: the item that starts the engine,
        else the arguments, else the object."""
        if self.engine is not None and self.engine.program is not None:
            return self.item_path(self.engine.program)
        args = [path for path, part in self.items if part == self.default_part]
        return args[0][:-1] if args else self.path


@datarecord
class EnvSetting:
    """A value a container's environment gives, where it is written and what the file calls it."""

    value: EnvValue
    origin: Origin
    name: str


def pod_program(pod: PodSpec, report: Report, engine: str | None = None) -> LaunchedProgram | None:
    """The program of the pod's GPU containers first, else of its first container that runs
    one (a sidecar downloading weights runs none)."""
    ordered = sorted(containers(pod), key=lambda c: container_gpus(c, _ignore) is None)
    for container in ordered:
        program = run(container, report, engine)
        if program is not None:
            return program
    return None


def env_values(
    pod: PodSpec, program: LaunchedProgram | None, *, training: bool
) -> list[EnvSetting]:
    """What the environment of the program's container (else of the pod's first GPU container
    that says it) gives that no flag did: the model id, and for training the fine-tuning
    settings (``linter.formats.platforms.model_env``), each with where its value is written and
    what the file calls it."""
    chosen = [c for c in containers(pod) if program is not None and c.path == program.path]
    ordered = chosen or [c for c in containers(pod) if container_gpus(c, _ignore) is not None]
    out: list[EnvSetting] = []
    for container in ordered:
        env, paths = _environment(container, _ignore)
        found = [model_in_env(env)]
        if training:
            found.extend(fine_tuning_in_env(env))
        for value in found:
            if value is not None and all(o.value.field != value.field for o in out):
                name = f"env {value.variable} of the {container.name} container"
                out.append(EnvSetting(value, Origin(paths[value.variable]), name))
    return out


def _ignore(origin: Origin, problem: str | Unrendered) -> None:
    """Problems found while only ordering containers are reported when they are read."""


def run(container: Container, report: Report, engine: str | None = None) -> LaunchedProgram | None:
    """The engine or launcher ``container`` starts, or None. ``engine`` names the engine the
    image starts when the object says so (a KServe vLLM runtime) rather than the image."""
    command = _strings(container, "command", report)
    args = _strings(container, "args", report)
    env, env_paths = _environment(container, report)
    owner = f"the {container.name} container"
    items = tuple(
        [((*container.path, "command", i), "command") for i in range(len(command))]
        + [((*container.path, "args", i), "args") for i in range(len(args))]
    )
    commands = argv_commands([*command, *args], env)
    unexpanded = not_expanded(commands)
    if unexpanded is not None:
        word, message = unexpanded
        report(Origin(items[word.item][0]), f"{message} ({owner})")
    image = container.data.get("image")
    image = image if isinstance(image, str) else None
    written = None if image is None else (image, (*container.path, "image"))
    found = recognised(commands)
    if found is not None:
        return LaunchedProgram(owner, container.path, items, *found, env_paths, image=written)
    engine = engine or (engine_for_image(image) if image is not None else None)
    engine = engine or engine_for_env(env)
    if command or engine is None:
        return None
    words = commands[0].words if len(commands) == 1 else ()
    variables = {name: Variable(value) for name, value in env.items()}
    started = engine_arguments(engine, words, variables)
    return LaunchedProgram(owner, container.path, items, started, None, env_paths, image=written)


def recognised(commands: list[Command]) -> tuple[EngineCommand | None, LaunchCommand | None] | None:
    """The first serving engine the commands start, else the first training launch."""
    for command in commands:
        started = recognise_engine(command)
        if started is not None:
            return started, None
    for command in commands:
        launched = recognise_launch(command)
        if launched is not None:
            return None, launched
    return None


def _strings(container: Container, key: str, report: Report) -> list[str]:
    """``command`` or ``args``: Kubernetes takes strings only and rejects a manifest with a number
    or boolean there; that is reported and the item read as YAML wrote it."""
    items = []
    for index, item in enumerate(sequence(container.data.get(key))):
        if isinstance(item, str):
            items.append(item)
            continue
        text = str(item).lower() if isinstance(item, bool) else str(item)
        report(
            Origin((*container.path, key, index)),
            f"{key}[{index}] of the {container.name} container: {text} must be a string; "
            f'Kubernetes rejects the manifest (write "{text}")',
        )
        items.append(text)
    return items


def _environment(
    container: Container, report: Report
) -> tuple[dict[str, str | None], dict[str, Path]]:
    """The container's ``env``: name -> value (None when it comes from elsewhere) and where each
    value is written. A placeholder stays as written (``${LD_LIBRARY_PATH}:/usr/lib`` is for the
    image's shell or loader); an engine setting read from it says so where it is read."""
    env: dict[str, str | None] = {}
    paths: dict[str, Path] = {}
    for index, item in enumerate(sequence(container.data.get("env"))):
        item = mapping(item)
        name = item.get("name")
        if not isinstance(name, str):
            continue
        path = (*container.path, "env", index, "value")
        value: Any = item.get("value")
        if not isinstance(value, str) and "value" in item:
            report(
                Origin(path),
                f"env {name} of the {container.name} container: {value!r} must be a string; "
                "Kubernetes rejects the manifest",
            )
            value = None if value is None else str(value)
        env[name] = value
        paths[name] = path if "value" in item else (*container.path, "env", index)
    return env, paths
