"""The input formats gpulint reads: one explicit registry, in recognition order.

Recognition is decided on parsed data, never on bytes. The byte test below only spares a
repository's other YAML and JSON the cost of parsing, and it is sound: a key or string value
equal to a marker can only be written without the marker's bytes through an escape sequence
(YAML double-quoted ``\\x2E``, JSON ``\\u0065``, an escaped line break), and every escape
contains a backslash; other encodings (UTF-16/32) are decoded before the test. So a document
that parses as one of ours is always parsed.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator, Mapping, Sequence
from types import ModuleType
from typing import Any, cast, overload

from linter.formats import markers, native
from linter.formats.base import Adapted, Format, InputFile
from linter.load import Syntax


def _lazy(name: str) -> ModuleType:
    """The format module ``linter.formats.<name>``, executed when first used: importing every
    adapter (their models, catalogues and engine tables) costs more than a whole run over a few
    gpulint manifests, which never reach them. Its markers are in ``markers``; the packages above
    it import nothing."""
    full = f"{__name__}.{name}"
    loaded = sys.modules.get(full)
    if loaded is not None:
        return loaded
    spec = importlib.util.find_spec(full)
    assert spec is not None and spec.loader is not None
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[full] = module
    spec.loader.exec_module(module)
    return module


#: After gpulint's own, in recognition order, with their markers (by name in
#: ``linter.formats.markers``) and the syntax of their files. Terraform's and Slurm's documents
#: come only from their own parsers (and have a shape no YAML format takes), so they are tried
#: first: YAML documents never import them past recognition.
_LAZY: tuple[tuple[str, str, Syntax], ...] = (
    ("terraform", "TERRAFORM", "hcl"),
    ("slurm", "SLURM", "shell"),
    ("kubernetes.capacity", "KUBERNETES_CAPACITY", "yaml"),
    ("kubernetes.autoscalers", "KUBERNETES_AUTOSCALERS", "yaml"),
    ("kubernetes.production_stack", "PRODUCTION_STACK", "yaml"),
    ("kubernetes.objects", "KUBERNETES", "yaml"),
    ("dstack", "DSTACK", "yaml"),
    ("skypilot", "SKYPILOT", "yaml"),
)

FORMATS: tuple[Format, ...] = (
    native,
    *(cast(Format, _lazy(name)) for name, _, _ in _LAZY),
)


class _Markers(Sequence[bytes]):
    """Markers in registry order, each format's read when iteration reaches it: the byte test
    stops at the first marker found, so a gpulint or Kubernetes manifest is tested without
    reading the data files dstack's and SkyPilot's markers come from (issue 31)."""

    def __init__(self, own: tuple[bytes, ...], names: tuple[str, ...]) -> None:
        self._own = own
        self._names = names  # attributes of linter.formats.markers

    def __iter__(self) -> Iterator[bytes]:
        yield from self._own
        for name in self._names:
            yield from getattr(markers, name)

    def _all(self) -> tuple[bytes, ...]:
        return tuple(iter(self))  # not tuple(self): that asks __len__ for a size

    def __len__(self) -> int:
        return len(self._all())

    @overload
    def __getitem__(self, index: int) -> bytes: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[bytes, ...]: ...

    def __getitem__(self, index: int | slice) -> bytes | tuple[bytes, ...]:
        return self._all()[index]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and self._all() == tuple(iter(other))

    __hash__ = None  # type: ignore[assignment]


MARKERS: Sequence[bytes] = _Markers(
    native.markers, tuple(found for _, found, syntax in _LAZY if syntax == "yaml")
)
"""Every YAML and JSON format's markers: a file whose text holds none of them, and no backslash,
is not parsed (``linter.load.read``; see the module docstring for why that is sound)."""


def markers_for(syntax: Syntax) -> Sequence[bytes]:
    """The markers a file of ``syntax`` is tested against before it is parsed: for HCL, the
    Terraform resource types read (``linter.load.load_source``)."""
    if syntax in ("yaml", "json"):
        return MARKERS
    return tuple(
        marker for _, found, own in _LAZY if own == syntax for marker in getattr(markers, found)
    )


def claimed(text: str) -> bool:
    """Does any format claim a file with this text that fails to parse?"""
    return any(candidate.claims(text) for candidate in FORMATS)


def recognise(data: Any, source: InputFile) -> Format | None:
    """The format a parsed document belongs to, or None (not ours: skipped silently)."""
    if not isinstance(data, Mapping):
        return None
    for candidate in FORMATS:
        if candidate.recognises(data, source):
            return candidate
    return None


__all__ = [
    "FORMATS",
    "MARKERS",
    "Adapted",
    "Format",
    "InputFile",
    "claimed",
    "markers_for",
    "recognise",
]
