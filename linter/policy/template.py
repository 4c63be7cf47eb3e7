"""Message templates: ``"needs {facts.memory.requiredGiB:.1f} GiB"``.

Each ``{...}`` holds a CEL expression, optionally followed by a Python format spec after the last
colon. Expressions are compiled when the rule is loaded and evaluated only when a check fires.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from linter import cel
from linter.policy.flatten import compile_rule_expression

_FIELD = re.compile(r"\{\{|\}\}|\{([^{}]+)\}")
# Widths and precisions are bounded: a rule file is untrusted data, and "{x:>999999999}" would
# build a gigabyte string.
_FORMAT_SPEC = re.compile(r"[<>=^]?[+\- ]?#?0?\d{0,3}[,_]?(?:\.\d{1,2})?[bcdeEfFgGnosxX%]?")


@dataclass(frozen=True)
class Template:
    parts: tuple[str | tuple[Any, str], ...]  # literal text, or (compiled program, format spec)

    @property
    def programs(self) -> list[Any]:
        return [part[0] for part in self.parts if not isinstance(part, str)]

    def render(self, context: Any) -> str:
        out: list[str] = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            program, spec = part
            try:
                out.append(format_value(cel.evaluate(program, context), spec))
            except (cel.CelError, ValueError):
                out.append("?")
        return "".join(out)


def parse_template(text: str) -> Template:
    """Compile a template; raises cel.CelError naming the expression that does not compile."""
    parts: list[str | tuple[Any, str]] = []
    for part in _split(text):
        if isinstance(part, str):
            parts.append(part)
            continue
        field, expression, spec = part
        try:
            parts.append((compile_rule_expression(expression), spec))
        except cel.CelError as err:
            raise cel.CelError(f"in message placeholder {{{field}}}: {err}") from None
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
