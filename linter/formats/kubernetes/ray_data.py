"""Ray Data LLM batch inference in a job's Python script: the engine processor it builds
(``vLLMEngineProcessorConfig(model_source=..., engine_kwargs=dict(...), accelerator_type=...)``,
``ray.data.llm``), read where its values are literal.

The script is never run: the call is found by its name and its text parsed with ``ast`` (a
script that does not parse, or a value that is computed, is simply not read). A value may be a
name the script binds at its top level to a literal or to an environment variable
(``MODEL_SOURCE = os.environ["MODEL_SOURCE"]``): the variable's name is returned, for the reader
to look up in the job's runtime environment.
"""

from __future__ import annotations

import ast
import re
from dataclasses import field
from typing import Any

from linter.records import datarecord

#: The processor configs of ray.data.llm and the engine each runs (Ray docs, "Working with LLMs":
#: vLLMEngineProcessorConfig runs vLLM with engine_kwargs as vLLM's engine arguments).
PROCESSORS = {"vLLMEngineProcessorConfig": "vllm"}
_CALL = re.compile(r"\b(" + "|".join(PROCESSORS) + r")\s*\(")
_ENV_READ = re.compile(
    r"""os\.environ(?:\[\s*|\.get\(\s*|\.setdefault\(\s*)["']([A-Za-z_][A-Za-z0-9_]*)["']"""
)


@datarecord
class Literal:
    """A value written in the script: the value, or the environment variable it is read from,
    and where it is (character offsets in the script)."""

    value: Any
    start: int
    end: int
    env: str | None = None  # the value is this environment variable's


@datarecord(frozen=False)
class ProcessorConfig:
    name: str  # vLLMEngineProcessorConfig
    engine: str
    start: int
    end: int
    arguments: dict[str, Literal] = field(default_factory=dict)
    engine_kwargs: dict[str, Literal] = field(default_factory=dict)


def processor_configs(script: str) -> list[ProcessorConfig]:
    """Every processor config the script builds, with its literal arguments."""
    out = []
    bindings: dict[str, Literal] | None = None
    for match in _CALL.finditer(script):
        end = _closing(script, match.end() - 1)
        if end is None:
            continue
        call = _parse_call(script[match.start() : end])
        if call is None:
            continue
        if bindings is None:
            bindings = _bindings(script)
        name = match.group(1)
        config = ProcessorConfig(name, PROCESSORS[name], match.start(), end)
        offsets = _Offsets(script[match.start() : end], match.start())
        for keyword in call.keywords:
            if keyword.arg is None:
                continue
            if keyword.arg == "engine_kwargs":
                config.engine_kwargs = _kwargs(keyword.value, offsets)
                continue
            found = _literal(keyword.value, offsets, bindings)
            if found is not None:
                config.arguments[keyword.arg] = found
        out.append(config)
    return out


class _Offsets:
    """Turns a parsed node's (line, column) in a piece of the script into an offset in the
    whole script."""

    def __init__(self, text: str, base: int) -> None:
        self.base = base
        self.starts = [0]
        for index, char in enumerate(text):
            if char == "\n":
                self.starts.append(index + 1)
        self.encoded = [line.encode() for line in text.split("\n")]

    def at(self, line: int, column: int) -> int:
        # ast columns count UTF-8 bytes
        characters = len(self.encoded[line - 1][:column].decode(errors="ignore"))
        return self.base + self.starts[line - 1] + characters

    def span(self, node: ast.expr) -> tuple[int, int]:
        start = self.at(node.lineno, node.col_offset)
        end_line, end_column = node.end_lineno, node.end_col_offset
        end = start + 1 if end_line is None or end_column is None else self.at(end_line, end_column)
        return start, max(end, start + 1)


def _closing(script: str, opening: int) -> int | None:
    """The offset just past the parenthesis that closes the one at ``opening`` (strings are not
    skipped: a call whose text does not then parse is not read)."""
    depth = 0
    for index in range(opening, len(script)):
        char = script[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return index + 1
    return None


def _parse_call(text: str) -> ast.Call | None:
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return tree.body if isinstance(tree.body, ast.Call) else None


def _kwargs(node: ast.expr, offsets: _Offsets) -> dict[str, Literal]:
    """``dict(max_model_len=8192, ...)`` or ``{"max_model_len": 8192, ...}``: the literal
    scalars (a nested mapping is not an engine flag's value)."""
    pairs: list[tuple[str, ast.expr]] = []
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        pairs = [(k.arg, k.value) for k in node.keywords if k.arg is not None]
    elif isinstance(node, ast.Dict):
        pairs = [
            (k.value, v)
            for k, v in zip(node.keys, node.values, strict=True)
            if isinstance(k, ast.Constant) and isinstance(k.value, str)
        ]
    out = {}
    for key, value in pairs:
        found = _literal(value, offsets, {})
        if found is not None:
            out[key] = found
    return out


def _literal(node: ast.expr, offsets: _Offsets, bindings: dict[str, Literal]) -> Literal | None:
    start, end = offsets.span(node)
    if isinstance(node, ast.Constant) and isinstance(node.value, str | int | float | bool):
        return Literal(node.value, start, end)
    if isinstance(node, ast.Name) and node.id in bindings:
        return bindings[node.id]
    env = _env_read(node)
    return None if env is None else Literal(None, start, end, env=env)


def _bindings(script: str) -> dict[str, Literal]:
    """Top-level ``NAME = literal`` and ``NAME = os.environ[...]`` of the script."""
    try:
        tree = ast.parse(script)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    offsets = _Offsets(script, 0)
    out: dict[str, Literal] = {}
    for statement in tree.body:
        if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
            continue
        target = statement.targets[0]
        if isinstance(target, ast.Name):
            found = _literal(statement.value, offsets, {})
            if found is not None:
                out[target.id] = found
    return out


def _env_read(node: ast.expr) -> str | None:
    """The variable of ``os.environ["X"]`` / ``os.environ.get("X", ...)`` (a default is not
    taken: the variable is what the job is given)."""
    text = ast.unparse(node) if isinstance(node, ast.Subscript | ast.Call) else ""
    match = _ENV_READ.match(text)
    return match.group(1) if match else None
