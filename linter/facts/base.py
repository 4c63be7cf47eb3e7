"""What every fact model is: a frozen record with every key present.

A fact provider returns one of these per workload. Keys are camelCase like the manifest; a key
that does not apply is null, never absent, so the shape of a fact never depends on status or
mode and rule authors can read any documented path (``schemas/facts.schema.json``). Facts give
numbers, flags and names, and the file's own words (``facts.names``, evidence quoted from it);
the rules word them, choices included, in their ``variables:``. A list of names a message shows
("a, b and 3 more") is a fact too: CEL cannot join a list.
"""

from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from linter.wording import MAX_LISTED, plural

#: Lists in messages name at most this many items, then say how many more there are.


class Fact(BaseModel):
    model_config = ConfigDict(
        defer_build=True,  # built on first use (linter/strict_model.py)
        frozen=True,
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
    )

    def as_data(self) -> dict[str, Any]:
        """Plain data as rules see it (camelCase keys, JSON types): ``model_dump(mode="json",
        by_alias=True)`` without its Python wrapper, a quarter of its cost on a small fact."""
        data: dict[str, Any] = self.__pydantic_serializer__.to_python(
            self, mode="json", by_alias=True
        )
        return data


T = TypeVar("T")


class Tally(Generic[T]):
    """Many workloads sharing one thing (a pool, a quota), summarised in O(1) memory: how many,
    how much they need together, and the first few to name in a message."""

    def __init__(self) -> None:
        self.count = 0
        self.total = 0.0
        self.sample: list[T] = []

    def add(self, item: T, amount: float = 0.0) -> None:
        self.count += 1
        self.total += amount
        if len(self.sample) < MAX_LISTED:
            self.sample.append(item)


__all__ = ["Fact", "Tally", "duration", "percent", "plural"]


def duration(seconds: int) -> str:
    """``120`` -> ``2 minutes``, ``30`` -> ``30 seconds``."""
    if seconds % 60 == 0:
        return plural(seconds // 60, "minute")
    return plural(seconds, "second")


def percent(fraction: float | None) -> float | None:
    """A fraction as a percentage with one decimal (0.123456 -> 12.3)."""
    return None if fraction is None else round(fraction * 100, 1)
