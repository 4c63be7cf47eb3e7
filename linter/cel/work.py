"""Bounds on how much work evaluating rule expressions takes, as polynomials in the sizes of the
values they read, and their check against one document before anything runs.

linter/cel/work_bounds.py computes a model from an expression's syntax tree when a rule is
checked; the models are kept in the start-up cache with the rule's data (linter/policy/
rule_analysis.py), so a run evaluates them without parsing any expression: this module needs no
parser. A document's bound is a few size lookups, multiplications and additions.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from linter.cel.value_paths import Path, Segment, Wildcard
from linter.records import datarecord

SizeOf = Callable[[Path], int]
Monomial = tuple[Path, ...]  # a product of sizes, in a canonical order

# Per expression (or per rule, for models added up) and document. A step is about 0.1 us of the
# backend's time (two map() nested over 1,000 labels: a bound of 5,000,000, 0.5 s measured), so
# the limit is about 0.1 s. The built-in rules stay under a few thousand of either on every
# example and test manifest (tests/policy/test_budget.py checks that).
MAX_WORK = 1_000_000
MAX_VALUE_SIZE = 1_000_000  # characters, elements or entries built in all


class Poly:
    """A polynomial with non-negative integer coefficients over the sizes of paths."""

    __slots__ = ("terms",)

    def __init__(self, terms: Mapping[Monomial, int]) -> None:
        self.terms = {monomial: c for monomial, c in terms.items() if c}

    @classmethod
    def constant(cls, value: int) -> Poly:
        return cls({(): value})

    @classmethod
    def size(cls, path: Path) -> Poly:
        return cls({(path,): 1})

    def __add__(self, other: Poly) -> Poly:
        if not other.terms:
            return self
        if not self.terms:
            return other
        terms = dict(self.terms)
        for monomial, coefficient in other.terms.items():
            terms[monomial] = terms.get(monomial, 0) + coefficient
        return Poly(terms)

    def __mul__(self, other: Poly) -> Poly:
        terms: dict[Monomial, int] = {}
        for left, a in self.terms.items():
            for right, b in other.terms.items():
                monomial = tuple(sorted((*left, *right), key=repr))
                terms[monomial] = terms.get(monomial, 0) + a * b
        return Poly(terms)

    @property
    def depends(self) -> bool:
        """Whether the value depends on a document (has a term that is not a constant)."""
        return any(self.terms.keys() - {()})

    def __repr__(self) -> str:
        return f"Poly({self.terms!r})"


ZERO = Poly({})
ONE = Poly.constant(1)


@datarecord
class WorkModel:
    """``work``: a bound on the evaluation steps; ``values``: on the total size of the strings,
    lists and maps the evaluation builds. Models add up (a rule's expressions together)."""

    work: Poly
    values: Poly

    def __add__(self, other: WorkModel) -> WorkModel:
        return WorkModel(self.work + other.work, self.values + other.values)

    @classmethod
    def zero(cls) -> WorkModel:
        """WorkModels nothing: the start of a sum of models."""
        return cls(Poly({}), Poly({}))

    def as_data(self) -> dict[str, Any]:
        """The model as JSON data (``from_data`` reads it back): each polynomial a list of
        ``[coefficient, [path, ...]]`` terms, a wildcard segment written ``{"*": "EACH"}``."""
        return {"work": _poly_data(self.work), "values": _poly_data(self.values)}

    @classmethod
    def from_data(cls, data: Any) -> WorkModel:
        """What ``as_data`` wrote; ValueError for anything else."""
        if not isinstance(data, dict) or data.keys() != {"work", "values"}:
            raise ValueError("a cost model is a map of work and values")
        return cls(_poly_of(data["work"]), _poly_of(data["values"]))

    def specialise(self, variable: str, size_of: SizeOf) -> WorkModel:
        """The model with the sizes of the paths from ``variable`` filled in: a rule's
        ``options`` are known before any document is."""

        def fill(poly: Poly) -> Poly:
            terms: dict[Monomial, int] = {}
            for monomial, coefficient in poly.terms.items():
                kept = []
                for path in monomial:
                    if path[0] == variable:
                        coefficient *= size_of(path)
                    else:
                        kept.append(path)
                terms[tuple(kept)] = terms.get(tuple(kept), 0) + coefficient
            return Poly(terms)

        return WorkModel(fill(self.work), fill(self.values))

    @property
    def paths(self) -> list[Path]:
        """The paths whose sizes the bounds depend on."""
        return self._program.paths

    def bounds(self, size_of: SizeOf) -> tuple[int, int]:
        """``(work, values)`` on one document, asking the size of each path once."""
        program = self._program
        if program.constant is not None:
            return program.constant
        sizes = [size_of(path) for path in program.paths]
        return _evaluate(program.work, sizes), _evaluate(program.values, sizes)

    @functools.cached_property
    def _program(self) -> _Program:
        positions: dict[Path, int] = {}

        def terms(poly: Poly) -> _Terms:
            return [
                (coefficient, [positions.setdefault(path, len(positions)) for path in monomial])
                for monomial, coefficient in poly.terms.items()
            ]

        work, values = terms(self.work), terms(self.values)
        constant = None if positions else (_evaluate(work, []), _evaluate(values, []))
        return _Program(list(positions), work, values, constant)


_Terms = list[tuple[int, list[int]]]


@datarecord
class _Program:
    """A model's polynomials with their paths replaced by positions in one list of paths;
    ``constant`` is what the bounds are when that list is empty."""

    paths: list[Path]
    work: _Terms
    values: _Terms
    constant: tuple[int, int] | None


def _evaluate(terms: _Terms, sizes: list[int]) -> int:
    total = 0
    for coefficient, positions in terms:
        for position in positions:
            coefficient *= sizes[position]
        total += coefficient
    return total


def _poly_data(poly: Poly) -> list[Any]:
    return [
        [coefficient, [[_segment_data(s) for s in path] for path in monomial]]
        for monomial, coefficient in poly.terms.items()
    ]


def _segment_data(segment: Segment) -> Any:
    return {"*": segment.name} if isinstance(segment, Wildcard) else segment


_WILDCARDS = {wildcard.name: wildcard for wildcard in (Wildcard.EACH, Wildcard.ANY)}


def _poly_of(data: Any) -> Poly:
    if not isinstance(data, list):
        raise ValueError("a polynomial is a list of terms")
    terms: dict[Monomial, int] = {}
    for term in data:
        if not (isinstance(term, list) and len(term) == 2 and _is_count(term[0])):
            raise ValueError("a term is a coefficient and its paths")
        coefficient, paths = term
        if not isinstance(paths, list) or not all(isinstance(p, list) for p in paths):
            raise ValueError("a term's paths are lists of segments")
        monomial = tuple(tuple(_segment_of(s) for s in path) for path in paths)
        terms[monomial] = terms.get(monomial, 0) + coefficient
    return Poly(terms)


def _is_count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _segment_of(data: Any) -> Segment:
    if type(data) in (str, int):
        return data  # type: ignore[no-any-return]  # checked
    if isinstance(data, dict) and data.keys() == {"*"} and data["*"] in _WILDCARDS:
        return _WILDCARDS[data["*"]]
    raise ValueError(f"not a path segment: {data!r}")


def over_work_limit(model: WorkModel, size_of: SizeOf) -> str | None:
    """Why evaluating ``model``'s expressions on this document is refused, or None."""
    work, built = model.bounds(size_of)
    if work > MAX_WORK:
        return f"evaluating it could take {work:,} steps on this document (limit {MAX_WORK:,})"
    if built > MAX_VALUE_SIZE:
        return (
            f"it could build values of {built:,} elements or characters on this document "
            f"(limit {MAX_VALUE_SIZE:,})"
        )
    return None


def document_sizes(variables: Mapping[str, Any]) -> SizeOf:
    """``size_of`` for an activation (``workload``, ``facts``, ``options``...), memoised: the
    length of the string, list or map at a path (the largest over the elements a wildcard
    stands for), 1 for a scalar, 0 where there is nothing."""
    values: dict[Path, list[Any]] = {(name,): [value] for name, value in variables.items()}
    sizes: dict[Path, int] = {}

    def values_at(path: Path) -> list[Any]:
        # A loop from the longest prefix already found, not a recursion: a function that calls
        # itself through its closure is a reference cycle, and this one would keep the whole
        # activation (facts, manifest) alive until the garbage collector found it (issue 31).
        found = values.get(path)
        if found is not None:
            return found
        known = len(path) - 1
        while known and path[:known] not in values:
            known -= 1
        found = values[path[:known]] if known else []
        for end in range(known + 1, len(path) + 1):
            segment = path[end - 1]
            if len(found) == 1 and _is_map(found[0]) and type(segment) is str:
                found = [found[0][segment]] if segment in found[0] else []  # the usual case
            else:
                found = list(_step(found, segment))
            values[path[:end]] = found
        return found

    def size_of(path: Path) -> int:
        size = sizes.get(path)
        if size is None:
            found = values_at(path)
            size = sizes[path] = (
                _size(found[0]) if len(found) == 1 else max(map(_size, found), default=0)
            )
        return size

    return size_of


def _size(value: Any) -> int:
    if type(value) in _SIZED:  # the usual cases, without an abstract class check
        return len(value)
    return len(value) if isinstance(value, (str, bytes, list, tuple, Mapping)) else 1


_SIZED = frozenset({str, list, dict, tuple, bytes})


def _is_map(value: Any) -> bool:
    return type(value) is dict or isinstance(value, Mapping)


def _step(values: Iterable[Any], segment: Segment) -> Iterator[Any]:
    """The values one segment further."""
    for value in values:
        if isinstance(value, Mapping):
            if segment is Wildcard.EACH:
                yield from value  # iterating a map yields its keys
            elif segment is Wildcard.ANY:
                yield from value.values()
            elif segment in value:
                yield value[segment]
        elif isinstance(value, (list, tuple)):
            if isinstance(segment, Wildcard):
                yield from value
            elif isinstance(segment, int) and 0 <= segment < len(value):
                yield value[segment]
