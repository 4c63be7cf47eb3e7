"""Sub-commands of ``gpulint``. Each module has HELP, ``register(parser)`` and ``run(args)``;
modules import their heavy dependencies inside ``run``."""

from __future__ import annotations

import importlib
from types import ModuleType

#: The sub-commands, in the order ``gpulint --help`` lists them; each is the module
#: ``linter.commands.<name>``, imported only when the command line needs it (``command``).
NAMES = (
    "check",
    "rules",
    "explain",
    "schema",
    "facts",
    "convert",
    "memory",
    "models",
    "cost",
    "init",
    "test",
)


def command(name: str) -> ModuleType:
    """The module of the sub-command ``name`` (one of ``NAMES``)."""
    return importlib.import_module(f"{__name__}.{name}")
