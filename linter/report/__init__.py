"""Renderers: pure functions from a :class:`~linter.report.record.Report` to text, one module per
format, registered here once (the command line's ``--format`` choices come from this table).

Modules are imported on demand: the SARIF renderer pulls in sarif-om and attrs, which a
pre-commit run printing text should not pay for; the command line imports this module to build
its parser, so it imports nothing else at run time.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from linter.report.record import Rendered, RenderOptions, Report

_MODULES = {
    "text": "text",
    "json": "json_report",
    "sarif": "sarif",
    "github": "github",
    "junit": "junit_report",
    "gitlab": "gitlab",
}
FORMATS = tuple(_MODULES)


def renderer(name: str) -> Callable[[Report, RenderOptions], Rendered]:
    module = importlib.import_module(f"linter.report.{_MODULES[name]}")
    render: Callable[[Report, RenderOptions], Rendered] = module.render
    return render
