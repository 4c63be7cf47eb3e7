"""Sub-commands of ``gpulint``. Each module has HELP, ``register(parser)`` and ``run(args)``;
modules import their heavy dependencies inside ``run``."""

from __future__ import annotations

from types import ModuleType

from linter.commands import (
    check,
    convert,
    cost,
    explain,
    facts,
    init,
    memory,
    models,
    rules,
    schema,
    test,
)

COMMANDS: dict[str, ModuleType] = {
    "check": check,
    "rules": rules,
    "explain": explain,
    "schema": schema,
    "facts": facts,
    "convert": convert,
    "memory": memory,
    "models": models,
    "cost": cost,
    "init": init,
    "test": test,
}
