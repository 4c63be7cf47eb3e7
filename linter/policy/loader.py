"""Load rule files, validate them and compile their CEL, with positions in every error."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from linter.cache.parse_cache import parsed
from linter.catalog.prevalidated import prevalidated
from linter.cel import backend as cel
from linter.cel.flat_names import SEPARATOR
from linter.cel.work import WorkModel
from linter.errors import UserError
from linter.load import Refusal, read_bounded
from linter.load.positions import parse_path
from linter.policy.rule_analysis import Analysis, Lookup, RuleAnalysis
from linter.policy.rule_file import RuleFile
from linter.policy.template import Template, parse_template
from linter.records import datarecord

if TYPE_CHECKING:
    from linter.policy.checking import RuleFileLocator

_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
RULE_MAX_BYTES = 1024 * 1024


class RuleError(UserError):
    """A rule file that cannot be used; the message starts with ``file:line:col:``."""


@datarecord
class CompiledCheck:
    violation: Any
    severity: str | None
    path: Template
    message: Template
    fix: Template | None
    related: Any | None
    #: How to read ``related`` without CEL when it is a plain path (they all are, so far).
    related_lookup: Lookup | None = None
    #: The finding's properties: name -> template (``properties:``), in the file's order.
    properties: tuple[tuple[str, Template], ...] = ()


@datarecord(eq=False)
class CompiledRule:
    meta: RuleFile
    source: Path
    applies: Any | None
    each: Any | None
    variables: tuple[tuple[str, Any], ...]  # the rule's named sub-expressions, in order
    checks: tuple[CompiledCheck, ...]
    reads: frozenset[str]  # names its expressions read, to prepare the activation once
    #: Of those, the names read to decide whether a check fires (``applies``, ``each``,
    #: ``variables``, each ``violation``); the rest are read only to report a check that did.
    verdict_reads: frozenset[str]
    #: Bounds on the work evaluating it takes (linter/cel/work.py): of ``applies`` and
    #: ``each``, and of everything evaluated per element of ``each`` (variables, checks).
    work_models: tuple[WorkModel, WorkModel]
    #: Of ``reads``, those its expressions only compare with null (linter/cel/null_tests.py).
    null_tested: frozenset[str] = frozenset()
    #: Of ``verdict_reads``, those read only through a filter by an option, with the option's
    #: key (linter/cel/option_filters.py).
    option_filtered: Mapping[str, str] = field(default_factory=dict)

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

    The first time these bytes are seen they are checked (linter/policy/checking.py: parsed with
    positions, validated, every path an expression reads found in its schema, every expression
    analysed) and any problem is an error at its line and column; the checked data and the
    analysis are then kept in the start-up cache, so later runs only compile them."""
    content = read_bounded(path, RULE_MAX_BYTES, root=path.parent)
    if isinstance(content, Refusal):
        raise RuleError(f"{path}:1:1: {content.message()}")
    fresh: list[CompiledRule] = []  # checked now (a miss): compiled there, not twice

    def check() -> dict[str, Any]:
        entry, rule = _checked(path, content)
        fresh.append(rule)
        return entry

    entry = parsed("rule", content, check)
    if fresh:
        return fresh[0]
    try:
        meta, analysis = _restored(entry)
    except (ValueError, TypeError, KeyError):  # not an entry this code wrote: check again
        return _checked(path, content)[1]
    return compile_rule(meta, path, analysis)


def _checked(path: Path, content: bytes) -> tuple[dict[str, Any], CompiledRule]:
    # The expression parser is imported only here: for a rule file not seen before.
    from linter.policy.checking import checked

    return checked(path, content)


def _restored(entry: Any) -> tuple[RuleFile, RuleAnalysis]:
    """A checked rule's data and analysis, as ``checking.checked`` returns them. The data
    validated before it was cached (in an entry only gpulint writes), so it is not validated
    again (linter/catalog/prevalidated.py)."""
    return prevalidated(RuleFile, entry["rule"]), RuleAnalysis.from_data(entry["analysis"])


def error_at(located: RuleFileLocator | None, where: tuple[Any, ...], message: str) -> RuleError:
    """The error at ``where`` in a rule file being checked, or without a position for one
    restored from the start-up cache (it compiled before, so only a damaged entry gets here)."""
    if located is None:
        return RuleError(message)
    return located.error(where, message)


def compile_rule(
    meta: RuleFile, path: Path, analysis: Analysis, located: RuleFileLocator | None = None
) -> CompiledRule:
    """The rule, its expressions compiled as ``analysis`` has them; errors at their position in
    the rule file when it is ``located`` (being checked), else without one."""

    def program(source: str | None, where: tuple[Any, ...]) -> Any | None:
        if source is None:
            return None
        try:
            return analysis.compiled(source)
        except cel.CelError as err:
            raise error_at(located, where, f"invalid CEL: {err}") from None

    def _template(text: str, where: tuple[Any, ...]) -> Template:
        try:
            return parse_template(text, analysis)
        except cel.CelError as err:
            raise error_at(located, where, str(err)) from None

    if meta.engine and meta.checks:
        raise error_at(located, ("checks",), "an engine rule has no checks")
    if not meta.engine and not meta.checks:
        raise error_at(located, ("id",), "a rule needs at least one entry in checks")
    checks = []
    for index, check in enumerate(meta.checks):
        where = ("checks", index)
        try:
            for alternative in check.path.split("|"):
                parse_path(_PLACEHOLDER.sub("0", alternative.strip()))
            path_template = parse_template(check.path, analysis)
        except (ValueError, cel.CelError) as err:
            raise error_at(located, (*where, "path"), str(err)) from None
        message = _template(check.message, (*where, "message"))
        fix = _template(check.fix, (*where, "fix")) if check.fix is not None else None
        properties = tuple(
            (name, _template(text, (*where, "properties", name)))
            for name, text in check.properties.items()
        )
        checks.append(
            CompiledCheck(
                program(check.violation, (*where, "violation")),
                check.severity,
                path_template,
                message,
                fix,
                program(check.related, (*where, "related")),
                analysis.lookup(check.related) if check.related is not None else None,
                properties,
            )
        )
    applies, each = program(meta.applies, ("applies",)), program(meta.each, ("each",))
    variables = tuple(
        (name, program(source, ("variables", name))) for name, source in meta.variables.items()
    )
    verdict = [applies, each, *(compiled for _, compiled in variables)]
    verdict += [compiled.violation for compiled in checks]
    reporting = []
    for compiled in checks:
        reporting += [compiled.related, *compiled.path.programs, *compiled.message.programs]
        reporting += compiled.fix.programs if compiled.fix else []
        reporting += [p for _, template in compiled.properties for p in template.programs]
    verdict_names = _variables(verdict)
    names = verdict_names | _variables(reporting)
    work_models = analysis.work_models(meta)
    return CompiledRule(
        meta,
        path,
        applies,
        each,
        variables,
        tuple(checks),
        names,
        verdict_names,
        work_models,
        analysis.null_tested() & names,
        dict(analysis.option_filtered(meta)),
    )


def _variables(programs: list[Any]) -> frozenset[str]:
    """The variables the compiled ``programs`` (None: not given) read."""
    return frozenset(name for p in programs if p is not None for name in p.variables())
