"""Checks of a rule file's expressions when it is loaded, so that a policy that cannot work is
refused with its position instead of failing quietly on every document.

Every path an expression reads must exist in the JSON Schema of what it reads: the manifest kinds
in the rule's scope (``workload``, ``document``), ``facts`` (schemas/facts.schema.json),
``options`` (the rule's declared options) and ``item`` (an element of ``each``). A typo such as
``facts.memory.estimate.paramters`` is an error at its line and column, not a GL006 warning at
run time that lets the policy go unenforced.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Mapping
from typing import Any

from linter.bundled import bundled
from linter.cel.flat_names import kind_variable
from linter.cel.lexer import ExpressionError
from linter.cel.read_paths import PathProblem, check_paths, element_of, paths
from linter.policy.rule_file import RuleFile
from linter.policy.template import placeholder_offsets
from linter.records import datarecord

#: JSON types of rule option values, as OptionSpec names them.
_OPTION_SCHEMAS: dict[str, dict[str, Any]] = {
    "integer": {"type": "integer"},
    "number": {"type": "number"},
    "string": {"type": "string"},
    "boolean": {"type": "boolean"},
    "list": {"type": "array"},
}
_CLOSED: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}


@datarecord
class Expression:
    """One CEL expression of a rule file: where it is (a path in the rule file, and the offset of
    the expression inside that string) and whether it runs once per ``each`` element."""

    where: tuple[Any, ...]
    offset: int
    source: str
    per_item: bool


@datarecord
class RuleProblem:
    where: tuple[Any, ...]
    start: int  # offsets in the rule file's string at ``where``
    end: int
    message: str


def expressions(meta: RuleFile) -> Iterator[Expression]:
    """Every expression of a rule, with where it is written."""
    if meta.applies is not None:
        yield Expression(("applies",), 0, meta.applies, False)
    if meta.each is not None:
        yield Expression(("each",), 0, meta.each, False)
    for name, source in meta.variables.items():
        yield Expression(("variables", name), 0, source, True)
    for index, check in enumerate(meta.checks):
        where = ("checks", index)
        yield Expression((*where, "violation"), 0, check.violation, True)
        if check.related is not None:
            yield Expression((*where, "related"), 0, check.related, True)
        for field in ("path", "message", "fix"):
            text = getattr(check, field)
            for source, offset in placeholder_offsets(text) if text else ():
                yield Expression((*where, field), offset, source, True)


def check_rule(meta: RuleFile) -> list[RuleProblem]:
    """Paths the rule's expressions read that its schemas do not have, at their positions."""
    schemas = _schemas(tuple(meta.scope.kinds), tuple(sorted(meta.options.items(), key=str)))
    bindings: dict[str, Any] = {}
    if meta.each is not None:
        try:
            bindings["item"] = element_of(meta.each)
        except ExpressionError:
            bindings["item"] = None  # the syntax error is reported where `each` is compiled
    problems = []
    for expression in expressions(meta):
        try:
            uses = paths(expression.source, bindings if expression.per_item else {})
        except ExpressionError:
            continue  # reported with its position when the expression is compiled
        for problem in check_paths(uses, schemas):
            problems.append(_at(expression, problem))
    return problems


def _at(expression: Expression, problem: PathProblem) -> RuleProblem:
    start, end = expression.offset + problem.start, expression.offset + problem.end
    return RuleProblem(expression.where, start, end, problem.message)


@functools.cache
def _published(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((bundled("schemas") / name).read_text(encoding="utf-8"))
    return schema


def _schemas(kinds: tuple[str, ...], options: tuple[Any, ...]) -> dict[str, Mapping[str, Any]]:
    """Root variable -> the JSON Schema of what it holds, for a rule of these kinds."""
    out: dict[str, Mapping[str, Any]] = {}
    documents = []
    for kind in kinds:
        try:
            schema = _published(f"{kind.lower()}.schema.json")
        except OSError:
            continue  # not a gpulint kind: the scope never matches, nothing to check against
        out[kind_variable(kind)] = schema
        documents.append(schema)
    if documents:
        out["document"] = documents[0] if len(documents) == 1 else {"anyOf": documents}
    facts = _published("facts.schema.json")
    out["facts"] = (
        {"$defs": facts["$defs"], "$ref": "#/$defs/Facts"} if "Workload" in kinds else _CLOSED
    )
    out["options"] = {
        "type": "object",
        "properties": {name: _OPTION_SCHEMAS[spec.type] for name, spec in options},
        "additionalProperties": False,
    }
    out["index"] = {"type": "integer"}
    out["variables"] = {}
    return out
