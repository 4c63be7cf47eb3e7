"""Records: dataclasses that cost little to define, because every start-up defines them all.

A frozen dataclass has six methods written as source and compiled when its class is defined
(``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``): about
0.5 ms a class, and a one-file run defines a hundred of gpulint's, a seventh of its start-up
(issue 31). A record has only its ``__init__`` compiled; equality, hashing and ``repr`` are
functions shared by every record that read its fields as the dataclass's own would (the same
fields, the same tuples, so the same results and hash values), and immutability is checked
where it costs nothing: ``datarecord`` is frozen by default to the type checker (mypy rejects an
assignment to a field, as it does for a frozen dataclass), while at run time an instance is an
ordinary one and setting its fields is not refused.

``dataclasses.fields``, ``replace`` and ``asdict`` work on records as on any dataclass; ask
:func:`is_frozen`, not ``__dataclass_params__``, whether one is frozen. A record without a
docstring keeps none (a dataclass is given its signature as one, which costs a third of a
millisecond to work out).
"""

from __future__ import annotations

import dataclasses
import reprlib
import sys
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, overload

if sys.version_info >= (3, 11):
    from typing import dataclass_transform
else:  # pragma: no cover - Python 3.10
    from typing_extensions import dataclass_transform

_T = TypeVar("_T")

#: Stands in for a missing docstring while ``dataclass`` runs, which would write one.
_UNDOCUMENTED = "undocumented"


@overload
def datarecord(cls: type[_T], /) -> type[_T]: ...


@overload
def datarecord(
    *, frozen: bool = True, eq: bool = True, slots: bool = False, kw_only: bool = False
) -> Callable[[type[_T]], type[_T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def datarecord(
    cls: type[_T] | None = None,
    /,
    *,
    frozen: bool = True,
    eq: bool = True,
    slots: bool = False,
    kw_only: bool = False,
) -> type[_T] | Callable[[type[_T]], type[_T]]:
    """``@dataclass(frozen=..., eq=..., slots=..., kw_only=...)``, defined for less (above)."""

    def wrap(cls: type[_T]) -> type[_T]:
        undocumented = cls.__dict__.get("__doc__") is None
        if undocumented:  # not the docstring dataclasses would write: inspect.signature's 0.3 ms
            cls.__doc__ = _UNDOCUMENTED
        made: type[_T] = dataclasses.dataclass(
            cls, repr=False, eq=False, slots=slots, kw_only=kw_only
        )
        if undocumented:
            made.__doc__ = None
        _share_methods(made, frozen, eq)
        made._record_frozen = frozen  # type: ignore[attr-defined]
        return made

    return wrap if cls is None else wrap(cls)


def is_frozen(cls: type) -> bool:
    """Whether ``cls`` declares its instances immutable: a frozen record, or a frozen dataclass
    (a record's ``__dataclass_params__`` says not frozen, as it is not enforced at run time)."""
    record_frozen = getattr(cls, "_record_frozen", None)
    if record_frozen is not None:
        return bool(record_frozen)
    params = getattr(cls, "__dataclass_params__", None)
    return bool(params is not None and params.frozen)


def _share_methods(cls: type, frozen: bool, eq: bool) -> None:
    """Give ``cls`` the methods ``@dataclass`` would have compiled for it, where its body does
    not define them (dataclasses' rules, hashing's included)."""
    fields = dataclasses.fields(cls)
    own = cls.__dict__
    if "__repr__" not in own:
        cls._record_shown = tuple(field.name for field in fields if field.repr)  # type: ignore[attr-defined]
        cls.__repr__ = _repr  # type: ignore[assignment]
    if not eq:
        return
    if "__eq__" not in own:
        cls._record_compared = _getter([field.name for field in fields if field.compare])  # type: ignore[attr-defined]
        cls.__eq__ = _eq  # type: ignore[assignment]
    # A body that defines __eq__ but not __hash__ has __hash__ = None set by Python: not its own.
    explicit_hash = "__hash__" in own and not (own["__hash__"] is None and "__eq__" in own)
    if explicit_hash:
        return
    if frozen:
        hashed = [
            field.name for field in fields if (field.compare if field.hash is None else field.hash)
        ]
        cls._record_hashed = _getter(hashed)  # type: ignore[attr-defined]
        cls.__hash__ = _hash  # type: ignore[assignment]
    else:  # as a mutable dataclass with eq: unhashable
        cls.__hash__ = None  # type: ignore[assignment]


def _getter(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of these attributes of an object, always a tuple as the dataclass compares and
    hashes them (``(self.x,)``, never ``self.x``); a static method, as the class holds it."""
    if len(names) >= 2:
        return staticmethod(attrgetter(*names))
    if names:
        one = attrgetter(names[0])
        return staticmethod(lambda obj: (one(obj),))
    return staticmethod(lambda obj: ())


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        compared = self._record_compared
        return compared(self) == compared(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self._record_hashed(self))


@reprlib.recursive_repr()
def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._record_shown)
    return f"{self.__class__.__qualname__}({shown})"
