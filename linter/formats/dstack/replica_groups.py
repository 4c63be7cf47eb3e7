"""A dstack service's replica groups: ``replicas`` written as a list of groups.

dstack runs a service either as one kind of replica (``replicas: 2`` or ``1..4``) or as groups,
each with its own ``count``, ``commands``, ``resources`` and ``scaling`` (a router group, a
prefill group and a decode group for disaggregated serving). Each group is a workload of its
own, read like the whole service with what the group writes in place of the service's keys; its
positions are the group's lines.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.formats.builder import WorkloadBuilder
from linter.load.positions import Path
from linter.model.provenance import Origin

#: What a group writes as ``count`` the service writes as ``replicas``.
_COUNT = {"replicas": "count"}


def groups(data: Mapping[str, Any]) -> list[tuple[Path, Mapping[str, Any]]] | None:
    """The replica groups of a service (path and mapping), or None when ``replicas`` is not a
    list of mappings (a count or a range, read as the service's own replicas)."""
    written = data.get("replicas")
    if not isinstance(written, list) or not written:
        return None
    if not all(isinstance(group, Mapping) for group in written):
        return None
    return [(("replicas", index), group) for index, group in enumerate(written)]


def group_view(data: Mapping[str, Any], group: Mapping[str, Any]) -> dict[str, Any]:
    """The service as the group runs it: the group's keys in place of the service's."""
    view = {key: value for key, value in data.items() if key != "replicas"}
    view.update({key: value for key, value in group.items() if key != "count"})
    if "count" in group:
        view["replicas"] = group["count"]
    return view


class GroupBuilder(WorkloadBuilder):
    """The workload of one replica group: a key the group writes is found under the group
    (``resources`` at ``replicas[2].resources``), the service's own keys where they are."""

    def __init__(self, *args: Any, group: Path, written: Mapping[str, Any], **kwargs: Any) -> None:
        super().__init__(*args, object_path=group, **kwargs)
        self._moved = {key: (*group, key) for key in written if key != "count"}
        self._moved.update({key: (*group, own) for key, own in _COUNT.items() if own in written})

    def _in_group(self, path: Path) -> Path:
        if path and isinstance(path[0], str) and path[0] in self._moved:
            return (*self._moved[path[0]], *path[1:])
        return path

    def at(self, path: Path) -> Origin:
        return super().at(self._in_group(path))

    def at_word(self, item_path: Path, start: int, end: int) -> Origin:
        return super().at_word(self._in_group(item_path), start, end)
