"""The whole run as run-wide facts see it: one small record per manifest and provider, and the
indices built from them once.

A fact that looks across files (a pool shared with the other side, a quota every workload draws
on) cannot be computed file by file. Its provider makes a small record of each manifest while
the file is read (in a worker process, with everything else about the file), and the run builds
the provider's index from all records once, linearly, in the parent; each workload's fact is
then its record read against the index. Nothing here holds a manifest or a file's text.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any

from linter.cache.packed import Chunk, PackedList
from linter.records import datarecord

if TYPE_CHECKING:
    from linter.config import Budget
    from linter.model.inventory import ClusterInventory
    from linter.pricing.budgets import CostBase

#: Where a manifest is: display path, document number, part of the document.
Target = tuple[str, int, int]
#: A provider's records of the run, in run order: an index may read them more than once.
Records = Collection[tuple[Target, Any]]


@datarecord
class RunInputs:
    """What run-wide facts read besides the manifests: the configuration's budgets and cluster
    inventory, and the cost of the same paths at a git revision that a change is compared
    with."""

    budgets: tuple[Budget, ...] = ()
    cost_base: CostBase | None = None
    cluster: ClusterInventory | None = None


@datarecord
class RunSide:
    """How a run-wide provider works: ``record`` a manifest (plain JSON data, or None when it
    has nothing to add), ``index`` the records of the run (in run order) with the run's other
    inputs, and give a workload's ``fact`` from its record (None if it made none) and the
    index.

    ``record`` is also given the manifest's local facts computed so far (name -> model): a
    record built from one of them reuses it rather than computing it again."""

    record: Callable[[Any, Mapping[str, Any]], Any]
    index: Callable[[Records, RunInputs], Any]
    fact: Callable[[Any, Any], Any]
    #: Per kind, the paths of a manifest (each with everything below it) that the facts name:
    #: where other workloads' findings point as related locations (a conflicting workload's
    #: pool, a ledger's entries), and where a rule whose path is a fact's (``{item.path}``)
    #: points. The first pass locates only these of each manifest.
    points_at: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def by_provider(records: Iterable[tuple[Target, Mapping[str, Any]]]) -> dict[str, list[Any]]:
    """Manifests' records (each manifest's: provider -> record; None: none) by provider, in
    order, as :meth:`RunIndex.add` adds them."""
    found: dict[str, list[Any]] = {}
    for target, made in records:
        for name, record in made.items():
            if record is not None:
                found.setdefault(name, []).append((target, record))
    return found


class RunIndex:
    """The records of a run, by provider (packed: linter/cache/packed.py), with each provider's
    index built once on first use."""

    def __init__(self, sides: Mapping[str, RunSide], inputs: RunInputs | None = None) -> None:
        self._sides = sides
        self._inputs = inputs or RunInputs()
        self._records: dict[str, PackedList[tuple[Target, Any]]] = {
            name: PackedList() for name in sides
        }
        self._indices: dict[str, Any] = {}

    def add(self, target: Target, records: Mapping[str, Any]) -> None:
        """The records one manifest made (provider -> record; None: none)."""
        for name, found in by_provider([(target, records)]).items():
            self._records[name].append(found[0])

    def add_packed(self, packed: Mapping[str, tuple[Chunk, int]]) -> None:
        """The records of consecutive manifests, each provider's already packed in run order
        (:func:`by_provider`): its chunk and how many records it holds."""
        for name, (chunk, count) in packed.items():
            self._records[name].extend_packed(chunk, count)

    def index(self, provider: str) -> Any:
        if provider not in self._indices:
            self._indices[provider] = self._sides[provider].index(
                self._records[provider], self._inputs
            )
        return self._indices[provider]

    def fact(self, provider: str, record: Any) -> Any:
        """The fact of the workload that made ``record`` (None if it made none)."""
        return self._sides[provider].fact(record, self.index(provider))

    def prepare(self) -> None:
        """Build every index now (before worker processes fork and inherit them)."""
        for provider in self._sides:
            self.index(provider)
