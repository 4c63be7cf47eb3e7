"""Limits on what a rule expression may cost, checked when the rule is loaded.

A rule file is data that anyone with write access to a repository can add, and the CEL backend
has no evaluation budget of its own: comprehensions nested inside each other multiply (eight
nested ``map`` over ten elements are 10^8 steps). Such expressions are refused at load, with the
rule file's position, instead of stalling every lint run.
"""

from __future__ import annotations

import re

MAX_LENGTH = 4000
MAX_COMPREHENSION_DEPTH = 3
_MACRO = re.compile(r"\.\s*(all|exists|exists_one|map|filter|transformList|transformMap)\s*$")
_STRING = re.compile(
    r"""[rR]?(?:'''.*?'''|\"\"\".*?\"\"\"|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*")""", re.S
)


class BudgetError(ValueError):
    """An expression that could cost too much to evaluate."""


def check(source: str) -> None:
    """Raise BudgetError when ``source`` is too long or nests comprehensions too deeply."""
    if len(source) > MAX_LENGTH:
        raise BudgetError(f"expression longer than {MAX_LENGTH} characters")
    code = _STRING.sub(lambda m: " " * len(m.group(0)), source)  # strings cannot nest anything
    stack: list[bool] = []
    depth = 0
    for index, char in enumerate(code):
        if char == "(":
            macro = bool(_MACRO.search(code, 0, index))
            stack.append(macro)
            depth += macro
            if depth > MAX_COMPREHENSION_DEPTH:
                raise BudgetError(
                    f"comprehensions (map, filter, exists, all) nested more than "
                    f"{MAX_COMPREHENSION_DEPTH} deep"
                )
        elif char == ")" and stack:
            depth -= stack.pop()
