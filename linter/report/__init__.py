"""Renderers: pure functions from a run's result to text, one module per format.

Modules are imported on demand: the SARIF renderer pulls in sarif-om and attrs, which a
pre-commit run printing text should not pay for.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from linter.runner import RunResult

Renderer = Callable[[RunResult], str]

_MODULES = {"text": "text", "json": "json_report", "sarif": "sarif", "github": "github"}
FORMATS = tuple(_MODULES)


def renderer(name: str) -> Renderer:
    module = importlib.import_module(f"linter.report.{_MODULES[name]}")
    render: Renderer = module.render
    return render
