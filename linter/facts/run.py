"""The whole run as facts see it: every valid manifest, indexed once."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from linter.documents import Manifest
from linter.model import QuotaLedger, Workload


class RunIndex:
    def __init__(self, manifests: Sequence[Manifest]) -> None:
        self.manifests = tuple(manifests)

    @functools.cached_property
    def workloads(self) -> tuple[Manifest, ...]:
        return tuple(m for m in self.manifests if isinstance(m.model, Workload))

    @functools.cached_property
    def ledgers(self) -> tuple[Manifest, ...]:
        return tuple(m for m in self.manifests if isinstance(m.model, QuotaLedger))

    @functools.cached_property
    def _by_position(self) -> dict[tuple[str, int], Manifest]:
        return {(m.file, m.index): m for m in self.manifests}

    def find(self, file: str, document: object) -> Manifest | None:
        """The manifest at ``file`` / document number, as facts refer to other documents."""
        return self._by_position.get((file, document)) if isinstance(document, int) else None
