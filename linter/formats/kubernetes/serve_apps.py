"""A Ray Serve application that runs an engine in its own code (an ``import_path`` other than
``ray.serve.llm``), read from what its code is given in ``serveConfigV2``: the environment
variables published applications pass to their engine as flags (``MODEL_ID`` as vLLM's
``--model``), the packages its ``runtime_env.pip`` installs (the engine and its release, a
quantisation library), and the deployment that holds the GPUs (``ray_actor_options.num_gpus``,
``accelerator_type``, its replicas). The words are data (``data/ray_serve.yaml``, with sources).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import field

from linter.catalog.base import Catalogue, Record, SourceRef
from linter.declared import Field
from linter.formats.cmdline.engines import engine_table, release_of_version
from linter.formats.kubernetes.embedded import Embedded
from linter.formats.kubernetes.engine_options import Option, engine_options
from linter.formats.kubernetes.pods import Report, mapping, sequence
from linter.formats.kubernetes.scheduling import StatedValue
from linter.formats.kubernetes.settings import normalised
from linter.formats.vocabulary import read_vocabulary
from linter.load.positions import Path
from linter.records import datarecord

ENGINE = ("spec", "serving", "engine")
RELEASE = ("spec", "serving", "engineVersion")
QUANTIZATION = ("spec", "model", "quantization")
MODEL = ("spec", "model", "id")
_ENV = ("runtime_env", "env_vars")
_PIP = ("runtime_env", "pip")
_ACTOR = "ray_actor_options"
#: NAME[extras] and an optional ``==`` pin (pip's requirement specifiers).
_REQUIREMENT = re.compile(
    r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?:==\s*([^\s;,]+))?"
)


class EnvFlags(Record):
    """Environment variables an application passes to ``engine`` as the flags named."""

    engine: str = Field(min_length=1)
    flags: dict[str, str] = Field(min_length=1)
    source: SourceRef


class Package(Record):
    """A package an application installs, and what installing it says."""

    name: str = Field(min_length=1)
    engine: str | None = None
    quantization: str | None = None
    source: SourceRef


class ServeTables(Catalogue):
    """``data/ray_serve.yaml``."""

    env: list[EnvFlags] = Field(min_length=1)
    packages: list[Package] = Field(min_length=1)


@functools.cache
def tables() -> ServeTables:
    return read_vocabulary("ray_serve.yaml", ServeTables)


@datarecord(frozen=False)
class AppReading:
    """What an application's configuration says: normalised values (the engine's fields, the
    engine and its release, a quantisation method), what the file calls the fields it leaves
    unset, the fields only known at run time, and the deployment that holds the GPUs."""

    values: dict[Path, StatedValue] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    undecided: frozenset[str] = frozenset()
    deployment: Embedded | None = None

    @property
    def engine(self) -> str | None:
        found = self.values.get(ENGINE)
        return None if found is None else str(found.value)


def read_app(app: Embedded, report: Report) -> AppReading:
    """What the application ``app`` (``applications[i]``) gives its engine."""
    deployment = gpu_deployment(app)
    reading = AppReading(deployment=deployment)
    for entry in tables().env:
        read = engine_options(entry.engine, _env_options(app, deployment, entry.flags), report)
        reading.values = {**read.values, **reading.values}
        reading.undecided |= read.undecided
        table = engine_table(entry.engine)
        for variable, flag_name in entry.flags.items():
            flag, _ = table.lookup(flag_name)
            if flag is not None and flag.field is not None:
                path = ".".join(str(part) for part in normalised(flag.field))
                reading.names.setdefault(path, app.child(*_ENV).name(variable))
    _packages(app, deployment, reading)
    return reading


def gpu_deployment(app: Embedded) -> Embedded | None:
    """The deployment whose replicas hold the GPUs: the first that asks for some
    (``ray_actor_options.num_gpus``), else the application's only deployment."""
    deployments = sequence(app.get("deployments"))
    for index, deployment in enumerate(deployments):
        gpus = mapping(mapping(deployment).get(_ACTOR)).get("num_gpus")
        if isinstance(gpus, int | float) and not isinstance(gpus, bool) and gpus > 0:
            return app.child("deployments", index)
    return app.child("deployments", 0) if len(deployments) == 1 else None


def _env_options(
    app: Embedded, deployment: Embedded | None, flags: Mapping[str, str]
) -> list[Option]:
    """The application's variables, then the deployment's (which override them)."""
    places = [app.child(*_ENV)]
    if deployment is not None:
        places.append(deployment.child(_ACTOR, *_ENV))
    options = []
    for place in places:
        for key, value in mapping(place.node).items():
            if isinstance(key, str) and key in flags:
                options.append(Option(flags[key], value, place.origin(key), place.name(key)))
    return options


def _packages(app: Embedded, deployment: Embedded | None, reading: AppReading) -> None:
    """The engine (and its pinned release) and the quantisation library the application
    installs (``runtime_env.pip``: a list, or ``packages`` of a mapping)."""
    known = {_key(package.name): package for package in tables().packages}
    places = [app] if deployment is None else [app, deployment.child(_ACTOR)]
    for place in places:
        at = _PIP if isinstance(place.get(*_PIP), list) else (*_PIP, "packages")
        for index, item in enumerate(sequence(place.get(*at))):
            match = _REQUIREMENT.match(item) if isinstance(item, str) else None
            package = known.get(_key(match.group(1))) if match else None
            if match is None or package is None:
                continue
            found = place.found(item, *at, index)
            if package.engine is not None and ENGINE not in reading.values:
                reading.values[ENGINE] = StatedValue(package.engine, found.origin, found.name)
                release = release_of_version(match.group(2) or "")
                if release is not None:
                    reading.values[RELEASE] = StatedValue(release, found.origin, found.name)
            if package.quantization is not None and QUANTIZATION not in reading.values:
                reading.values[QUANTIZATION] = StatedValue(
                    package.quantization, found.origin, found.name
                )


def _key(name: str) -> str:
    """A package name as pip compares them (case, and runs of ``-_.``, do not matter)."""
    return re.sub(r"[-_.]+", "-", name).lower()
