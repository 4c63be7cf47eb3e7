"""Kubernetes lists: a document that wraps objects is read as the objects it wraps.

``kubectl get -o yaml`` writes ``kind: List`` with the objects under ``items:``, and the API
returns typed lists (``DeploymentList``) whose items leave out their ``apiVersion`` and ``kind``.
Read as one document, such a wrapper is of no kind any format knows, so every workload inside
it went unlinted. Each item becomes a document of its own, with its positions in the file (its
source map is the wrapper's below ``items[N]``); an item of a typed list takes the list's
``apiVersion`` and its kind without ``List`` when it does not say them itself; a list inside a
list is opened too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from linter.load.composer import Document
from linter.load.positions import SourceMap

_SUFFIX = "List"


def expand_lists(documents: Iterable[Document]) -> list[Document]:
    """``documents`` with every Kubernetes list replaced by its items, in file order, numbered
    anew (an item is a document of the file: its index is its place among them)."""
    out: list[Document] = []
    for document in documents:
        if _items(document.data) is None:  # kept as it is: a reader's own kind of document too
            out.append(dataclasses.replace(document, index=len(out)))
            continue
        stack = [(document.data, document.source_map)]
        while stack:
            data, source_map = stack.pop()
            items = _items(data)
            if items is None:
                out.append(Document(len(out), data, source_map))
                continue
            maps = source_map.items("items")
            inherited = _inherited(data)
            stack.extend(
                (_with_kind(item, inherited), maps.get(index, SourceMap(source_map.document)))
                for index, item in reversed(list(enumerate(items)))
                if isinstance(item, Mapping)
            )
    return out


def _items(data: Any) -> list[Any] | None:
    """The items of a Kubernetes list (an ``apiVersion``, a kind ending in ``List`` and a
    sequence of ``items``), or None."""
    if not isinstance(data, Mapping):
        return None
    kind, items = data.get("kind"), data.get("items")
    if not (isinstance(kind, str) and kind.endswith(_SUFFIX) and isinstance(items, list)):
        return None
    return items if isinstance(data.get("apiVersion"), str) else None


def _inherited(data: Mapping[str, Any]) -> dict[str, Any]:
    """What an item of this list says by being in it: a typed list's apiVersion and kind."""
    kind = data["kind"]
    if kind == _SUFFIX:
        return {}
    return {"apiVersion": data["apiVersion"], "kind": kind[: -len(_SUFFIX)]}


def _with_kind(item: Mapping[str, Any], inherited: Mapping[str, Any]) -> Any:
    """The item, with the list's apiVersion and kind where it has none (a copy: an alias may
    make two items one object)."""
    if all(key in item for key in inherited):
        return item
    return {**inherited, **item}
