"""Records declared the way pydantic models are, that cost next to nothing to define.

A run defines every record class it imports (the manifest kinds', the catalogue's, the formats'
vocabulary tables', the rule files' and the configuration's: over a hundred), and builds
instances from packaged or cached data known to validate (linter/catalog/prevalidated.py) or
from data it has just validated. As pydantic models they cost
about 0.25 ms a class to create, and their base needs pydantic, a third of a one-file run's CPU
to import (issue 31, ``benchmarks/startup.py``). A :class:`Record` subclass is written as such
a model is: annotated fields, ``Field(...)`` with a default, the constraints, description and
alias pydantic's takes, ``Annotated`` metadata (:func:`Field`, :func:`StringConstraints`,
:class:`AfterValidator`, :class:`BeforeValidator`, :class:`WithJsonSchema`), ``PrivateAttr``
and ``model_post_init``,
``@model_validator(mode="after")`` and ``@field_validator(..., mode="after")``, imported from
here; a :class:`CamelRecord` is spelled in camelCase in files. Defining one stores that
declaration and nothing else.

The pydantic model a record class describes, its *twin* (the same name, module, docstring,
fields, constraints, validators and methods), is made from the declaration on first need by
:mod:`linter.declared.twins`, which imports pydantic: to validate data that
:mod:`linter.declared.checking` does not accept as valid itself (``Record(**data)``,
:meth:`Record.model_validate`; its errors are pydantic's), to write its JSON Schema, to dump
values other than plain data. Validation returns the record built from the data that validated
(:func:`linter.declared.building.built`), so what a caller holds is a record either way.

A record is immutable (its fields cannot be assigned; a private attribute, a name starting with
``_``, can), equal to another of its class with equal fields, hashed by its fields; it knows
which fields its data gave (``model_fields_set``), and ``model_copy(update=)``,
``model_construct()``, ``model_dump()`` of plain values and :func:`data_of` need no pydantic.
"""

from __future__ import annotations

import functools
import sys
import typing
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, TypeVar

_T = TypeVar("_T")
_R = TypeVar("_R", bound="Record")


def per_class(function: Callable[[type[Any]], _T]) -> Callable[[type[Any]], _T]:
    """``functools.cache`` for a function of a class (mypy takes no class for a cache's key)."""
    found: dict[type, _T] = {}

    @functools.wraps(function)
    def cached(cls: type[Any]) -> _T:
        if cls not in found:
            found[cls] = function(cls)
        return found[cls]

    return cached


def empty_list() -> list[Any]:
    """A new empty list: the ``default_factory`` of gpulint's list fields, in place of ``list``.

    pydantic reads the signature of every field's factory (to learn whether it takes the
    validated data), once when the model is defined and once when its validator is built; for
    ``list`` that means parsing its C text signature (~0.3 ms each), for this function nothing
    (issue 31: about 24 times in a one-file run)."""
    return []


def camel_case(name: str) -> str:
    """``cache_gib`` -> ``cacheGib``: how files and rules spell a field (a fact's key, a rule
    file's key)."""
    first, *rest = name.split("_")
    return first + "".join(part[:1].upper() + part[1:] for part in rest)


#: A ``Field`` or ``PrivateAttr`` given no default (the field is required).
UNSET: Any = type("Unset", (), {"__repr__": lambda self: "UNSET", "__slots__": ()})()


class FieldSpec:
    """What ``Field(...)`` declared: the default or its factory, and the options pydantic's
    ``Field`` takes besides (``min_length``, ``pattern``, ``description``, ``alias`` ...). As
    ``Annotated`` metadata it carries options only."""

    __slots__ = ("default", "default_factory", "options")

    def __init__(
        self, default: Any, default_factory: Callable[[], Any] | None, options: dict[str, Any]
    ) -> None:
        if default is Ellipsis:  # pydantic's spelling of "required"
            default = UNSET
        self.default = default
        self.default_factory = default_factory
        self.options = options

    @property
    def alias(self) -> str | None:
        alias = self.options.get("alias")
        return alias if isinstance(alias, str) else None


def Field(
    default: Any = UNSET, *, default_factory: Callable[[], Any] | None = None, **options: Any
) -> Any:
    """A field's default (or factory) and options, as pydantic's ``Field`` takes them."""
    return FieldSpec(default, default_factory, options)


class StringSpec:
    """``StringConstraints(...)`` metadata: the options pydantic's takes."""

    __slots__ = ("options",)

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options


def StringConstraints(**options: Any) -> Any:
    return StringSpec(options)


class AfterValidator:
    """``Annotated`` metadata: a function the value is passed through once it validated (it
    checks; a record built from valid data does not run it again)."""

    __slots__ = ("function",)

    def __init__(self, function: Callable[[Any], Any]) -> None:
        self.function = function


class BeforeValidator:
    """``Annotated`` metadata: a function the value is passed through before it is validated (it
    reads the value as written into the type the field holds: ``70B`` into a number). A record
    built from valid data runs it too, so both ways hold what it returned."""

    __slots__ = ("function",)

    def __init__(self, function: Callable[[Any], Any]) -> None:
        self.function = function


class WithJsonSchema:
    """``Annotated`` metadata: the JSON Schema the field's schema is replaced with (pydantic's
    ``WithJsonSchema``); it changes nothing that validates."""

    __slots__ = ("schema",)

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema


class PrivateSpec:
    """``PrivateAttr(...)``: a private attribute's initial value or its factory."""

    __slots__ = ("default", "default_factory")

    def __init__(self, default: Any, default_factory: Callable[[], Any] | None) -> None:
        self.default = default
        self.default_factory = default_factory

    def initial(self) -> Any:
        """The attribute's value as a record is built (UNSET: it is not set)."""
        return self.default_factory() if self.default_factory is not None else self.default


def PrivateAttr(default: Any = UNSET, *, default_factory: Callable[[], Any] | None = None) -> Any:
    return PrivateSpec(default, default_factory)


#: Where a record keeps the names of the fields its data gave (in its ``__dict__``, beside them).
GIVEN = "_record_given"

#: The attribute a model validator's function is marked with (its mode).
VALIDATOR_MARK = "__declared_validator__"


def model_validator(*, mode: str) -> Callable[[Callable[..., Any]], Any]:
    """Mark a method as a model validator of the twin. Only ``after`` validators are declared:
    they check a validated instance, so a record built from valid data needs not run them."""
    if mode != "after":
        raise TypeError(f"a record's model validators run after validation, not {mode!r}")

    def mark(function: Callable[..., Any]) -> Callable[..., Any]:
        setattr(function, VALIDATOR_MARK, mode)
        return function

    return mark


#: The attribute a field validator's class method is marked with (the fields it validates).
FIELD_VALIDATOR_MARK = "__declared_field_validator__"


def field_validator(*fields: str, mode: str = "after") -> Callable[[Any], Any]:
    """Mark a class method as an ``after`` validator of ``fields`` (the twin's): it is given a
    field's validated value and returns the field's value, the same or another (the catalogue's
    spelling of a GPU name). A record built from valid data runs it too, on the value
    validation would have given it, so both ways hold what the validator returned."""
    if mode != "after":
        raise TypeError(f"a record's field validators run after validation, not {mode!r}")

    def mark(method: Any) -> Any:
        if not isinstance(method, classmethod):
            raise TypeError(
                "a field validator is a classmethod (@field_validator over @classmethod)"
            )
        setattr(method, FIELD_VALIDATOR_MARK, fields)
        return method

    return mark


class Declared:
    """One field of a record class: its name, how data may spell it, and its declaration."""

    __slots__ = ("alias", "name", "owner", "spec")

    def __init__(self, name: str, owner: type, spec: Any, alias: str | None) -> None:
        self.name = name
        self.owner = owner  # the class that declared it (its annotation is in that module)
        self.spec = spec  # a FieldSpec, a plain default, or UNSET
        self.alias = alias

    @property
    def keys(self) -> tuple[str, ...]:
        """The keys data may give the field under: its alias first, as validation reads them."""
        return (self.alias, self.name) if self.alias and self.alias != self.name else (self.name,)


class Record:
    """Base of every declared record: immutable, no unknown keys, no coercion (the twin's
    configuration, :attr:`model_config`, says so to pydantic)."""

    model_config: ClassVar[dict[str, Any]] = {
        "defer_build": True,
        "frozen": True,
        "extra": "forbid",
        "strict": True,
    }

    def __init__(self, **data: Any) -> None:
        """Validate ``data`` (pydantic's ``ValidationError`` when it does not) and become the
        record it describes."""
        from linter.declared.checking import validate

        made = validate(type(self), data)
        object.__setattr__(self, "__dict__", made.__dict__)

    @classmethod
    def model_validate(cls: type[_R], data: Any) -> _R:
        """``data`` validated as the twin validates it, as a record of this class (pydantic's
        ``ValidationError``, a ``ValueError``, when it is not valid)."""
        from linter.declared.checking import validate

        made: _R = validate(cls, data)
        return made

    @classmethod
    def model_json_schema(cls, **options: Any) -> dict[str, Any]:
        from linter.declared.twins import twin

        return twin(cls).model_json_schema(**options)

    def model_dump(
        self,
        *,
        mode: str = "python",
        by_alias: bool = False,
        exclude_none: bool = False,
        exclude_unset: bool = False,
        **options: Any,
    ) -> Any:
        """What the twin's ``model_dump`` gives for these values (the same options): written
        here for plain values (what a manifest's record holds, dumped for every rule), by the
        twin for any other value or option."""
        if not options and mode in ("python", "json"):
            try:
                return _dumped(self, mode == "json", by_alias, exclude_none, exclude_unset)
            except _NotPlain:
                pass
        from linter.declared.twins import as_twin

        return as_twin(self).model_dump(
            mode=mode,
            by_alias=by_alias,
            exclude_none=exclude_none,
            exclude_unset=exclude_unset,
            **options,
        )

    @classmethod
    def model_construct(cls: type[_R], **values: Any) -> _R:
        """The record of ``values`` (by field name or alias), not validated: they must be what
        validation would give (the defaults, or values of the right types)."""
        from linter.declared.building import built

        made: _R = built(cls, values)
        return made

    def model_copy(self: _R, *, update: dict[str, Any] | None = None) -> _R:
        """A copy (a shallow one: values are shared), with the fields in ``update`` set to its
        values unvalidated and counted as given (as pydantic's ``model_copy`` does)."""
        values = dict(self.__dict__)
        if update:
            values.update(update)
            values[GIVEN] = values.get(GIVEN, frozenset()) | frozenset(update)
        copy = object.__new__(type(self))
        object.__setattr__(copy, "__dict__", values)
        return copy

    @property
    def model_fields_set(self) -> set[str]:
        """The fields the data gave (by name), not left to their defaults."""
        return set(self.__dict__.get(GIVEN, ()))

    def model_post_init(self, context: Any, /) -> None:
        """Run once a record is built (private attributes set): a subclass's own step."""

    def __setattr__(self, name: str, value: Any) -> None:
        if not name.startswith("_"):
            raise AttributeError(f"{type(self).__name__} is immutable: cannot set {name!r}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        names = field_names(type(self))
        mine, theirs = self.__dict__, other.__dict__
        return all(mine[name] == theirs[name] for name in names)

    def __hash__(self) -> int:
        values = self.__dict__
        return hash((type(self), *(values[name] for name in field_names(type(self)))))

    def __repr__(self) -> str:
        values = self.__dict__
        shown = ", ".join(f"{name}={values[name]!r}" for name in field_names(type(self)))
        return f"{type(self).__name__}({shown})"


class CamelRecord(Record):
    """A record of a file's (a rule file's): fields spelled in camelCase in the file (the
    snake_case name is accepted too), no coercion, no extra keys, immutable."""

    model_config: ClassVar[dict[str, Any]] = {
        **Record.model_config,
        "alias_generator": camel_case,
        "populate_by_name": True,
    }


def data_of(value: Any) -> Any:
    """A value as plain data: a record as its fields by name (records within as theirs), tuples
    and lists as lists, sets as sorted lists (their order would change with the interpreter's
    hash seed), mappings as dicts; what a key or digest of a record is made from."""
    if isinstance(value, Record):
        values = value.__dict__
        return {name: data_of(values[name]) for name in field_names(type(value))}
    if isinstance(value, (list, tuple)):
        return [data_of(item) for item in value]
    if isinstance(value, (set, frozenset)):
        return sorted(data_of(item) for item in value)
    if isinstance(value, dict):
        return {key: data_of(item) for key, item in value.items()}
    return value


class _NotPlain(Exception):
    """A value :func:`_dumped` leaves to the twin's serializer."""


_SCALARS = (str, int, float, bool, type(None))


def _dumped(value: Any, json: bool, by_alias: bool, exclude_none: bool, exclude_unset: bool) -> Any:
    """``model_dump`` of a value made of records, lists, string-keyed dicts and scalars."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if isinstance(value, Record):
        values = value.__dict__
        given = values.get(GIVEN, ()) if exclude_unset else None
        out: dict[str, Any] = {}
        for name, alias in _dump_keys(kind):
            item = values[name]
            if (given is not None and name not in given) or (exclude_none and item is None):
                continue
            out[alias if by_alias else name] = (
                item
                if type(item) in _SCALARS
                else _dumped(item, json, by_alias, exclude_none, exclude_unset)
            )
        return out
    if kind is list or (json and kind is tuple):
        return [_dumped(item, json, by_alias, exclude_none, exclude_unset) for item in value]
    if kind is dict and all(type(key) is str for key in value):
        return {
            key: _dumped(item, json, by_alias, exclude_none, exclude_unset)
            for key, item in value.items()
        }
    raise _NotPlain(kind)


@per_class
def _dump_keys(cls: type[Record]) -> tuple[tuple[str, str], ...]:
    """Each field's name and the key a dump by alias gives it."""
    return tuple((field.name, field.alias or field.name) for field in fields_of(cls))


@per_class
def fields_of(cls: type[Record]) -> tuple[Declared, ...]:
    """A record class's fields in pydantic's order: those of its bases first (a field declared
    again keeps its place and takes the new declaration), then its own, in declaration order;
    each with its alias (its own, else the class's ``alias_generator``'s)."""
    found: dict[str, Declared] = {}
    generate = cls.model_config.get("alias_generator")
    for owner, name in _declared_names(cls):
        if name.startswith("_"):
            continue
        spec = vars(owner).get(name, UNSET)
        alias = spec.alias if isinstance(spec, FieldSpec) else None
        if alias is None and generate is not None:
            alias = generate(name)
        found[name] = Declared(name, owner, spec, alias)
    return tuple(found.values())


@per_class
def hints_of(cls: type[Record]) -> dict[str, Any]:
    """A record class's resolved annotations, ``Annotated`` metadata kept: read once a class by
    everything that needs them (its builder, its checker, its twin)."""
    return resolved_annotations(cls, Record)


def resolved_annotations(cls: type, root: type) -> dict[str, Any]:
    """The annotations of ``cls`` and of its bases below ``root`` (``root``'s own too), as
    ``typing.get_type_hints(cls, include_extras=True)`` gives those of such classes.

    Each class's own annotations are taken as written, and a string (``from __future__ import
    annotations``) evaluated in its module; ``get_type_hints`` walks every annotation again and
    compiles every string into a ``ForwardRef`` first, 4% of a one-file run (issue 31). A class
    whose annotations hold what that walk would still resolve (a quoted name inside, ``None``)
    is left to ``get_type_hints``."""
    hints: dict[str, Any] = {}
    for owner in reversed(cls.__mro__):
        if not (isinstance(owner, type) and issubclass(owner, root)):
            continue
        namespace = sys.modules[owner.__module__].__dict__
        for name, annotation in own_annotations(owner).items():
            if isinstance(annotation, str):
                # our own source's annotation, as typing would evaluate it
                annotation = eval(annotation, namespace, dict(vars(owner)))
            if not _resolved(annotation):
                return typing.get_type_hints(cls, include_extras=True)
            hints[name] = annotation
    return hints


def _resolved(annotation: Any) -> bool:
    """Whether an evaluated annotation needs nothing more from ``get_type_hints``."""
    if annotation is None or isinstance(annotation, (str, typing.ForwardRef)):
        return False
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:  # its arguments are values
        return True
    arguments = typing.get_args(annotation)
    if origin is typing.Annotated:  # and the metadata after the type
        arguments = arguments[:1]
    return all(_resolved(argument) for argument in arguments)


@per_class
def field_names(cls: type[Record]) -> tuple[str, ...]:
    return tuple(field.name for field in fields_of(cls))


@per_class
def privates_of(cls: type[Record]) -> tuple[tuple[str, PrivateSpec], ...]:
    """A record class's private attributes (annotated names starting with ``_``), bases first."""
    found: dict[str, PrivateSpec] = {}
    for owner, name in _declared_names(cls):
        if name.startswith("_"):
            value = vars(owner).get(name, None)
            found[name] = value if isinstance(value, PrivateSpec) else PrivateSpec(value, None)
    return tuple(found.items())


def _declared_names(cls: type[Record]) -> Iterator[tuple[type, str]]:
    """Each annotated name of ``cls`` and its record bases that is not a class variable (a field,
    or a private attribute if it starts with ``_``), with the class that wrote it: the bases'
    first, each class's in the order its body wrote them."""
    for owner in reversed(cls.__mro__):
        if isinstance(owner, type) and issubclass(owner, Record) and owner is not Record:
            for name, annotation in own_annotations(owner).items():
                if not _is_class_variable(annotation):
                    yield owner, name


def _is_class_variable(annotation: Any) -> bool:
    """Whether an annotation (a string, as ``from __future__ import annotations`` leaves it, or
    the object) declares a class variable, not a field."""
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar"))


def own_annotations(cls: type) -> dict[str, Any]:
    """The annotations a class body wrote, not its bases' (strings under ``from __future__ import
    annotations``). Read from the class's namespace: ``inspect.get_annotations`` would import
    ``inspect``, which a run does not otherwise need."""
    annotations: dict[str, Any] = vars(cls).get("__annotations__", {})
    return annotations
