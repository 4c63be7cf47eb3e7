"""What a command runs: an executable, a Python module (``python -m``) or a Python script.

Engines and launchers are started either by their own executable (``vllm serve``, ``torchrun``)
or through the interpreter (``python3 -u -m vllm.entrypoints.openai.api_server``, ``python
train.py``). The interpreter's own options come before the module or script (the Python
command-line reference, "Command line and environment": ``-c``, ``-m``, ``-W``, ``-X``, ``-O``...).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from linter.catalog.base import Record
from linter.declared import model_validator
from linter.formats.cmdline.shell import Word
from linter.records import datarecord

_PYTHON = re.compile(r"python(\d+(\.\d+)?)?\Z")
_OPTIONS_WITH_VALUE = frozenset("cmWX")  # may end a cluster of one-letter options: -um module
_LONG_OPTIONS_WITH_VALUE = frozenset(("--check-hash-based-pycs",))


@datarecord(slots=True)
class Program:
    """The program of a command: ``name`` is an executable's base name, a module's dotted name
    or a script's path; ``word`` names it; ``args`` are the words after it."""

    name: str
    kind: Literal["executable", "module", "script"]
    word: Word
    args: tuple[Word, ...]


def program(words: Sequence[Word]) -> Program | None:
    """The program a command's words run, or None (no words, ``python -c``, a bare REPL)."""
    if not words:
        return None
    name = basename(words[0].text)
    if not _PYTHON.match(name):
        return Program(name, "executable", words[0], tuple(words[1:]))
    index = 1
    while index < len(words):
        text = words[index].text
        if not text.startswith("-") or text == "-":
            return Program(text, "script", words[index], tuple(words[index + 1 :]))
        index += 1
        if text.startswith("--"):
            index += text in _LONG_OPTIONS_WITH_VALUE
            continue
        for position, letter in enumerate(text[1:], start=2):
            if letter not in _OPTIONS_WITH_VALUE:
                continue
            attached = text[position:]
            if letter == "c" or (not attached and index >= len(words)):
                return None
            if letter == "m":
                if attached:
                    return Program(attached, "module", words[index - 1], tuple(words[index:]))
                return Program(words[index].text, "module", words[index], tuple(words[index + 1 :]))
            index += not attached
            break
    return None


def basename(path: str) -> str:
    """The last component of a path (``/usr/bin/python3`` -> ``python3``)."""
    return path.rstrip("/").rsplit("/", 1)[-1]


class Entrypoint(Record):
    """How an engine is started: an executable (with a subcommand) or a Python module."""

    executable: str | None = None
    subcommand: str | None = None
    module: str | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> Entrypoint:
        if (self.executable is None) == (self.module is None):
            raise ValueError("an entrypoint is an executable or a module")
        return self

    def arguments(self, started: Program) -> tuple[Word, ...] | None:
        """The words after the entrypoint when ``started`` is this entrypoint, else None."""
        if started.kind == "module":
            return started.args if started.name == self.module else None
        if started.kind != "executable" or started.name != self.executable:
            return None
        if self.subcommand is None:
            return started.args
        if started.args and started.args[0].text == self.subcommand:
            return started.args[1:]
        return None
