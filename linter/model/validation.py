"""Turn pydantic validation errors into manifest paths and readable messages."""

from typing import Any

from linter.load.positions import Path, format_path


def error_path(error: Any, data: Any) -> Path:
    """The part of a pydantic error location that exists in the data.

    pydantic appends type tags to locations inside unions and validators (``function-before[...]``);
    those are not manifest keys, so the walk stops at the first part the data does not have, except
    that an unknown (extra) key is kept: it is the thing to point at.
    """
    path: list[Any] = []
    node = data
    for part in error.get("loc", ()):
        if isinstance(node, dict) and isinstance(part, str) and part in node:  # noqa: SIM114 (typed)
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            if error.get("type") == "extra_forbidden" and isinstance(node, dict):
                path.append(part)
            break
        path.append(part)
    return tuple(path)


def describe_error(error: Any, where: Path) -> str:
    """``spec.resources.nodes: Input should be a valid integer (got '2')``."""
    kind = error.get("type", "")
    field = format_path(where)
    if kind == "extra_forbidden":
        return f"{field}: unknown field"
    if kind == "missing":
        missing = error["loc"][len(where)] if len(error.get("loc", ())) > len(where) else field
        return f"{field}: required field {missing!r} is missing"
    message = error.get("msg", "invalid value")
    value = error.get("input")
    shown = "" if isinstance(value, (dict, list)) else f" (got {value!r})"
    return f"{field}: {message}{shown}"
