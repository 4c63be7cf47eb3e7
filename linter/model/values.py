"""Typing single normalised fields: what one value set from outside a manifest must be.

Annotations (``gpulint.dev/region: eu-west-1``) and ``assume:`` blocks set one field at a time;
each value is checked against the type the Workload model gives that field, so a bad value is
reported where it was written, in the words of that place, before any workload is built.
"""

import functools
import typing
from typing import Any, get_args

from linter.declared import Record, fields_of, hints_of
from linter.declared.building import converter, only_declarations, record_builder
from linter.declared.checking import errors_of, value_accepted
from linter.load.positions import Path, format_path
from linter.model import Workload


class ValueProblem(ValueError):
    """A value the field does not accept; the message says why."""


#: The largest whole number read from a file (Kubernetes' int64 fields): a count or duration
#: beyond it is out of range, reported where it is written, before arithmetic on it overflows.
LARGEST_WHOLE = 2**63 - 1


def out_of_range(what: str) -> ValueProblem:
    """The problem with a number too large to read."""
    return ValueProblem(f"{what} is out of range (at most {LARGEST_WHOLE:,})")


@functools.cache
def _annotation(path: Path) -> Any:
    """The annotation of the Workload field at ``path`` (KeyError: there is no such field)."""
    record: type[Record] | None = Workload
    annotation: Any = None
    for part in path:
        if not isinstance(part, str) or record is None:
            raise KeyError(format_path(path))
        field = {f.alias or f.name: f for f in fields_of(record)}[part]
        annotation = hints_of(record)[field.name]
        record = next((a for a in (annotation, *get_args(annotation)) if _is_record(a)), None)
    return annotation


def _is_record(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, Record)


def exists(path: Path) -> bool:
    """Whether ``path`` names a field of the Workload model (a command line's
    ``launcher.processesPerNode`` does not)."""
    try:
        _annotation(path)
    except KeyError:
        return False
    return True


def is_list(path: Path) -> bool:
    """Whether the field at ``path`` holds a list (``residency: [EU, UK]``)."""
    annotation = _annotation(path)
    members = get_args(annotation) if _is_union(annotation) else (annotation,)
    return any(typing.get_origin(member) is list for member in members)


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (typing.Union, type(int | None))


def check_value(path: Path, value: Any) -> Any:
    """``value`` validated for the field at ``path`` (a normalised Workload path); raises
    ValueProblem with pydantic's explanation."""
    annotation = _annotation(path)
    if not value_accepted(annotation, value):
        _strictly_validated(annotation, value)
    if value is None:
        return None
    return _converter(path)(value)


@functools.cache
def _converter(path: Path) -> Any:
    return converter(_annotation(path), record_builder, only_declarations)


def _strictly_validated(annotation: Any, value: Any) -> None:
    """Validate ``value`` as the field's twin annotation, strictly (ValueProblem if it fails)."""
    from pydantic import TypeAdapter

    from linter.declared.twins import twin_type

    adapter: TypeAdapter[Any] = TypeAdapter(twin_type(annotation), config=_config(annotation))
    try:
        adapter.validate_python(value)
    except ValueError as err:
        first = errors_of(err)[0]
        raise ValueProblem(f"{first['msg']} (got {value!r})") from None


def _config(annotation: Any) -> Any:
    """Strict, except for a record (its twin's configuration says so; pydantic takes none)."""
    from pydantic import ConfigDict

    return None if _is_record(annotation) else ConfigDict(strict=True)


def plain(value: Any) -> Any:
    """A validated value as plain data (a nested record becomes its camelCase mapping)."""
    if isinstance(value, Record):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value
