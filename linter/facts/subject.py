"""One workload as fact providers see it: its manifest, the run around it, and the inputs
several providers share, computed once."""

from __future__ import annotations

import functools

from linter.facts.placement import Placement, resolve_placement
from linter.facts.run import RunIndex
from linter.formats.manifest import Manifest
from linter.model import Workload


class Subject:
    def __init__(self, manifest: Manifest, run: RunIndex) -> None:
        self.manifest = manifest
        self.run = run

    @functools.cached_property
    def workload(self) -> Workload:
        model = self.manifest.model
        if not isinstance(model, Workload):
            raise TypeError(f"facts are computed for workloads, not {self.manifest.kind}")
        return model

    @functools.cached_property
    def placement(self) -> Placement:
        return resolve_placement(self.workload)
