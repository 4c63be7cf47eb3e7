"""What every fact is: a frozen record with every key present.

A fact provider returns one of these per workload. Keys are camelCase like the manifest; a key
that does not apply is null, never absent, so the shape of a fact never depends on status or
mode and rule authors can read any documented path (``schemas/facts.schema.json``). Facts give
numbers, flags and names, and the file's own words (``facts.names``, evidence quoted from it);
the rules word them, choices included, in their ``variables:``. A list of names a message shows
("a, b and 3 more") is a fact too: CEL cannot join a list.

Facts are records, not pydantic models (issue 31): a one-file run defines about forty fact
classes and makes some twenty kinds, which as models cost 5% of its instructions in class
creation and validator builds. gpulint's own code makes every fact, so there is nothing to
validate, but a fact converts its values as the lax pydantic model did for the values our code
passes (:func:`_coercion`: an ``int`` given to a ``float`` field is a float, a tuple given to a
list is a list) and refuses what the model refused (a value outside a ``Literal``, a fraction
for an ``int``); it does not take the strings pydantic would parse (``"1"`` for a bool). And
``schemas/facts.schema.json`` is still pydantic's, generated from twins of these classes
(:mod:`linter.facts.entry`).
"""

import dataclasses
import functools
import sys
import types
import typing
from collections.abc import Callable
from enum import Enum
from typing import Any, Generic, Literal, TypeVar, Union

from linter.declared import camel_case, resolved_annotations
from linter.records import datarecord
from linter.wording import MAX_LISTED, plural

if sys.version_info >= (3, 11):
    from typing import dataclass_transform
else:  # pragma: no cover - Python 3.10
    from typing_extensions import dataclass_transform


def described(description: str) -> Any:
    """A fact field (required, as every key of a fact is) and what it means, which
    ``schemas/facts.schema.json`` publishes."""
    return dataclasses.field(metadata={"description": description})


@dataclass_transform(kw_only_default=True, frozen_default=True, field_specifiers=(described,))
class Fact:
    """A fact: every subclass is a keyword-only frozen record (:func:`linter.records.datarecord`)
    whose fields are its keys."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        datarecord(kw_only=True)(cls)

    @staticmethod
    def key_of(name: str) -> str:
        """The key of a field in the fact's data (``as_data``): camelCase."""
        return camel_case(name)

    def __post_init__(self) -> None:
        values = self.__dict__
        # The plan looked up inline and a value of a class the field takes as it is left
        # without a call: a run makes some thirty facts per workload (issue 31).
        plan = _PLANS.get(self.__class__) or _plan(self.__class__)
        for name, kept, coerce in plan.coercions:
            value = values[name]
            if value.__class__ not in kept:
                values[name] = coerce(value)

    def as_data(self) -> dict[str, Any]:
        """Plain data as rules see it: camelCase keys, lists and dicts, nested facts as data
        (what ``model_dump(mode="json", by_alias=True)`` of the model made)."""
        values = self.__dict__
        plan = _PLANS.get(self.__class__) or _plan(self.__class__)
        return {
            key: _plain(values[name]) if nested else values[name] for name, key, nested in plan.keys
        }


@datarecord
class _Plan:
    """How a fact class coerces its fields and turns into data, worked out on its first use."""

    #: ``(field, kept, coercion)`` for each field whose value may need one, with the classes
    #: of the values it keeps as they are (a float for a float field, None for an optional one).
    coercions: tuple[tuple[str, frozenset[type], Callable[[Any], Any]], ...]
    #: ``(field, key, nested)`` for each field; nested: a list, dict or fact, made plain.
    keys: tuple[tuple[str, str, bool], ...]


_PLANS: dict[type, _Plan] = {}


def _plan(cls: type[Fact]) -> _Plan:
    plan = _PLANS.get(cls)
    if plan is None:
        hints = resolved_annotations(cls, Fact)
        fields = dataclasses.fields(cls)  # type: ignore[arg-type]
        coercions = ((f.name, hints[f.name], _coercion(hints[f.name])) for f in fields)
        plan = _Plan(
            coercions=tuple((name, _kept(hint), c) for name, hint, c in coercions if c is not None),
            keys=tuple((f.name, cls.key_of(f.name), _nested(hints[f.name])) for f in fields),
        )
        _PLANS[cls] = plan
    return plan


def _float(value: Any) -> Any:
    return value if value.__class__ is float else float(value)


def _int(value: Any) -> Any:
    if value.__class__ is int:
        return value
    if isinstance(value, float) and not value.is_integer():
        raise ValueError(f"{value!r} is not a whole number")
    return int(value)


def _bool(value: Any) -> Any:
    if value.__class__ is bool:
        return value
    if value in (0, 1):
        return bool(value)
    raise ValueError(f"{value!r} is not a boolean")


def _str(value: Any) -> Any:
    if value.__class__ is str:
        return value
    if isinstance(value, Enum):
        return _str(value.value)
    if isinstance(value, str):
        return str.__str__(value)
    raise TypeError(f"{value!r} is not a string")


def _one_of(allowed: frozenset[Any], value: Any) -> Any:
    if value not in allowed:
        raise ValueError(f"{value!r} is not one of {sorted(allowed)}")
    return value


_SCALARS: dict[Any, Callable[[Any], Any]] = {float: _float, int: _int, bool: _bool, str: _str}


def _coercion(annotation: Any) -> Callable[[Any], Any] | None:
    """What a lax pydantic model does to a value for a field of this type (None: nothing)."""
    if annotation in _SCALARS:
        return _SCALARS[annotation]
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Literal:
        return functools.partial(_one_of, frozenset(args))
    if annotation is Any:
        return None
    if origin in (Union, types.UnionType):
        inner = [arg for arg in args if arg is not type(None)]
        if len(inner) != 1:
            raise TypeError(f"a fact field cannot be {annotation!r}")
        coerce = _coercion(inner[0])
        return None if coerce is None else lambda value: None if value is None else coerce(value)
    if origin is list:
        item = _coercion(args[0])
        return list if item is None else lambda value: [item(x) for x in value]
    if origin is dict:
        entry = _coercion(args[1])
        return (
            dict if entry is None else lambda value: {_str(k): entry(x) for k, x in value.items()}
        )
    if isinstance(annotation, type) and issubclass(annotation, Fact):
        return None
    raise TypeError(f"a fact field cannot be {annotation!r}")


def _kept(annotation: Any) -> frozenset[type]:
    """The classes of the values a field's coercion returns as they are: the scalar's own, and
    None's where the field is optional (a Literal, list or dict field's values are always
    checked or copied)."""
    if annotation in _SCALARS:
        return frozenset({annotation})
    if typing.get_origin(annotation) in (Union, types.UnionType):
        kept = [_kept(arg) for arg in typing.get_args(annotation) if arg is not type(None)]
        return frozenset({type(None)}).union(*kept)
    return frozenset()


def _nested(annotation: Any) -> bool:
    """Whether a field's value is a list, a dict or a fact, which data holds as plain copies."""
    if typing.get_origin(annotation) in (Union, types.UnionType):
        return any(_nested(arg) for arg in typing.get_args(annotation))
    if typing.get_origin(annotation) in (list, dict):
        return True
    return isinstance(annotation, type) and issubclass(annotation, Fact)


#: The classes of values that are plain data as they are: most items of a fact's lists.
_PLAIN = frozenset({*_SCALARS, type(None)})


def _plain(value: Any) -> Any:
    if value.__class__ in _PLAIN:
        return value
    if isinstance(value, Fact):
        return value.as_data()
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


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


__all__ = ["Fact", "Tally", "camel_case", "described", "duration", "percent", "plural"]


def duration(seconds: int) -> str:
    """``120`` -> ``2 minutes``, ``30`` -> ``30 seconds``."""
    if seconds % 60 == 0:
        return plural(seconds // 60, "minute")
    return plural(seconds, "second")


def percent(fraction: float | None) -> float | None:
    """A fraction as a percentage with one decimal (0.123456 -> 12.3)."""
    return None if fraction is None else round(fraction * 100, 1)
