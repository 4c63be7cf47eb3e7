"""A workload's part in the run-wide rules, kept small while its file is read.

Rules that read a run-wide fact (a shared pool, a quota's total) can only be evaluated once
every file has been read. Rather than keep every manifest until then, the first pass keeps, per
manifest, a :class:`WidePart`: the values those rules read of it (already resolved, under the
rules' flattened names), where each path they may point at is in its file, and the assumptions
it relies on. The second pass evaluates the rules on it. It is plain data, so it also goes into
the result cache with the rest of the file's results.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any

from linter.findings import Location
from linter.load.positions import Path, Span, format_path, parse_path
from linter.records import datarecord

if TYPE_CHECKING:  # formats are imported when a manifest is deferred, not when one is restored
    from linter.model.manifest import Manifest

#: A located path: line, column, end line, end column and the original path (as written).
Spot = tuple[int, int, int, int, str]


@datarecord
class WidePart:
    file: str
    index: int
    part: int
    kind: str
    profile: str | None
    values: dict[str, Any]  # flattened name -> value, for the run-wide rules' non-run names
    spots: dict[str, Spot]  # normalised path (formatted) -> where it is
    assumptions: list[tuple[str, str]] = field(default_factory=list)  # (path, note)

    def location(self, path: Path, message: str | None = None) -> Location:
        """The path's spot, else its nearest located ancestor's."""
        for end in range(len(path), -1, -1):
            spot = self.spots.get(format_path(path[:end]) if end else "")
            if spot is not None:
                line, column, end_line, end_column, original = spot
                span = Span(line, column, end_line, end_column)
                source = parse_path(original) if original else ()
                return Location(self.file, span, self.index, path, message, source)
        return Location(self.file, Span(1, 1, 1, 2), self.index, path, message)

    def present(self, path: Path) -> bool:
        return format_path(path) in self.spots

    def assumed(self) -> list[tuple[Path, str]]:
        return [(parse_path(path), note) for path, note in self.assumptions]

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "index": self.index,
            "part": self.part,
            "kind": self.kind,
            "profile": self.profile,
            "values": self.values,
            "spots": {path: list(spot) for path, spot in self.spots.items()},
            "assumptions": [list(item) for item in self.assumptions],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> WidePart:
        """Raises KeyError, TypeError or ValueError on data of another shape."""
        spots = {str(path): _spot(spot) for path, spot in data["spots"].items()}
        assumptions = [(str(path), str(note)) for path, note in data["assumptions"]]
        return cls(
            str(data["file"]),
            int(data["index"]),
            int(data["part"]),
            str(data["kind"]),
            None if data["profile"] is None else str(data["profile"]),
            dict(data["values"]),
            spots,
            assumptions,
        )


def _spot(raw: Any) -> Spot:
    line, column, end_line, end_column, original = raw
    numbers = (int(line), int(column), int(end_line), int(end_column))
    if min(numbers) < 1 or (numbers[2], numbers[3]) < (numbers[0], numbers[1]):
        raise ValueError("not a span")
    return (*numbers, str(original))


@datarecord
class Anchors:
    """The paths of one kind's manifests that run-wide findings may point at (their own paths
    and related locations): ``exact`` ones, a path alternative written out in full, and
    ``subtrees``, where any path at or below may be pointed at (the static start of an
    alternative with a placeholder, ``spec.endpoints[{item.endpoint}]``, and the paths run-wide
    facts name). Each one's ancestors are located too: an absent path points at the nearest
    one present."""

    exact: frozenset[Path]
    subtrees: frozenset[Path]

    @functools.cached_property
    def ancestors(self) -> frozenset[Path]:
        anchors = self.exact | self.subtrees
        found = {anchor[:end] for anchor in anchors for end in range(len(anchor))}
        return frozenset(found - anchors)


def defer(manifest: Manifest, values: dict[str, Any], anchors: Anchors) -> WidePart:
    """A manifest's wide part: ``values`` its run-wide rules read, and the spots of the
    ``anchors`` it has (each exact one, each subtree and every path below it) and of their
    ancestors, present or not."""
    from linter.model.manifest import ABSENT, has_path, value_at

    spots: dict[str, Spot] = {}
    for anchor in anchors.subtrees:
        for path in _under(manifest.data, anchor):
            spots[format_path(path)] = _spot_of(manifest, path)
    for anchor in anchors.exact:
        if has_path(manifest.data, anchor):
            spots[format_path(anchor)] = _spot_of(manifest, anchor)
    for anchor in anchors.ancestors:
        spots[format_path(anchor)] = _spot_of(manifest, anchor)
    profile = value_at(manifest.data, ("spec", "profile"))
    assumptions = [(format_path(path), note) for path, note in manifest.assumed()]
    return WidePart(
        manifest.file,
        manifest.index,
        manifest.part,
        manifest.kind,
        None if profile is ABSENT else profile,
        values,
        spots,
        assumptions,
    )


def _spot_of(manifest: Manifest, path: Path) -> Spot:
    span, original = manifest.provenance.locate(path, manifest.source_map)
    named = format_path(original) if original else ""
    return (span.line, span.column, span.end_line, span.end_column, named)


def _under(data: Any, anchor: Path) -> Iterable[Path]:
    """``anchor`` and every path below it in ``data``, when it is there (an absent path is
    located at its nearest present ancestor)."""
    from linter.model.manifest import ABSENT, value_at

    node = value_at(data, anchor)
    if node is ABSENT:
        return
    yield anchor
    stack: list[tuple[Path, Any]] = [(anchor, node)]
    while stack:
        path, value = stack.pop()
        children: Iterable[tuple[Any, Any]] = ()
        if isinstance(value, dict):
            children = value.items()
        elif isinstance(value, list):
            children = enumerate(value)
        for key, child in children:
            below = (*path, key)
            yield below
            stack.append((below, child))
