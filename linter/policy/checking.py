"""A rule file checked the first time its bytes are seen, so that a policy that cannot work is
refused with its position instead of failing quietly on every document.

The file is parsed with positions and validated, every path its expressions read is found in
its schema (linter/policy/static_checks.py), and every expression is parsed by gpulint's own CEL
parser: its limits checked (linter/cel/work_limits.py), its member chains flattened (linter/policy/
flatten.py), its cost bounded (linter/cel/work_bounds.py) and, for a message placeholder, its
plain-path lookup found (linter/policy/cel_placeholders.py). What this returns, the rule's data
and that analysis (linter/policy/rule_analysis.py), is what the start-up cache keeps: a later
run compiles from it without importing any of those modules.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from linter.cel import backend as cel
from linter.cel import option_filters
from linter.cel.flat_names import activation_roots
from linter.cel.flatten import flattened
from linter.cel.lexer import ExpressionError
from linter.cel.null_tests import null_tested
from linter.cel.work import WorkModel
from linter.cel.work_limits import work_model
from linter.declared.checking import errors_of
from linter.load import is_json, load_source
from linter.load.positions import SourceMap
from linter.load.scalar_offsets import locate
from linter.model.validation import describe_error, error_path
from linter.policy.cel_placeholders import plain_lookup
from linter.policy.loader import CompiledRule, RuleError, compile_rule
from linter.policy.rule_analysis import Lookup, RuleAnalysis, WorkModels
from linter.policy.rule_file import RuleFile
from linter.policy.static_checks import check_rule, expressions
from linter.records import datarecord


def checked(path: Path, content: bytes) -> tuple[dict[str, Any], CompiledRule]:
    """The rule file's data and the analysis of its expressions (JSON data that linter/policy/
    loader.py restores), and the rule compiled, once it has passed every check (RuleError, with
    a position, if not)."""
    loaded = load_source(content, json=is_json(path))
    if loaded.problems:
        problem = loaded.problems[0]
        raise RuleError(f"{path}:{problem.span.line}:{problem.span.column}: {problem.message}")
    if len(loaded.documents) != 1:
        raise RuleError(f"{path}:1:1: a rule file holds exactly one YAML document")
    document = loaded.documents[0]
    located = RuleFileLocator(path, document.source_map, loaded.text)
    try:
        meta = RuleFile.model_validate(document.data)
    except ValueError as err:
        first = errors_of(err)[0]
        where = error_path(first, document.data)
        raise located.error(where, describe_error(first, where)) from None
    for found in check_rule(meta):
        raise located.error(found.where, found.message, found.start, found.end)
    analyser = Analyser(located)
    rule = compile_rule(meta, path, analyser, located)
    return {"rule": document.data, "analysis": analyser.recorded(meta).as_data()}, rule


class Analyser:
    """An analysis worked out by parsing (linter/policy/rule_analysis.py says what for), which
    records what it was asked, for the start-up cache."""

    def __init__(self, located: RuleFileLocator | None = None) -> None:
        self.located = located
        self.flat: dict[str, str] = {}
        self.lookups: dict[str, Lookup] = {}
        self.reads: dict[str, list[str]] = {}
        self._work: WorkModels | None = None

    def flattened(self, source: str) -> str:
        found = self.flat.get(source)
        if found is None:
            found = self.flat[source] = flattened(source)
        return found

    def compiled(self, source: str) -> Any:
        """Compiled now, so that an expression that does not compile is reported with the rule
        file's position; the variables it reads are recorded."""
        flat = self.flattened(source)
        program = cel.compile_expression(flat)
        self.reads[flat] = list(program.variables())
        return program

    def lookup(self, source: str) -> Lookup | None:
        found = plain_lookup(source, activation_roots())
        if found is not None:
            self.lookups[source] = found
        return found

    def work_models(self, meta: RuleFile) -> WorkModels:
        """Of ``applies`` and ``each``, and of what is evaluated per element of ``each``; asked
        once every expression has compiled, so that only a cost problem is left to report."""
        if self._work is None:
            once, per_item = WorkModel.zero(), WorkModel.zero()
            for expression in expressions(meta):
                if not expression.per_item:
                    once = once + work_model(expression.source)
                    continue
                try:
                    per_item = per_item + work_model(expression.source, meta.each)
                except ExpressionError as err:
                    # Each expression alone was bounded when it compiled: what cannot be is
                    # the range it runs over, ``each``.
                    raise self._error(("each",), err) from None
            self._work = (once, per_item)
        return self._work

    def _error(self, where: tuple[Any, ...], err: ExpressionError) -> RuleError:
        if self.located is None:  # analysing outside a rule file (tests of templates)
            return RuleError(str(err))
        return self.located.error(where, err.message, err.offset)

    def null_tested(self) -> frozenset[str]:
        """Asked once every expression has been flattened."""
        return null_tested(self.flat.values())

    def option_filtered(self, meta: RuleFile) -> dict[str, str]:
        """Of the expressions that decide whether a check fires, as ``compile_rule`` gathers
        them into ``verdict_reads``."""
        verdict = [source for source in (meta.applies, meta.each) if source is not None]
        verdict += [*meta.variables.values(), *(check.violation for check in meta.checks)]
        return option_filters.option_filtered(self.flattened(source) for source in verdict)

    def recorded(self, meta: RuleFile) -> RuleAnalysis:
        return RuleAnalysis(
            self.flat,
            self.lookups,
            self.work_models(meta),
            self.null_tested(),
            self.reads,
            self.option_filtered(meta),
        )


@datarecord
class RuleFileLocator:
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
