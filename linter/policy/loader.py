"""Load rule files, validate them and compile their CEL, with positions in every error."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from linter import cel
from linter.load import Refusal, is_json, load_source, read_bounded
from linter.load.positions import SourceMap, parse_path
from linter.load.scalar_offsets import locate
from linter.parse_cache import parsed
from linter.policy.budget import CostModel, cost_model
from linter.policy.flatten import SEPARATOR, compile_rule_expression
from linter.policy.rule_file import RuleFile
from linter.policy.static_checks import check_rule, expressions
from linter.policy.template import Template, parse_template
from linter.validation import describe_error, error_path

_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
RULE_MAX_BYTES = 1024 * 1024


class RuleError(Exception):
    """A rule file that cannot be used; the message starts with ``file:line:col:``."""


@dataclass(frozen=True)
class CompiledCheck:
    violation: Any
    severity: str | None
    path: Template
    message: Template
    fix: Template | None
    related: Any | None


@dataclass(frozen=True, eq=False)
class CompiledRule:
    meta: RuleFile
    source: Path
    applies: Any | None
    each: Any | None
    variables: tuple[tuple[str, Any], ...]  # the rule's named sub-expressions, in order
    checks: tuple[CompiledCheck, ...]
    reads: frozenset[str]  # names its expressions read, to prepare the activation once

    @property
    def id(self) -> str:
        return self.meta.id

    @functools.cached_property
    def document_paths(self) -> tuple[tuple[str, ...], ...]:
        """The document paths its expressions read (``spec.resources.region``)."""
        return tuple(
            tuple(name.split(SEPARATOR)[1:])
            for name in self.reads
            if SEPARATOR in name and name.split(SEPARATOR)[0] not in ("facts", "options", "item")
        )

    @functools.cached_property
    def costs(self) -> tuple[CostModel, CostModel]:
        """Bounds on what evaluating it costs (linter/policy/budget.py): of ``applies`` and
        ``each``, and of everything evaluated per element of ``each`` (variables, checks)."""
        once, per_item = CostModel.zero(), CostModel.zero()
        each = self.meta.each
        for expression in expressions(self.meta):
            if expression.per_item:
                per_item = per_item + cost_model(expression.source, each)
            else:
                once = once + cost_model(expression.source)
        return once, per_item

    @functools.cached_property
    def fact_providers(self) -> frozenset[str]:
        """The fact providers its expressions read (``memory`` for ``facts.memory.fits``)."""
        return frozenset(
            name.split(SEPARATOR)[1] for name in self.reads if name.startswith("facts" + SEPARATOR)
        )


class Rulebook:
    """The rules of one run, by id and by name. Duplicate ids or names are errors."""

    def __init__(self, rules: Iterable[CompiledRule]) -> None:
        self.by_id: dict[str, CompiledRule] = {}
        self.by_name: dict[str, CompiledRule] = {}
        for rule in sorted(rules, key=lambda r: r.id):
            for index, key in ((self.by_id, rule.id), (self.by_name, rule.meta.name)):
                clash = index.get(key)
                if clash is not None:
                    raise RuleError(
                        f"{rule.source}:1:1: rule {key} is also defined in {clash.source}"
                    )
                index[key] = rule

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.by_id.values())

    def __len__(self) -> int:
        return len(self.by_id)


def rule_files(directories: Sequence[Path]) -> list[Path]:
    files: list[Path] = []
    for directory in directories:
        if not directory.is_dir():
            raise RuleError(f"{directory}: rules directory not found")
        files.extend(sorted(p for p in directory.iterdir() if p.suffix in (".yaml", ".yml")))
    return files


def load_rulebook(directories: Sequence[Path]) -> Rulebook:
    return Rulebook(load_rule(path) for path in rule_files(directories))


def load_rule(path: Path) -> CompiledRule:
    """Load one rule file, read once (bounded; a symbolic link may not leave the rules folder).

    The first time these bytes are seen they are parsed with positions, validated, checked
    (every path an expression reads exists in its schema) and compiled, and any problem is an
    error at its line and column; the checked data is then kept in the start-up cache, so later
    runs only compile it."""
    content = read_bounded(path, RULE_MAX_BYTES, root=path.parent)
    if isinstance(content, Refusal):
        raise RuleError(f"{path}:1:1: {content.message()}")
    data = parsed("rule", content, lambda: _checked(path, content))
    return _compile(RuleFile.model_validate(data), path, None)


def _checked(path: Path, content: bytes) -> Any:
    """The rule file's data, once it has passed every check (RuleError, with a position, if
    not)."""
    loaded = load_source(content, json=is_json(path))
    if loaded.problems:
        problem = loaded.problems[0]
        raise RuleError(f"{path}:{problem.span.line}:{problem.span.column}: {problem.message}")
    if len(loaded.documents) != 1:
        raise RuleError(f"{path}:1:1: a rule file holds exactly one YAML document")
    document = loaded.documents[0]
    located = _Located(path, document.source_map, loaded.text)
    try:
        meta = RuleFile.model_validate(document.data)
    except ValidationError as err:
        first = err.errors()[0]
        where = error_path(first, document.data)
        raise located.error(where, describe_error(first, where)) from None
    for found in check_rule(meta):
        raise located.error(found.where, found.message, found.start, found.end)
    _compile(meta, path, located)
    return document.data


@dataclass(frozen=True)
class _Located:
    """A rule file being checked: turns a path in it (and an offset inside the string there)
    into ``file:line:col:``."""

    path: Path
    source_map: SourceMap
    text: str

    def error(
        self, where: tuple[Any, ...], message: str, start: int | None = None, end: int = 0
    ) -> RuleError:
        span = self.source_map.locate(where)
        scalar = self.source_map.scalar(where)
        if start is not None and scalar is not None:
            span = locate(self.text, scalar, start, max(end, start + 1))
        return RuleError(f"{self.path}:{span.line}:{span.column}: {message}")


def _at(located: _Located | None, where: tuple[Any, ...], message: str) -> RuleError:
    if located is None:  # checked data from the start-up cache: it compiled before
        return RuleError(message)
    return located.error(where, message)


def _compile(meta: RuleFile, path: Path, located: _Located | None) -> CompiledRule:
    def program(source: str | None, where: tuple[Any, ...]) -> Any | None:
        if source is None:
            return None
        try:
            return compile_rule_expression(source)
        except cel.CelError as err:
            raise _at(located, where, f"invalid CEL: {err}") from None

    def _template(text: str, where: tuple[Any, ...]) -> Template:
        try:
            return parse_template(text)
        except cel.CelError as err:
            raise _at(located, where, str(err)) from None

    if meta.engine and meta.checks:
        raise _at(located, ("checks",), "an engine rule has no checks")
    if not meta.engine and not meta.checks:
        raise _at(located, ("id",), "a rule needs at least one entry in checks")
    checks = []
    for index, check in enumerate(meta.checks):
        where = ("checks", index)
        try:
            for alternative in check.path.split("|"):
                parse_path(_PLACEHOLDER.sub("0", alternative.strip()))
            path_template = parse_template(check.path)
        except (ValueError, cel.CelError) as err:
            raise _at(located, (*where, "path"), str(err)) from None
        message = _template(check.message, (*where, "message"))
        fix = _template(check.fix, (*where, "fix")) if check.fix is not None else None
        checks.append(
            CompiledCheck(
                program(check.violation, (*where, "violation")),
                check.severity,
                path_template,
                message,
                fix,
                program(check.related, (*where, "related")),
            )
        )
    applies, each = program(meta.applies, ("applies",)), program(meta.each, ("each",))
    variables = tuple(
        (name, program(source, ("variables", name))) for name, source in meta.variables.items()
    )
    programs = [applies, each, *(compiled for _, compiled in variables)]
    for compiled in checks:
        programs += [compiled.violation, compiled.related, *compiled.path.programs]
        programs += compiled.message.programs + (compiled.fix.programs if compiled.fix else [])
    names = frozenset(name for p in programs if p is not None for name in p.variables())
    return CompiledRule(meta, path, applies, each, variables, tuple(checks), names)
