"""Instances built from data known to validate, as strict validation would build them.

:func:`built` makes the record a declared class's twin would validate ``data`` into, without
validating: the same field values, converted as strict validation converts them (an integer for
a ``float`` field becomes a float; collections are new ones of the field's type), defaults filled
in, private attributes set and ``model_post_init`` run. :func:`converter` is that conversion for
one annotation, shared with the builder of pydantic models (linter/catalog/prevalidated.py),
which names how to build a nested class and which ``Annotated`` metadata it refuses.

A record is built from its data only where the data validated before: packaged data that the
tests validate, or data its twin has just validated (linter/declared/twins.py). Nothing here
checks anything.
"""

from __future__ import annotations

import copy
import functools
import types
import typing
from collections.abc import Callable
from typing import Annotated, Any, Literal, Union

from linter.declared import (
    FIELD_VALIDATOR_MARK,
    GIVEN,
    UNSET,
    AfterValidator,
    BeforeValidator,
    Declared,
    FieldSpec,
    Record,
    StringSpec,
    WithJsonSchema,
    fields_of,
    hints_of,
    per_class,
    privates_of,
)

Convert = Callable[[Any], Any]
#: The builder of a nested class (a record or a model), or None for any other annotation.
Nested = Callable[[Any], Convert | None]
#: Refuses ``Annotated`` metadata that would change the data it validates (raises TypeError).
CheckMetadata = Callable[[tuple[Any, ...]], None]

_set_attribute = object.__setattr__


def built(cls: type[Record], data: Any) -> Any:
    """The record of class ``cls`` that validating ``data`` gives; nothing is checked."""
    return _builder(cls)(data)


def record_builder(annotation: Any) -> Convert | None:
    """The builder of a record class; None for an annotation that is not one (:data:`Nested`).
    Looked up when a value is built: a record may hold one of its own class."""
    if isinstance(annotation, type) and issubclass(annotation, Record):
        return functools.partial(built, annotation)
    return None


_DECLARATIONS = (FieldSpec, StringSpec, AfterValidator, BeforeValidator, WithJsonSchema)


def only_declarations(metadata: tuple[Any, ...]) -> None:
    """A record's ``Annotated`` metadata is its declarations (linter/declared), which check data
    or, a before validator, read it as the builder does; anything else (pydantic's own
    validators) is refused."""
    for item in metadata:
        if not isinstance(item, _DECLARATIONS):
            raise TypeError(f"{item!r} is not a declaration (linter/declared): validate instead")


@per_class
def _builder(cls: type[Record]) -> Convert:
    hints = hints_of(cls)
    validators = field_validators(cls)
    plans: list[Plan] = [
        (
            field.keys,
            field.name,
            _validated_by(
                converter(hints[field.name], record_builder, only_declarations),
                validators.get(field.name, ()),
                cls,
            ),
            _default(cls, field),
        )
        for field in fields_of(cls)
    ]
    privates = privates_of(cls)
    post_init = cls.model_post_init is not Record.model_post_init
    fill = filler(plans)

    def build(data: Any) -> Any:
        values, given = fill(data)
        values[GIVEN] = frozenset(given)
        instance = cls.__new__(cls)
        _set_attribute(instance, "__dict__", values)
        for name, private in privates:
            initial = private.initial()
            if initial is not UNSET:
                values[name] = initial
        if post_init:
            instance.model_post_init(None)
        return instance

    return build


#: How a builder fills one field: the keys data may give it under, its name, the conversion
#: of a given value, and its default (a :class:`Constant`, or a function that makes it).
Plan = tuple[tuple[str, ...], str, Convert, Callable[[], Any]]
#: Fills a class's fields from valid data: their values, in field order, and the names given.
Fill = Callable[[Any], tuple[dict[str, Any], set[str]]]


class Constant:
    """A default that is one immutable value, the same for every instance: a builder starts
    from a copy of a dict that holds these, and calls the other defaults only for the fields
    the data leaves out."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __call__(self) -> Any:
        return self.value


def filler(plans: list[Plan]) -> Fill:
    """How every builder (a record's, a pydantic model's) fills its fields from data: each field's
    value (given, converted; else its default) and the names of those given. It walks the keys
    the data gives, not every field (a manifest's parts leave most out). Valid data gives a field
    under one key: pydantic refuses the name beside the alias as an unknown key."""
    by_key: dict[str, tuple[str, Convert | None]] = {}
    template: dict[str, Any] = {}
    made: list[tuple[str, Callable[[], Any]]] = []
    for keys, name, convert, default in plans:
        for key in keys:
            by_key[key] = (name, None if convert is _identity else convert)
        template[name] = default.value if isinstance(default, Constant) else None
        if not isinstance(default, Constant):
            made.append((name, default))

    def fill(data: Any) -> tuple[dict[str, Any], set[str]]:
        if not isinstance(data, dict):  # a damaged cache entry's, say: the caller rebuilds it
            raise TypeError(f"the data of a record is a mapping, not {type(data).__name__}")
        values = template.copy()
        given: set[str] = set()
        for key, value in data.items():
            found = by_key.get(key)
            if found is None:
                continue  # not a field's (valid data has no other key)
            name, convert = found
            given.add(name)
            values[name] = value if value is None or convert is None else convert(value)
        for name, default in made:
            if name not in given:
                values[name] = default()
        return values, given

    return fill


def field_validators(cls: type[Record]) -> dict[str, tuple[Any, ...]]:
    """Each field's ``after`` validators (class methods marked by ``field_validator``), in the
    order pydantic runs them: a base's before a subclass's, each class's in declaration order."""
    found: dict[str, list[Any]] = {}
    for owner in reversed(cls.__mro__):
        for value in vars(owner).values():
            for name in getattr(value, FIELD_VALIDATOR_MARK, ()):
                found.setdefault(name, []).append(value)
    return {name: tuple(methods) for name, methods in found.items()}


def _validated_by(convert: Convert, validators: tuple[Any, ...], cls: type[Record]) -> Convert:
    """The conversion, then the field's validators on its result (None is passed by before)."""
    if not validators:
        return convert
    functions = [validator.__func__ for validator in validators]

    def validate(value: Any) -> Any:
        value = convert(value)
        for function in functions:
            value = function(cls, value)
        return value

    return validate


def _default(cls: type[Record], field: Declared) -> Callable[[], Any]:
    """A field's value when the data does not give it, as validation fills it in: the factory's
    value, or a copy of a mutable default (pydantic copies those too)."""
    spec = field.spec
    default, factory = (
        (spec.default, spec.default_factory)
        if isinstance(spec, FieldSpec)
        else (
            spec,
            None,
        )
    )
    if isinstance(factory, type) and issubclass(factory, Record):  # Record(): built as {} is
        if privates_of(factory) or factory.model_post_init is not Record.model_post_init:
            return functools.partial(built, factory, {})
        return functools.partial(_empty, factory)
    if factory is not None:
        return factory
    if default is UNSET:

        def missing() -> Any:
            raise KeyError(f"{cls.__name__}: no {field.keys[0]}")

        return missing
    if isinstance(default, (list, dict, set)):
        return functools.partial(copy.deepcopy, default)
    return Constant(default)


@per_class
def _empty(cls: type[Record]) -> Any:
    """The record ``cls`` builds from no data, one for every record that leaves such a field to
    its default (a manifest's absent ``checkpointing: {}``): records are immutable, and one
    without private attributes or a step of its own after building holds nothing else."""
    return built(cls, {})


def _identity(value: Any) -> Any:
    return value


def converter(annotation: Any, nested: Nested, check: CheckMetadata) -> Convert:
    """How strict validation turns a valid value of this annotation into the field's value."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Annotated:
        check(args[1:])
        inner = converter(args[0], nested, check)
        befores = [item.function for item in args[1:] if isinstance(item, BeforeValidator)]
        return _read_first(reversed(befores), inner) if befores else inner
    builder = nested(annotation)
    if builder is not None:
        return builder
    if annotation is float:
        return _to_float
    if origin in (Union, types.UnionType):
        return _union(args, nested, check)
    if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
        raise TypeError(f"a tuple of fixed types, {annotation!r}: validate instead")
    if origin in (list, tuple, frozenset, set):
        element = converter(args[0], nested, check) if args else _identity
        return _collection(origin, element)
    if origin is dict:
        if args and converter(args[0], nested, check) is not _identity:
            raise TypeError(f"keys that validation converts, {annotation!r}: validate instead")
        return _mapping(converter(args[1], nested, check) if args else _identity)
    if annotation in (str, int, bool, Any) or origin is Literal:
        return _identity
    raise TypeError(f"no conversion for {annotation!r}: validate instead")


def _read_first(functions: Any, convert: Convert) -> Convert:
    """The conversion of what the before validators (the last written first) make of a value."""
    steps = list(functions)

    def read(value: Any) -> Any:
        for function in steps:
            value = function(value)
        return convert(value)

    return read


def _to_float(value: Any) -> Any:
    return float(value) if type(value) is int else value


def _collection(kind: type, element: Convert) -> Convert:
    if element is _identity:
        return kind
    return lambda values: kind(element(value) for value in values)


def _mapping(value_of: Convert) -> Convert:
    if value_of is _identity:
        return dict
    return lambda mapping: {key: value_of(value) for key, value in mapping.items()}


def _union(members: tuple[Any, ...], nested: Nested, check: CheckMetadata) -> Convert:
    """A union's value is converted as the member that strict validation picks for its Python
    type: the member of exactly that type (an integer stays one in ``int | float``), else the one
    member that accepts it; ``None`` never reaches here (a builder keeps it as it is)."""
    exact: dict[type, Convert] = {}
    accepting: dict[type, Convert] = {}
    for member in members:
        if member is type(None):
            continue
        convert = converter(member, nested, check)
        for accepted, is_exact in _accepted_types(member, nested):
            chosen = exact if is_exact else accepting
            if accepted in chosen:
                raise TypeError(f"union {members!r} is ambiguous for {accepted.__name__}")
            chosen[accepted] = convert
    by_type = {**accepting, **exact}
    if len(set(by_type.values())) == 1:
        return next(iter(by_type.values()))
    return lambda value: by_type[type(value)](value)


def _accepted_types(annotation: Any, nested: Nested) -> tuple[tuple[type, bool], ...]:
    """The Python types of parsed data that strict validation accepts for ``annotation``, each
    with whether it is the annotation's own type (an integer is accepted as a float, but is not
    one)."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Annotated:
        return _accepted_types(args[0], nested)
    if origin is Literal:
        return tuple((kind, True) for kind in {type(arg) for arg in args})
    if nested(annotation) is not None:
        return ((dict, True),)
    if origin in (list, tuple, frozenset, set, dict):
        return ((origin, True),)
    if annotation is float:
        return ((float, True), (int, False))
    if annotation in (str, int, bool):
        return ((annotation, True),)
    raise TypeError(f"no conversion for {annotation!r} in a union: validate instead")
