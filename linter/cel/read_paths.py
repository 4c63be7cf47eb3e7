"""The document paths a CEL expression reads, and their check against JSON Schemas.

``facts.pool.conflicts.map(c, c.name)`` reads ``facts.pool.conflicts`` and
``facts.pool.conflicts[*].name``: a comprehension variable stands for an element of its range.
Checking each path against the schema of its root variable turns a typo in a rule file into an
error at load, with the position of the misspelt field, instead of a warning on every document.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from linter.cel.syntax import (
    Call,
    Comprehension,
    Has,
    Ident,
    Index,
    Literal,
    Node,
    Select,
    children,
    parse,
)
from linter.cel.value_paths import Path, Segment, Wildcard
from linter.records import datarecord


@datarecord
class PathUse:
    """A path read at ``[start, end)`` of the source; ``spans[i]`` is where ``path[i]`` is
    written (a variable bound to a path gives all of that path the variable's span)."""

    path: Path
    start: int
    end: int
    spans: tuple[tuple[int, int], ...]
    may_be_absent: bool = False  # the field tested by has()


@datarecord
class PathProblem:
    start: int
    end: int
    message: str


def format_path(path: Path) -> str:
    """``facts.pool.conflicts[*].name``; a map key that is not a name is quoted."""
    out = ""
    for segment in path:
        if isinstance(segment, Wildcard):
            out += "[*]"
        elif isinstance(segment, int):
            out += f"[{segment}]"
        elif segment.isidentifier():
            out += f".{segment}" if out else segment
        else:
            out += f"[{segment!r}]"
    return out


def chain(node: Node) -> tuple[Ident, list[tuple[Segment, int, int]]] | None:
    """The variable a member chain starts at and its segments with where each is written:
    selections, literal indexes (``m["key"]``, ``l[0]``) and computed ones (ANY)."""
    segments: list[tuple[Segment, int, int]] = []
    while True:
        if isinstance(node, Select):
            segments.append((node.field, node.end - len(node.field), node.end))
            node = node.operand
        elif isinstance(node, Index):
            segments.append((_index_segment(node.index), node.index.start, node.index.end))
            node = node.operand
        elif isinstance(node, Ident):
            segments.reverse()
            return node, segments
        else:
            return None


def _index_segment(index: Node) -> Segment:
    if isinstance(index, Literal):
        if index.kind == "string" and isinstance(index.value, str):
            return index.value
        if index.kind in ("int", "uint") and isinstance(index.value, int):
            return index.value
    return Wildcard.ANY


def paths(expression: str, bindings: Mapping[str, Path | None] | None = None) -> list[PathUse]:
    """Every path ``expression`` reads, in source order. ``bindings`` names variables that stand
    for a path (``item`` for an element of a rule's ``each``: ``(*each_path, Wildcard.EACH)``)
    or for a value whose paths are not checked (None)."""
    uses: list[PathUse] = []
    stack: list[tuple[Node, Mapping[str, Path | None]]] = [(parse(expression), bindings or {})]
    while stack:
        node, scope = stack.pop()
        target = node.select if isinstance(node, Has) else node
        if _read(target, scope, uses, may_be_absent=target is not node):
            stack.extend((index, scope) for index in _computed_indexes(target))
            continue
        if isinstance(node, Comprehension):
            stack.append((node.range, scope))
            element = _range_path(node.range, scope)
            inner = {**scope, node.variable: None if element is None else (*element, Wildcard.EACH)}
            stack.extend((arg, inner) for arg in node.args)
            continue
        stack.extend((child, scope) for child in children(node))
    return sorted(uses, key=lambda use: (use.start, use.end))


def element_of(expression: str, bindings: Mapping[str, Path | None] | None = None) -> Path | None:
    """What an element of the list ``expression`` stands for, when that list is a path (or a
    filter of one): the binding of a rule's ``item`` is ``element_of(rule.each)``."""
    found = _range_path(parse(expression), bindings or {})
    return None if found is None else (*found, Wildcard.EACH)


def _read(
    node: Node, scope: Mapping[str, Path | None], uses: list[PathUse], may_be_absent: bool = False
) -> bool:
    """Record the chain ending at ``node`` (False: not a chain from a variable). A variable
    bound to None is not checked; one bound to a path is recorded only with segments after it."""
    found = chain(node)
    if found is None:
        return False
    variable, segments = found
    span = (variable.start, variable.end)
    if variable.name in scope:
        bound = scope[variable.name]
        if bound is None or not segments:
            return True
        prefix, prefix_spans = bound, (span,) * len(bound)
    else:
        prefix, prefix_spans = (variable.name,), (span,)
    uses.append(
        PathUse(
            (*prefix, *(segment for segment, _, _ in segments)),
            node.start,
            node.end,
            (*prefix_spans, *((start, end) for _, start, end in segments)),
            may_be_absent,
        )
    )
    return True


def _computed_indexes(node: Node) -> Iterator[Node]:
    """The index expressions of a chain that are not literals: they are read too."""
    while isinstance(node, (Select, Index)):
        if isinstance(node, Index) and not isinstance(node.index, Literal):
            yield node.index
        node = node.operand


def _range_path(node: Node, scope: Mapping[str, Path | None]) -> Path | None:
    """The path a comprehension ranges over, when it is one: a chain, or a filter of one (whose
    elements are elements of the chain)."""
    if isinstance(node, Comprehension) and node.macro == "filter":
        return _range_path(node.range, scope)
    if isinstance(node, Call) and node.function == "dyn" and len(node.args) == 1:
        return _range_path(node.args[0], scope)
    found = chain(node)
    if found is None:
        return None
    variable, segments = found
    tail = tuple(segment for segment, _, _ in segments)
    if variable.name in scope:
        bound = scope[variable.name]
        return None if bound is None else (*bound, *tail)
    return (variable.name, *tail)


# -- checking paths against JSON Schemas ------------------------------------------------------

Schema = Mapping[str, Any] | bool
_SCALARS = {"string": "a string", "number": "a number", "integer": "an integer"}
_SCALARS |= {"boolean": "a boolean", "null": "null"}
_TYPED = ("type", "properties", "additionalProperties", "items", "prefixItems", "enum", "const")


def check_paths(
    uses: Sequence[PathUse], schemas: Mapping[str, Mapping[str, Any]]
) -> list[PathProblem]:
    """A problem for each use that no document valid against the schema of its root variable
    can have. Schemas are JSON Schema 2020-12 as pydantic writes them: ``$ref`` into the root's
    ``$defs``, ``anyOf``/``oneOf``/``allOf``, ``properties`` (an object with properties and no
    ``additionalProperties`` is taken as closed: pydantic lists every field), maps as
    ``additionalProperties``, ``items`` and ``prefixItems``; a schema without a type is anything."""
    problems: list[PathProblem] = []
    for use in uses:
        root = use.path[0]
        schema = schemas.get(root) if isinstance(root, str) else None
        if schema is None:
            start, end = use.spans[0]
            message = f"unknown variable {root!r}" + _suggest(str(root), list(schemas))
            problems.append(PathProblem(start, end, message))
            continue
        failure = _walk(schema, use.path)
        if failure is not None:
            position, message = failure
            start, end = use.spans[position]
            problems.append(PathProblem(start, end, message))
    return problems


def _walk(root: Mapping[str, Any], path: Path) -> tuple[int, str] | None:
    """The first segment no alternative of the schema has, with why."""
    current = _alternatives(root, root)
    for position in range(1, len(path)):
        if any(_is_anything(schema) for schema in current):
            return None
        segment = path[position]
        following: list[Schema] = []
        reasons: list[str] = []
        known: list[str] = []
        for schema in current:
            assert isinstance(schema, Mapping)
            step = _step(schema, segment, known)
            if isinstance(step, str):
                reasons.append(step)
            else:
                following += (alt for s in step for alt in _alternatives(s, root))
        if not following and reasons:
            shown = format_path(path[:position])
            return position, _failure(shown, segment, reasons, known)
        current = following
    return None


def _alternatives(schema: Schema, root: Mapping[str, Any]) -> list[Schema]:
    """``schema`` with references resolved and unions spread out; ``null`` alternatives are
    dropped (reading through a null is a runtime matter, as is a missing optional field)."""
    out: list[Schema] = []
    pending: list[Schema] = [schema]
    seen: set[str] = set()
    while pending:
        current = pending.pop()
        if isinstance(current, bool):
            if current:
                out.append(True)
            continue
        reference = current.get("$ref")
        if isinstance(reference, str):
            if reference not in seen:  # a recursive model refers to itself: once is enough
                seen.add(reference)
                pending.append(_dereference(root, reference))
            continue
        union = [s for key in ("anyOf", "oneOf", "allOf") for s in current.get(key, ())]
        if union:
            pending.extend(reversed(union))
        elif current.get("type") != "null":
            out.append(current)
    return out


def _dereference(root: Mapping[str, Any], reference: str) -> Schema:
    if not reference.startswith("#/"):
        return True  # outside this schema: not checked
    target: Any = root
    for part in reference[2:].split("/"):
        if not isinstance(target, Mapping) or part not in target:
            return True
        target = target[part]
    return target if isinstance(target, (Mapping, bool)) else True


def _is_anything(schema: Schema) -> bool:
    if isinstance(schema, bool):
        return schema
    return not any(key in schema for key in _TYPED)


def _kind(schema: Mapping[str, Any]) -> str:
    declared = schema.get("type")
    if isinstance(declared, str):
        return declared
    if isinstance(declared, list):  # ["string", "null"]
        for kind in ("object", "array", *declared):
            if kind in declared and kind != "null":
                return str(kind)
    if "properties" in schema or "additionalProperties" in schema:
        return "object"
    if "items" in schema or "prefixItems" in schema:
        return "array"
    return "scalar"  # enum or const without a type


def _step(schema: Mapping[str, Any], segment: Segment, known: list[str]) -> list[Schema] | str:
    """The schemas one segment further, or the reason there are none (``known`` collects the
    field names an object offers, for suggestions)."""
    kind = _kind(schema)
    if kind == "object":
        return _object_step(schema, segment, known)
    if kind == "array":
        return _array_step(schema, segment)
    return f"is {_SCALARS.get(kind, 'a scalar')}: it has no {_describe(segment)}"


def _object_step(
    schema: Mapping[str, Any], segment: Segment, known: list[str]
) -> list[Schema] | str:
    properties: Mapping[str, Schema] = schema.get("properties", {})
    extra: Schema | None = schema.get("additionalProperties")
    if "patternProperties" in schema:
        extra = True
    if extra is None:
        extra = not properties  # pydantic lists every field of a model: no others
    if isinstance(segment, Wildcard):
        if segment is Wildcard.EACH:
            return [{"type": "string"}]  # iterating a map yields its keys
        return [*properties.values(), *([extra] if extra is not False else [])]
    if isinstance(segment, int):
        return f"is an object: it has no {_describe(segment)}"
    if segment in properties:
        return [properties[segment]]
    if extra is not False:
        return [extra]
    known += properties
    return "has no field"


def _array_step(schema: Mapping[str, Any], segment: Segment) -> list[Schema] | str:
    prefix: Sequence[Schema] = schema.get("prefixItems", ())
    items: Schema = schema.get("items", not prefix)
    if isinstance(segment, str):
        return f"is a list: it has no {_describe(segment)}"
    if isinstance(segment, int):
        if 0 <= segment < len(prefix):
            return [prefix[segment]]
        return [items] if items is not False else f"has no {_describe(segment)}"
    return [*prefix, *([items] if items is not False else [])]


def _describe(segment: Segment) -> str:
    if isinstance(segment, Wildcard):
        return "items"
    return f"item [{segment}]" if isinstance(segment, int) else f"field {segment!r}"


def _failure(shown: str, segment: Segment, reasons: list[str], known: list[str]) -> str:
    if "has no field" in reasons and isinstance(segment, str):
        return f"{shown} has no field {segment!r}" + _suggest(segment, known)
    return f"{shown} {reasons[0]}"


def _suggest(name: str, known: list[str]) -> str:
    import difflib  # on the way to a message only: not every run pays for importing it

    close = difflib.get_close_matches(name, sorted(set(known)), n=3, cutoff=0.75)
    if not close:
        return ""
    quoted = [repr(candidate) for candidate in close]
    listed = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
    return f" (did you mean {listed}?)"
