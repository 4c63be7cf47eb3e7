"""One workload as fact providers see it: its manifest, the settings of the run, and the inputs
several providers share, computed once."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING

from linter.facts.placement import Placement, resolve_placement
from linter.model import Workload
from linter.model.manifest import Manifest

if TYPE_CHECKING:
    from linter.memory.calibration import Calibration


class Subject:
    def __init__(
        self,
        manifest: Manifest,
        default_residency: Sequence[str] = (),
        calibration: Calibration | None = None,
    ) -> None:
        self.manifest = manifest
        self.default_residency = tuple(default_residency)  # the configuration's residency
        self.calibration = calibration  # measured corrections to memory estimates (--calibration)

    @functools.cached_property
    def workload(self) -> Workload:
        model = self.manifest.model
        if not isinstance(model, Workload):
            raise TypeError(f"facts are computed for workloads, not {self.manifest.kind}")
        return model

    @functools.cached_property
    def placement(self) -> Placement:
        return resolve_placement(self.workload)
