"""Message templates: ``"needs {facts.memory.requiredGiB:.1f} GiB"``.

Each ``{...}`` holds a CEL expression, optionally followed by a Python format spec after the last
colon. Expressions are compiled when the rule is checked (a rule restored from the start-up cache
compiles each when it is first evaluated) and evaluated only when a check fires. A
placeholder that is a plain path (``{facts.memory.requiredGiB}``, ``{item.quotas[0]}``) is
rendered by looking the value up, without running CEL, whenever the value is one CEL would give
back unchanged.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from linter.cel import backend as cel
from linter.cel.flat_names import MISSING
from linter.policy.rule_analysis import Analysis, Lookup
from linter.records import datarecord

#: The value of a variable as the expression being rendered would see it, or MISSING.
Read = Callable[[str], Any]
# CEL's integers: int64, and uint64 above it; a larger Python int comes back as a double.
_CEL_INTEGERS = range(-(2**63), 2**64)

_FIELD = re.compile(r"\{\{|\}\}|\{([^{}]+)\}")
# Widths and precisions are bounded: a rule file is untrusted data, and "{x:>999999999}" would
# build a gigabyte string.
_FORMAT_SPEC = re.compile(r"[<>=^]?[+\- ]?#?0?\d{0,3}[,_]?(?:\.\d{1,2})?[bcdeEfFgGnosxX%]?")


@datarecord
class Placeholder:
    program: Any  # the compiled expression
    spec: str  # the format spec, "" for none
    lookup: Lookup | None  # how to read it without CEL, for a plain path


#: A finding property's value.
Scalar = str | int | float | bool


@datarecord
class Template:
    parts: tuple[str | Placeholder, ...]  # literal text, or a placeholder

    @property
    def programs(self) -> list[Any]:
        return [part.program for part in self.parts if isinstance(part, Placeholder)]

    def render(self, context: Any, read: Read) -> str:
        """The text, with each placeholder's value: looked up through ``read`` for a plain
        path, else evaluated in ``context``; ``?`` where it has none."""
        out: list[str] = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            try:
                value = _looked_up(part.lookup, read) if part.lookup else MISSING
                if value is MISSING:
                    value = cel.evaluate(part.program, context)
                out.append(format_value(value, part.spec))
            except (cel.CelError, ValueError, TypeError):  # TypeError: a spec the value lacks
                out.append("?")
        return "".join(out)

    def value(self, context: Any, read: Read) -> Scalar:
        """What a finding's property holds: the value itself when the template is one plain
        placeholder that reads a number, a flag or a text (``{facts.unpinned.requiredGiB}``
        is 68.42, not "68.42"); otherwise the rendered text."""
        if len(self.parts) == 1 and isinstance(self.parts[0], Placeholder):
            part = self.parts[0]
            found = _looked_up(part.lookup, read) if part.lookup and not part.spec else MISSING
            if isinstance(found, bool | int | float | str):
                return found
        return self.render(context, read)


def _looked_up(lookup: Lookup, read: Read) -> Any:
    """The value at a plain path, when CEL would give back the same value; MISSING otherwise
    (the placeholder is then evaluated, and fails as CEL fails on a missing key)."""
    value = _at(lookup, read)
    return value if value is not MISSING and _as_in_cel(value) else MISSING


def looked_up_data(lookup: Lookup, read: Read) -> Any:
    """The data at a plain path (maps too: CEL gives back a map of plain values unchanged,
    but for the order of its keys, which data read by key does not see); MISSING where CEL
    must read it."""
    value = _at(lookup, read)
    return value if value is not MISSING and _data_as_in_cel(value) else MISSING


def _at(lookup: Lookup, read: Read) -> Any:
    name, keys = lookup
    value = read(name)
    for key in keys:
        value = _step(value, key)
        if value is MISSING:
            return MISSING
    return value


def _step(value: Any, key: str | int) -> Any:
    """``value[key]`` as CEL reads it (a map by string key, a list by index), or MISSING."""
    if isinstance(value, dict):
        return value.get(key, MISSING) if isinstance(key, str) else MISSING
    if isinstance(value, list) and isinstance(key, int) and 0 <= key < len(value):
        return value[key]
    return MISSING


def _as_in_cel(value: Any) -> bool:
    """Whether CEL gives ``value`` back as it is: scalars, integers in its range, and lists of
    them (a map is left to CEL: it renders as CEL gives it back)."""
    return _given_back(value, maps=False)


def _data_as_in_cel(value: Any) -> bool:
    """Whether CEL gives ``value`` back as it is but for the order of map keys: also maps keyed
    by strings."""
    return _given_back(value, maps=True)


_PLAIN_SCALARS = frozenset({str, bool, float, type(None)})


def _given_back(value: Any, maps: bool) -> bool:
    """Whether ``value`` is plain data of exact types that CEL gives back unchanged: integers in
    its range, lists, and (with ``maps``) maps keyed by strings. Walked without recursion: a
    run-wide fact's list of related entries can be long, and is read per finding."""
    pending = [value]
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind in _PLAIN_SCALARS:
            continue
        if kind is int:
            if item not in _CEL_INTEGERS:
                return False
        elif kind is list:
            pending.extend(item)
        elif maps and kind is dict and all(type(key) is str for key in item):
            pending.extend(item.values())
        else:
            return False
    return True


def parse_template(text: str, analysis: Analysis) -> Template:
    """Compile a template, its expressions as ``analysis`` has them; raises cel.CelError naming
    the expression that does not compile."""
    parts: list[str | Placeholder] = []
    for part in _split(text):
        if isinstance(part, str):
            parts.append(part)
            continue
        field, expression, spec = part
        try:
            program = analysis.compiled(expression)
        except cel.CelError as err:
            raise cel.CelError(f"in message placeholder {{{field}}}: {err}") from None
        parts.append(Placeholder(program, spec, analysis.lookup(expression)))
    return Template(tuple(part for part in parts if part != ""))


def placeholders(text: str) -> list[tuple[str, str]]:
    """The ``(expression, format spec)`` of each placeholder of a template."""
    return [(part[1], part[2]) for part in _split(text) if not isinstance(part, str)]


def placeholder_offsets(text: str) -> list[tuple[str, int]]:
    """Each placeholder's expression with the offset in ``text`` where the expression starts."""
    out = []
    for match in _FIELD.finditer(text):
        if match.group(1) is not None:
            expression = _split_spec(match.group(1))[0]
            start = match.start(1) + (len(match.group(1)) - len(match.group(1).lstrip()))
            out.append((expression, start))
    return out


def _split(text: str) -> list[str | tuple[str, str, str]]:
    """Literal text (``{{`` and ``}}`` unescaped) and placeholders as (field, expression, spec)."""
    parts: list[str | tuple[str, str, str]] = []
    last = 0
    for match in _FIELD.finditer(text):
        parts.append(text[last : match.start()])
        last = match.end()
        if match.group(1) is None:
            parts.append(match.group(0)[0])
        else:
            parts.append((match.group(1), *_split_spec(match.group(1))))
    parts.append(text[last:])
    return parts


def _split_spec(field: str) -> tuple[str, str]:
    expression, colon, spec = field.rpartition(":")
    if colon and spec and _FORMAT_SPEC.fullmatch(spec) and expression.strip():
        return expression.strip(), spec
    return field.strip(), ""


def format_value(value: Any, spec: str = "") -> str:
    """Render a CEL result for people: 2.0 -> 2, 0.12345 -> 0.12, lists joined (empty: none),
    null -> unset."""
    if spec:
        return format(value, spec)
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isfinite(value) and value == int(value):
            return str(int(value))
        return f"{value:.2f}".rstrip("0").rstrip(".")
    if isinstance(value, (list, tuple)):
        return ", ".join(format_value(item) for item in value) if value else "none"
    return str(value)
