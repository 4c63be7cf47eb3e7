"""Whether data validates, decided without pydantic wherever the answer is sure.

Every manifest a run reads is validated (linter/formats), and the twin that validates it needs
pydantic, a third of a one-file run's CPU to import (issue 31, ``benchmarks/startup.py``). Most
documents are valid, and deciding that a document is valid is simple in strict mode: each value
is of exactly its field's type, within its constraints, with no unknown key. :func:`validate`
asks :func:`accepts` first and builds the record (linter/declared/building.py) when it says yes;
on anything else it hands the data to the twin, which gives the record or pydantic's own errors.

So :func:`accepts` may say no where the twin would say yes (it only costs the import), but never
yes where the twin says no: every check here is at least as strict as pydantic's strict mode.
Where the two could differ it declines: a string that is not plain printable ASCII against a
pattern (pydantic matches with Rust's regex, whose ``$`` and ``\\s`` differ from Python's on line
ends and control characters), a float that is not finite, a key given under both its name and
its alias, an integer too large for a float field to hold exactly. A declaration it cannot
judge (an unknown constraint, a tuple of fixed types) makes its class always go to the twin.
A property test (tests/test_declared_checking.py) holds it to that against the twins.
"""

from __future__ import annotations

import math
import re
import types
import typing
from collections.abc import Callable
from typing import Annotated, Any, Literal, Union

from linter.declared import (
    UNSET,
    VALIDATOR_MARK,
    AfterValidator,
    BeforeValidator,
    FieldSpec,
    Record,
    StringSpec,
    WithJsonSchema,
    fields_of,
    hints_of,
    per_class,
)
from linter.declared.building import (
    built,
    converter,
    field_validators,
    only_declarations,
    record_builder,
)

Check = Callable[[Any], bool]


class Unsupported(TypeError):
    """A declaration the checker cannot judge: its class is always validated by the twin."""


def validate(record: type[Record], data: Any) -> Any:
    """``data`` as a record of ``record``; pydantic's ``ValidationError`` if it is not valid."""
    if accepts(record, data):
        return built(record, data)
    from linter.declared.twins import validated

    return validated(record, data)


def accepts(record: type[Record], data: Any) -> bool:
    """True only if the record's twin would validate ``data`` (False: ask the twin)."""
    return _record_check(record)(data)


def value_accepted(annotation: Any, value: Any) -> bool:
    """True only if strict validation accepts ``value`` for a field of ``annotation``."""
    try:
        check = _check(annotation, {})
    except Unsupported:
        return False
    return check(value)


def errors_of(error: ValueError) -> list[Any]:
    """The errors of a failed validation (pydantic's ``ValidationError``, a ``ValueError``), read
    where a caller catches one: pydantic is imported only once validation has failed."""
    from pydantic import ValidationError

    if not isinstance(error, ValidationError):
        raise error
    return error.errors()


def _never(value: Any) -> bool:
    return False


@per_class
def _record_check(record: type[Record]) -> Check:
    try:
        return _compiled(record)
    except Unsupported:
        return _never


def _compiled(record: type[Record]) -> Check:
    hints = hints_of(record)
    by_key: dict[str, tuple[str, Check]] = {}
    required: list[str] = []
    for field in fields_of(record):
        spec = field.spec
        options = spec.options if isinstance(spec, FieldSpec) else {}
        check_value = _check(hints[field.name], options)
        by_key.update((key, (field.name, check_value)) for key in field.keys)
        if (
            (spec.default is UNSET and spec.default_factory is None)
            if isinstance(spec, FieldSpec)
            else spec is UNSET
        ):
            required.append(field.name)
    validators = [value for value in _own_and_bases(record) if getattr(value, VALIDATOR_MARK, None)]
    builds = bool(validators) or bool(field_validators(record))

    def check(data: Any) -> bool:
        if type(data) is not dict:
            return False
        given: set[str] = set()
        for key, value in data.items():
            plan = by_key.get(key)  # None: an unknown key (or not a string)
            if plan is None or plan[0] in given or not plan[1](value):
                return False  # unknown, given twice (by name and alias), or not valid
            given.add(plan[0])
        if not given.issuperset(required):
            return False
        return not builds or _validators_pass(record, validators, data)

    return check


def _own_and_bases(record: type[Record]) -> list[Any]:
    return [value for owner in reversed(record.__mro__) for value in vars(owner).values()]


def _validators_pass(record: type[Record], validators: list[Any], data: Any) -> bool:
    """Whether the record's field and model validators accept the values (any exception: ask
    the twin, which reports it as pydantic does)."""
    try:
        instance = built(record, data)
        for validator in validators:
            validator(instance)
    except Exception:
        return False
    return True


#: ``Field`` options that do not change what validates.
_DESCRIPTIVE = frozenset({"description", "alias", "title", "examples", "json_schema_extra"})
#: Constraints by what they bound: numbers, lengths.
_BOUNDS = {
    "gt": lambda limit: lambda value: value > limit,
    "ge": lambda limit: lambda value: value >= limit,
    "lt": lambda limit: lambda value: value < limit,
    "le": lambda limit: lambda value: value <= limit,
}
_LENGTHS = {
    "min_length": lambda limit: lambda value: len(value) >= limit,
    "max_length": lambda limit: lambda value: len(value) <= limit,
}
#: The largest integer a float holds exactly.
_EXACT_IN_FLOAT = 2**53


def _check(annotation: Any, options: dict[str, Any]) -> Check:
    """The check of one annotation, with the constraints ``options`` give (a field's ``Field``
    options, or ``Annotated`` metadata's)."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Annotated:
        return _annotated(args[0], args[1:], options)
    if origin in (Union, types.UnionType):
        return _union(args, options)
    if isinstance(annotation, type) and issubclass(annotation, Record):
        _no_constraints(options, annotation)
        # looked up when a value is checked: a record may hold one of its own class
        return lambda value: _record_check(annotation)(value)
    if annotation is Any:
        _no_constraints(options, annotation)
        return lambda value: True
    if origin is Literal:
        _no_constraints(options, annotation)
        if not all(type(arg) is str for arg in args):
            raise Unsupported(f"{annotation!r}: literals other than strings")
        allowed = frozenset(args)
        return lambda value: type(value) is str and value in allowed
    if origin is list:
        item = _check(args[0], {}) if args else (lambda value: True)
        return _constrained(
            lambda value: type(value) is list and all(item(v) for v in value), options, _LENGTHS
        )
    if origin is dict:
        key = _check(args[0], {}) if args else (lambda value: True)
        item = _check(args[1], {}) if args else (lambda value: True)
        return _constrained(
            lambda value: type(value) is dict and all(key(k) and item(v) for k, v in value.items()),
            options,
            _LENGTHS,
        )
    if annotation is str:
        return _string(options)
    if annotation is bool:
        return _constrained(lambda value: type(value) is bool, options, {})
    if annotation is int:
        return _constrained(lambda value: type(value) is int, options, _BOUNDS)
    if annotation is float:
        return _constrained(_finite_float, options, _BOUNDS, {"allow_inf_nan"})
    raise Unsupported(f"no check for {annotation!r}")


def _annotated(inner: Any, metadata: tuple[Any, ...], options: dict[str, Any]) -> Check:
    """``Annotated`` metadata: before validators, the type with its constraints, then after
    validators (run on the value validation gives, as pydantic runs them)."""
    only_declarations(metadata)
    merged = dict(options)
    befores: list[Callable[[Any], Any]] = []
    afters: list[Callable[[Any], Any]] = []
    for item in metadata:
        if isinstance(item, (FieldSpec, StringSpec)):
            merged.update(item.options)
        elif isinstance(item, BeforeValidator):
            befores.insert(0, item.function)  # the last one written runs first
        elif isinstance(item, AfterValidator):
            afters.append(item.function)
        elif not isinstance(item, WithJsonSchema):
            raise Unsupported(f"{item!r}")
    base = _check(inner, merged)
    if not befores and not afters:
        return base
    convert = converter(inner, record_builder, only_declarations) if afters else None

    def check(value: Any) -> bool:
        try:
            for function in befores:
                value = function(value)
            if not base(value):
                return False
            if convert is not None:
                value = convert(value)
                for function in afters:
                    function(value)
        except Exception:
            return False
        return True

    return check


def _union(members: tuple[Any, ...], options: dict[str, Any]) -> Check:
    """A union accepts what one of its members accepts (smart mode tries each strictly); a
    field's constraints apply to an optional field's one other member."""
    others = [member for member in members if member is not type(None)]
    if _constraining(options) and len(others) != 1:
        raise Unsupported(f"constraints on a union of {others!r}")
    checks = [_check(member, options) for member in others]
    nullable = len(others) != len(members)
    if nullable and len(checks) == 1:  # an optional field: the common case, made cheap
        only = checks[0]
        return lambda value: value is None or only(value)

    def check(value: Any) -> bool:
        if value is None:
            return nullable
        return any(member(value) for member in checks)

    return check


def _string(options: dict[str, Any]) -> Check:
    pattern = options.get("pattern")
    base = _constrained(lambda value: type(value) is str, options, _LENGTHS, {"pattern"})
    if pattern is None:
        return base
    search = re.compile(pattern).search

    def check(value: Any) -> bool:
        # Rust's regex and Python's agree on plain printable ASCII; anything else, ask the twin
        return base(value) and value.isascii() and value.isprintable() and bool(search(value))

    return check


def _finite_float(value: Any) -> bool:
    kind = type(value)
    if kind is float:
        return math.isfinite(value)
    return kind is int and -_EXACT_IN_FLOAT <= value <= _EXACT_IN_FLOAT


def _constrained(
    base: Check,
    options: dict[str, Any],
    known: dict[str, Callable[[Any], Check]],
    also: frozenset[str] | set[str] = frozenset(),
) -> Check:
    """``base`` and each constraint ``options`` give (one of ``known``, or a name in ``also``
    the caller checks itself); any other constraint is not judged here."""
    bounds: list[Check] = []
    for name, limit in options.items():
        if name in known:
            bounds.append(known[name](limit))
        elif name not in _DESCRIPTIVE and name not in also:
            raise Unsupported(f"constraint {name}={limit!r}")
    if not bounds:
        return base
    if len(bounds) == 1:
        bound = bounds[0]
        return lambda value: base(value) and bound(value)
    low, high = bounds[0], bounds[1]
    rest = bounds[2:]
    return lambda value: (
        base(value) and low(value) and high(value) and all(bound(value) for bound in rest)
    )


def _constraining(options: dict[str, Any]) -> bool:
    return any(name not in _DESCRIPTIVE for name in options)


def _no_constraints(options: dict[str, Any], annotation: Any) -> None:
    if _constraining(options):
        raise Unsupported(f"constraints on {annotation!r}")
