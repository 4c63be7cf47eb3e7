"""Serving engines in commands: recognise vLLM, SGLang and TGI and read what decides GPU memory.

Each engine's entrypoints, container images and flags are data
(``linter/formats/data/engine_flags.yaml``, checked against the engines' own sources, which it
names). A command that starts an engine gives an :class:`EngineCommand`: the engine, the normalised
settings its flags make (Workload field paths such as ``serving.maxContextTokens``) with the words
to point at, the settings whose value could not be resolved (``--model $MODEL`` with MODEL unknown:
never guessed), and the values the engine would refuse, in its own words. Flags the table does not
list are ignored.

Precedence follows each engine: the last occurrence of a flag wins; vLLM's positional
``model_tag`` wins over ``--model`` (``vllm serve``); TGI's flags win over its environment
variables (clap).

``serving.gpuMemoryUtilization`` does not mean the same in every engine, so a fact must read it
with ``serving.engine``: vLLM's ``--gpu-memory-utilization`` is the share of the GPU's total
memory the whole engine may use (weights, activations, CUDA graphs, KV cache); SGLang's
``--mem-fraction-static`` is the share for static allocation only (weights and the KV pool;
activations and CUDA graphs come out of the rest); TGI's ``--cuda-memory-fraction`` caps what
the process may allocate at all (default 1.0).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence

from linter.catalog.base import Catalogue
from linter.declared import Field
from linter.formats.cmdline.arguments import (
    ArgProblem,
    Arguments,
    FlagTable,
    Positional,
    Setting,
    read_arguments,
    read_environment,
)
from linter.formats.cmdline.programs import Entrypoint, program
from linter.formats.cmdline.shell import Command, Variable, Word
from linter.formats.vocabulary import read_vocabulary
from linter.records import datarecord

ENGINE_FIELD = "serving.engine"


class Engine(FlagTable):
    name: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    entrypoints: list[Entrypoint] = Field(min_length=1)
    images: list[str] = Field(
        default_factory=list, description="Images whose entrypoint starts it."
    )
    image_names: list[str] = Field(
        default_factory=list,
        description="Words in the last part of an image's name that mark an image built on the "
        "engine with its entrypoint (cloud deep-learning containers).",
    )
    image_names_source: str | None = Field(None, description="Source id of image_names.")
    env_signature: list[str] = Field(
        default_factory=list,
        description="Environment variables only this engine reads: a container of any image "
        "that sets the model's variable and one of these runs the engine.",
    )
    tags_are_releases: bool = Field(
        False,
        description="Its images' tags name the engine release (vllm/vllm-openai:v0.11.0), whose "
        "memory accounting then applies.",
    )
    positional: Positional | None = None


class EngineFlagCatalogue(Catalogue):
    engines: list[Engine] = Field(min_length=1)


@datarecord(slots=True)
class EngineCommand:
    """A command that starts a serving engine, read against the engine's flag table.

    ``settings`` maps normalised fields to what the command sets (always ``serving.engine``);
    ``unresolved`` the fields whose value could not be resolved (value None); ``problems`` the
    values the engine would refuse (those settings are absent). ``program`` is the word that
    starts the engine, None when the container image's entrypoint does.
    """

    engine: str
    program: Word | None
    settings: Mapping[str, Setting]
    unresolved: Mapping[str, Setting]
    problems: tuple[ArgProblem, ...]


def recognise_engine(command: Command) -> EngineCommand | None:
    """The serving engine a command starts, or None."""
    started = program(command.words)
    if started is None:
        return None
    for engine in catalogue().engines:
        for entrypoint in engine.entrypoints:
            args = entrypoint.arguments(started)
            if args is not None:
                written = " ".join(w.text for w in command.words[: len(command.words) - len(args)])
                return _read(engine, started.word, written, args, command.env)
    return None


def engine_arguments(
    engine: str, words: Sequence[Word], env: Mapping[str, Variable] | None = None
) -> EngineCommand:
    """Read the arguments given to an engine's container image, whose own entrypoint starts it
    (a Kubernetes container with ``args`` and no ``command``)."""
    table = engine_table(engine)
    return _read(table, None, table.title, tuple(words), env or {})


#: An image tag that names a release: ``v0.11.0``, ``0.9.2``, ``v0.10.1.1`` (read as 0.10.1).
_RELEASE_TAG = re.compile(r"^v?([0-9]+\.[0-9]+(?:\.[0-9]+)?)(?:\.[0-9]+)?$")


def engine_for_image(image: str) -> str | None:
    """The engine a container image starts by itself (``vllm/vllm-openai:v0.11.0`` -> vllm),
    matched on the repository path, with or without a registry host, tag or digest, or on a
    word in its name that marks an image built on it (``huggingface-pytorch-tgi-inference``)."""
    repository, _ = _split_image(image)
    name = repository.rsplit("/", 1)[-1]
    for engine in catalogue().engines:
        if _is_own_image(repository, engine) or any(word in name for word in engine.image_names):
            return engine.name
    return None


def engine_for_env(env: Mapping[str, str | None]) -> str | None:
    """The engine an environment configures, whatever the image: the variable of its model flag
    and one only it reads (TGI's ``MODEL_ID`` with ``NUM_SHARD``)."""
    for engine in catalogue().engines:
        model = next((f.env for f in engine.flags if f.field == "model.id" and f.env), None)
        if model in env and any(name in env for name in engine.env_signature):
            return engine.name
    return None


def release_of_image(image: str, engine: str) -> str | None:
    """The release of ``engine`` that ``image`` runs, when the image is one of the engine's own
    and its tag names a release (``vllm/vllm-openai:v0.10.1.1`` -> ``0.10.1``; ``latest``,
    ``nightly`` and digests say nothing)."""
    table = engine_table(engine)
    repository, tag = _split_image(image)
    if not table.tags_are_releases or tag is None or not _is_own_image(repository, table):
        return None
    return release_of_version(tag)


def release_of_version(version: str) -> str | None:
    """The release a pinned version names (``0.4.3``; ``0.10.1.1`` -> ``0.10.1``), or None."""
    match = _RELEASE_TAG.match(version)
    return match.group(1) if match else None


def _is_own_image(repository: str, engine: Engine) -> bool:
    return any(repository == known or repository.endswith("/" + known) for known in engine.images)


def engine_table(name: str) -> Engine:
    """An engine's entry in the data file (flags, defaults, notes); KeyError if unknown."""
    for engine in catalogue().engines:
        if engine.name == name:
            return engine
    raise KeyError(name)


@functools.cache
def catalogue() -> EngineFlagCatalogue:
    """The engines data file, read once (packaged and validated by the tests)."""
    return read_vocabulary("engine_flags.yaml", EngineFlagCatalogue)


def _read(
    engine: Engine,
    program_word: Word | None,
    written: str,
    args: Sequence[Word],
    env: Mapping[str, Variable],
) -> EngineCommand:
    arguments = read_arguments(args, engine)
    if engine.positional is not None and arguments.positionals:
        arguments = _positional(arguments, engine.positional, arguments.positionals[0])
    arguments = arguments.over(read_environment(env, engine))
    settings = dict(arguments.settings)
    settings[ENGINE_FIELD] = Setting(ENGINE_FIELD, engine.name, written, program_word, program_word)
    return EngineCommand(
        engine.name, program_word, settings, arguments.unresolved, arguments.problems
    )


def _positional(arguments: Arguments, positional: Positional, word: Word) -> Arguments:
    """The positional argument overriding its flag (vLLM's model_tag over --model)."""
    field = positional.field
    setting = Setting(field, None if word.unresolved else word.text, positional.name, None, word)
    settings = {k: v for k, v in arguments.settings.items() if k != field}
    unresolved = {k: v for k, v in arguments.unresolved.items() if k != field}
    (unresolved if word.unresolved else settings)[field] = setting
    return Arguments(settings, unresolved, arguments.problems, arguments.positionals[1:])


def _split_image(image: str) -> tuple[str, str | None]:
    """``registry/path/name:tag@digest`` -> (``registry/path/name``, ``tag``), docker.io's
    prefixes removed from the repository; the tag is None when there is none."""
    name = image.strip().split("@", 1)[0]
    last = name.rsplit("/", 1)[-1]
    tag = None
    if ":" in last:
        tag = last.split(":", 1)[1]
        name = name[: len(name) - len(last)] + last.split(":", 1)[0]
    for prefix in ("docker.io/", "index.docker.io/"):
        name = name.removeprefix(prefix)
    return name.removeprefix("library/").lower(), tag
