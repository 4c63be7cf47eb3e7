"""What the adapters of launcher files (SkyPilot, dstack) share: the workload's name, template
placeholders, the placements a launcher may pick, and names for fields the format has no place
for."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import field
from pathlib import Path as FsPath
from typing import Any

from linter.formats.builder import WorkloadBuilder, unrendered
from linter.load.positions import Path
from linter.model.base import NAME_PATTERN
from linter.model.fields import FIELDS
from linter.model.provenance import Origin
from linter.records import datarecord

_NAME = re.compile(NAME_PATTERN)
_NOT_NAME = re.compile(r"[^a-z0-9._-]+")


def workload_name(written: object, fs_path: FsPath, fallback: str) -> str:
    """A valid metadata.name from the file's own name for the workload, else its file name."""
    for candidate in (written, fs_path.name.split(".")[0], fallback):
        if isinstance(candidate, str):
            name = _NOT_NAME.sub("-", candidate.strip().lower()).strip("-._")
            if _NAME.match(name):
                return name[:253].rstrip("-._")
    return fallback


def template_problem(builder: WorkloadBuilder, path: Path, what: str, value: object) -> bool:
    """Report a templated value (the file is a template: GL010, once); True when it was one."""
    found = unrendered(what, value) if isinstance(value, str) else None
    if found is None:
        return False
    builder.problem(builder.at(path), found)
    return True


def assume_names(builder: WorkloadBuilder) -> None:
    """Name every field configuration may set by what sets it (``alwaysOn`` in an ``assume:``
    block): the format's own names, given afterwards, replace these."""
    for name, entry in FIELDS.items():
        if entry.annotation:
            builder.call(entry.path, f"`{name}` in an `assume:` block of .gpulint.yaml")


@datarecord(frozen=False)
class PlacementChoice:
    """One placement a launcher may pick (an accelerator candidate, an ``any_of`` entry), each
    part with where it is written. Keys are the fields of ``linter.model.workload.Placement``."""

    values: dict[str, tuple[Any, Origin]] = field(default_factory=dict)

    def put(self, key: str, value: Any, origin: Origin) -> None:
        if value is not None:
            self.values[key] = (value, origin)

    def get(self, key: str) -> Any:
        entry = self.values.get(key)
        return None if entry is None else entry[0]

    def same_as(self, other: PlacementChoice) -> bool:
        return {k: v for k, (v, _) in self.values.items()} == {
            k: v for k, (v, _) in other.values.items()
        }


def set_choices(
    builder: WorkloadBuilder, choices: Sequence[PlacementChoice], names: Mapping[str, str]
) -> None:
    """The first choice is the workload's placement (``spec.resources``); every other one that
    differs goes to ``spec.resources.alternatives`` in order. ``names`` are the file's words for
    the placement's fields."""
    for key, name in names.items():
        builder.call(("spec", "resources", key), name)
    if not choices:
        return
    main, others = choices[0], list[PlacementChoice]()
    for choice in choices[1:]:
        if not choice.same_as(main) and not any(choice.same_as(o) for o in others):
            others.append(choice)
    for key, (value, origin) in main.values.items():
        builder.set(("spec", "resources", key), value, origin)
    for index, choice in enumerate(others):
        base: Path = ("spec", "resources", "alternatives", index)
        for key, (value, origin) in choice.values.items():
            builder.set((*base, key), value, origin)
