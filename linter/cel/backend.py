"""The CEL backend: compile and evaluate rule expressions.

Uses the Rust implementation (package ``common-expression-language``, about 6 us an evaluation
against about 600 us for cel-python here). Its package ``__init__`` also imports an interactive CLI
(typer, rich, prompt-toolkit: ~180 ms), so the compiled extension is loaded on its own; if that
layout ever changes we fall back to the ordinary import.
"""

from __future__ import annotations

import functools
import importlib
import importlib.machinery
import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any


class CelError(Exception):
    """An expression that does not compile or cannot be evaluated."""


@functools.lru_cache(maxsize=1)
def _backend() -> ModuleType:
    spec = importlib.util.find_spec("cel")
    if spec is not None and spec.origin:
        for candidate in sorted(Path(spec.origin).parent.glob("cel.*")):
            if candidate.suffix in (".so", ".pyd"):
                loader = importlib.machinery.ExtensionFileLoader("cel.cel", str(candidate))
                ext_spec = importlib.util.spec_from_file_location(
                    "cel.cel", candidate, loader=loader
                )
                if ext_spec is not None:
                    module = importlib.util.module_from_spec(ext_spec)
                    loader.exec_module(module)
                    return module
    return importlib.import_module("cel")


@functools.lru_cache(maxsize=4096)
def compile_expression(source: str) -> Any:
    """Compile ``source``; raise CelError with the parser's explanation when it is not valid CEL.

    A compiled program holds no state, and the bundled rules repeat nearly half of their
    expressions (574 compiled, 313 distinct): each is compiled once a process (issue 31)."""
    try:
        return _backend().compile(source)
    except Exception as err:  # the backend raises ValueError; keep any other type from leaking
        # the backend adds a caret diagram on further lines; errors here are one line
        raise CelError(str(err).strip().splitlines()[0]) from None


class Deferred:
    """A program compiled when it first runs, for an expression known to compile: one of a rule
    restored from the start-up cache, which compiled when the rule was checked, and whose
    variables were recorded then. A run compiles only what it evaluates: a one-file run fires a
    check or two, so most messages and fixes are never needed, nor the rules of kinds it does
    not read (compiling every rule was a tenth of its start-up, issue 31)."""

    __slots__ = ("_program", "_variables", "source")

    def __init__(self, source: str, variables: list[str]) -> None:
        self.source = source
        self._variables = list(variables)
        self._program: Any = None

    def variables(self) -> list[str]:
        """The variables the program reads, as the compiled program lists them."""
        return list(self._variables)

    def execute(self, context: Any) -> Any:
        program = self._program
        if program is None:
            program = self._program = compile_expression(self.source)
        return program.execute(context)


def new_context(variables: dict[str, Any]) -> Any:
    return _backend().Context(variables)


def evaluate(program: Any, context: Any) -> Any:
    """Run a compiled program; every backend failure becomes CelError."""
    try:
        return program.execute(context)
    except CelError:  # a Deferred program whose recorded text does not compile (a damaged entry)
        raise
    except KeyError as err:
        raise CelError(f"no such key: {err.args[0]}") from None
    except Exception as err:
        raise CelError(str(err).split(". ")[0]) from None
