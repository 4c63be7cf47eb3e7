"""What every kind reader gets: the document, its file, and a place for problems with the
document that belong to no single workload."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.formats.base import InputFile
from linter.formats.builder import Unrendered, WorkloadBuilder
from linter.formats.kubernetes.pods import lookup, mapping, whole
from linter.formats.kubernetes.scheduling import StatedValue
from linter.load import Document
from linter.load.positions import Path, format_path
from linter.model.provenance import Origin
from linter.records import datarecord

_SECONDS_PER_HOUR = 3600
_SECONDS_PER_MINUTE = 60


@datarecord
class Context:
    document: Document
    file: InputFile
    kind: str
    #: Collects the document's problems (``problem``) and locates words inside strings
    #: (``at_word``); it never builds a workload.
    sink: WorkloadBuilder

    @property
    def data(self) -> Mapping[str, Any]:
        return self.document.data  # type: ignore[no-any-return]

    @property
    def name(self) -> str:
        """The object's name (``generateName`` without its trailing dash when it has none)."""
        metadata = mapping(self.data.get("metadata"))
        for key in ("name", "generateName"):
            value = metadata.get(key)
            if isinstance(value, str) and value.strip("-"):
                return value.strip("-")
        return self.kind.lower()

    def report(self, origin: Origin, problem: str | Unrendered) -> None:
        self.sink.problem(origin, problem)

    def get(self, path: Path) -> Any:
        return lookup(self.data, path)

    def count(self, path: Path, what: str, minimum: int = 0) -> StatedValue | None:
        """A whole number written at ``path`` (None when absent or wrong, which is reported)."""
        value = self.get(path)
        if value is None:
            return None
        number = whole(value, what, path, self.report, minimum)
        return None if number is None else StatedValue.at(number, path, what)

    def hours(self, path: Path, what: str) -> StatedValue | None:
        """A duration in seconds at ``path`` as hours (``activeDeadlineSeconds``)."""
        found = self.count(path, what, minimum=1)
        return (
            None
            if found is None
            else StatedValue(found.value / _SECONDS_PER_HOUR, found.origin, what)
        )

    def minutes(self, path: Path, what: str) -> StatedValue | None:
        """A duration in seconds at ``path`` as whole minutes, rounded up."""
        found = self.count(path, what)
        if found is None:
            return None
        minutes = -(-int(found.value) // _SECONDS_PER_MINUTE)
        return StatedValue(minutes, found.origin, what)

    def flag(self, path: Path) -> bool | None:
        value = self.get(path)
        if value is None or isinstance(value, bool):
            return value
        self.report(Origin(path), f"{format_path(path)}: {value!r} must be true or false")
        return None
