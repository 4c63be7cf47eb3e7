"""Typing single normalised fields: what one value set from outside a manifest must be.

Annotations (``gpulint.dev/region: eu-west-1``) and ``assume:`` blocks set one field at a time;
each value is checked against the type the Workload model gives that field, so a bad value is
reported where it was written, in the words of that place, before any workload is built.
"""

import functools
from typing import Any, get_args

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

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
def _adapter(path: Path) -> TypeAdapter[Any]:
    model: type[BaseModel] | None = Workload
    annotation: Any = None
    for part in path:
        if not isinstance(part, str) or model is None:
            raise KeyError(format_path(path))
        aliases = {field.alias or name: field for name, field in model.model_fields.items()}
        field = aliases[part]
        annotation = field.annotation
        model = next((arg for arg in (annotation, *get_args(annotation)) if _is_model(arg)), None)
    if _is_model(annotation):
        return TypeAdapter(annotation)
    return TypeAdapter(annotation, config=ConfigDict(strict=True))


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def exists(path: Path) -> bool:
    """Whether ``path`` names a field of the Workload model (a command line's
    ``launcher.processesPerNode`` does not)."""
    try:
        _adapter(path)
    except KeyError:
        return False
    return True


def is_list(path: Path) -> bool:
    """Whether the field at ``path`` holds a list (``residency: [EU, UK]``)."""
    annotation = _adapter(path).core_schema
    return annotation.get("type") == "list" or (
        annotation.get("type") == "nullable" and annotation["schema"].get("type") == "list"
    )


def check_value(path: Path, value: Any) -> Any:
    """``value`` validated for the field at ``path`` (a normalised Workload path); raises
    ValueProblem with pydantic's explanation."""
    try:
        return _adapter(path).validate_python(value)
    except ValidationError as err:
        first = err.errors()[0]
        raise ValueProblem(f"{first['msg']} (got {value!r})") from None


def plain(value: Any) -> Any:
    """A validated value as plain data (a nested model becomes its camelCase mapping)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value
