"""What gpulint knows of the launch platforms whose files it reads (SkyPilot, dstack): the keys
their documents have, their defaults and the environment they give scripts. All of it is data
(``data/platforms.yaml``, with its sources)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Literal

from linter.catalog.base import Catalogue, Record
from linter.declared import Field
from linter.formats.vocabulary import read_vocabulary

if TYPE_CHECKING:  # the shell parser (~10 ms) is for adapters; recognition reads this module
    from linter.formats.cmdline.shell import Env

#: What a platform variable holds: a quantity of the workload, or something known only at run time.
Quantity = Literal["gpus-per-node", "gpus-total", "nodes", "unknown"]


class SkyPilotVocabulary(Record):
    source: str
    task_keys: list[str] = Field(min_length=1)
    resource_keys: list[str] = Field(min_length=1)
    service_keys: list[str] = Field(min_length=1)
    recognised_by: list[str] = Field(min_length=1)
    autostop_true_minutes: int = Field(ge=1)
    recovery_strategies: list[str] = Field(min_length=1)
    no_recovery: str
    durable_mount_modes: list[str] = Field(min_length=1)
    kubernetes_infra: list[str] = Field(min_length=1)
    env: dict[str, Quantity]


class IdleDefaults(Record):
    run: str
    fleet: str


class DstackVocabulary(Record):
    source: str
    types: list[str] = Field(min_length=1)
    file_suffix: str
    run_keys: list[str] = Field(min_length=1)
    fleet_keys: list[str] = Field(min_length=1)
    spot_policies: list[str] = Field(min_length=1)
    spot_policy_default: str
    idle_duration_default: IdleDefaults
    retry_events: list[str] = Field(min_length=1)
    preemption_event: str
    gpu_vendors: list[str]
    env: dict[str, Quantity]


class Platforms(Catalogue):
    inherited_env: list[str]
    checkpoint_flag_hints: list[str] = Field(min_length=1)
    skypilot: SkyPilotVocabulary
    dstack: DstackVocabulary


@functools.cache
def platforms() -> Platforms:
    """The data file, read once (packaged and validated by the tests)."""
    return read_vocabulary("platforms.yaml", Platforms)


def platform_env(
    variables: dict[str, Quantity], gpus_per_node: int | None, nodes: int
) -> dict[str, str | None]:
    """The environment a platform gives its scripts, as far as the file decides it: GPU and node
    counts where they are known, every other platform or inherited variable unknown (None)."""
    known: dict[Quantity, int | None] = {
        "gpus-per-node": gpus_per_node,
        "gpus-total": None if gpus_per_node is None else gpus_per_node * nodes,
        "nodes": nodes,
        "unknown": None,
    }
    env: dict[str, str | None] = {name: None for name in platforms().inherited_env}
    for name, quantity in variables.items():
        value = known[quantity]
        env[name] = None if value is None else str(value)
    return env


def merged(*parts: Env) -> dict[str, str | None]:
    """Environments layered left to right (a later one wins)."""
    out: dict[str, str | None] = {}
    for part in parts:
        out.update(part)
    return out
