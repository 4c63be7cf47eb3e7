"""Paths into the values rule expressions read: ``facts.pool.conflicts[*].name`` is
``("facts", "pool", "conflicts", Wildcard.EACH, "name")``.

The path analysis (linter/cel/read_paths.py) writes them, cost models (linter/policy/
work_model.py) are polynomials over their sizes, and a document is measured along them; this
module holds only the types, so that the run-time side needs no expression parser.
"""

from __future__ import annotations

from typing import ClassVar


class Wildcard:
    """A path segment not known statically: ``EACH`` is what iterating yields (a list's
    elements, a map's keys), ``ANY`` what indexing with a computed key yields (a list's
    elements, a map's values). Two singletons, compared by identity (and hashed fast: paths are
    dictionary keys when costs are evaluated)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Wildcard.{self.name}"

    EACH: ClassVar[Wildcard]
    ANY: ClassVar[Wildcard]


Wildcard.EACH = Wildcard("EACH")
Wildcard.ANY = Wildcard("ANY")

Segment = str | int | Wildcard
Path = tuple[Segment, ...]
