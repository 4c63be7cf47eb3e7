"""The whole run as facts see it: every valid manifest, indexed once, and run-wide settings."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from linter.formats.manifest import Manifest
from linter.model import QuotaLedger, Workload

if TYPE_CHECKING:
    from linter.costs.budgets import CostInputs

T = TypeVar("T")


class RunIndex:
    """Read-only view of a run. ``shared`` computes a run-wide index once (per name) so that a
    fact needing all workloads (a quota sum, a shared pool) costs O(n), not O(n^2)."""

    def __init__(
        self,
        manifests: Sequence[Manifest],
        default_residency: Sequence[str] = (),
        cost_inputs: CostInputs | None = None,
    ) -> None:
        self.manifests = tuple(manifests)
        self.default_residency = tuple(default_residency)
        self.cost_inputs = cost_inputs  # budgets and a cost base, for the cost fact
        self._shared: dict[str, Any] = {}

    @functools.cached_property
    def workloads(self) -> tuple[Manifest, ...]:
        return tuple(m for m in self.manifests if isinstance(m.model, Workload))

    @functools.cached_property
    def ledgers(self) -> tuple[Manifest, ...]:
        return tuple(m for m in self.manifests if isinstance(m.model, QuotaLedger))

    def shared(self, name: str, build: Callable[[RunIndex], T]) -> T:
        if name not in self._shared:
            self._shared[name] = build(self)
        value: T = self._shared[name]
        return value

    @functools.cached_property
    def _by_position(self) -> dict[tuple[str, int, int], Manifest]:
        return {(m.file, m.index, m.part): m for m in self.manifests}

    def find(self, file: str, document: object, part: object = 0) -> Manifest | None:
        """The manifest at ``file`` / document number / part, as facts refer to other
        documents."""
        if not isinstance(document, int) or not isinstance(part, int):
            return None
        return self._by_position.get((file, document, part))
