"""A rule's expressions are analysed (parsed, flattened, bounded) when its file is checked, and
the analysis is kept with its data in the start-up cache: a run restored from there compiles the
same rule without importing gpulint's CEL parser."""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path
from typing import Any, cast

import pytest
from conftest import REPO, imported_by_check

from linter.bundled import bundled
from linter.cel import backend as cel
from linter.cel.work import WorkModel, over_work_limit
from linter.policy import checking, loader
from linter.policy.loader import CompiledRule, RuleError, load_rule, rule_files
from linter.policy.rule_analysis import RuleAnalysis

RULES = rule_files([bundled("rules")])
PARSER = (
    "linter.cel.lexer",
    "linter.cel.syntax",
    "linter.cel.read_paths",
    "linter.cel.work_bounds",
    "linter.cel.work_limits",
    "linter.cel.flatten",
    "linter.policy.cel_placeholders",
    "linter.policy.checking",
    "linter.policy.static_checks",
)


@pytest.fixture
def start_up_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("GPULINT_NO_CACHE")
    monkeypatch.setenv("GPULINT_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def checks_counted(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    seen: list[Path] = []

    def counted(path: Path, content: bytes) -> tuple[dict[str, Any], CompiledRule]:
        seen.append(path)
        return checking.checked(path, content)

    monkeypatch.setattr(loader, "_checked", counted)
    return seen


def described(rule: CompiledRule) -> Any:
    """What compiling made of a rule, as plain data."""
    templates = [
        template
        for check in rule.checks
        for template in (check.path, check.message, check.fix)
        if template is not None
    ]
    lookups = [
        [part.lookup for part in template.parts if not isinstance(part, str)]
        for template in templates
    ]
    return (
        sorted(rule.reads),
        [model.as_data() for model in rule.work_models],
        lookups,
        [sorted(program.variables()) for name, program in rule.variables],
    )


def test_the_analysis_survives_json_exactly() -> None:
    for path in RULES:
        entry, _ = checking.checked(path, path.read_bytes())
        data = json.loads(json.dumps(entry["analysis"]))
        assert RuleAnalysis.from_data(data).as_data() == entry["analysis"], path


def test_a_rule_restored_from_the_start_up_cache_is_the_rule_checked(
    start_up_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked = checks_counted(monkeypatch)
    first = [described(load_rule(path)) for path in RULES]
    assert checked == RULES
    restored = [described(load_rule(path)) for path in RULES]
    assert checked == RULES  # nothing checked again
    assert restored == first


def test_an_entry_this_code_did_not_write_is_checked_again(
    start_up_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = bundled("rules") / "GL201.yaml"
    expected = described(load_rule(path))
    checked = checks_counted(monkeypatch)
    monkeypatch.setattr(loader, "parsed", lambda kind, content, parse: {"rule": [], "x": 1})
    assert described(load_rule(path)) == expected
    assert checked == [path]


_MODELS = [{"work": [], "values": []}] * 2
_VALID = {
    "flat": {},
    "lookups": {},
    "work_models": _MODELS,
    "null_tested": [],
    "reads": {},
    "option_filtered": {},
}


@pytest.mark.parametrize(
    "data",
    [
        None,
        {"flat": {}, "lookups": {}},
        {key: value for key, value in _VALID.items() if key != "null_tested"},
        {key: value for key, value in _VALID.items() if key != "reads"},  # an older entry
        {key: value for key, value in _VALID.items() if key != "option_filtered"},  # older too
        {**_VALID, "extra": 1},
        {**_VALID, "null_tested": [1]},
        {**_VALID, "null_tested": "a"},
        {**_VALID, "flat": {"a": 1}},
        {**_VALID, "lookups": {"a": ["x", [1.5]]}},
        {**_VALID, "work_models": _MODELS[:1]},
        {**_VALID, "work_models": [{"work": [[-1, []]], "values": []}] * 2},
        {**_VALID, "work_models": [{"work": [[1, [[{"*": "ALL"}]]]], "values": []}] * 2},
        {**_VALID, "work_models": [{"work": [[1, [[2.5]]]], "values": []}] * 2},
        {**_VALID, "reads": []},
        {**_VALID, "reads": {"a > 1": "a"}},
        {**_VALID, "reads": {"a > 1": [1]}},
        {**_VALID, "option_filtered": ["a"]},
        {**_VALID, "option_filtered": {"a": 1}},
    ],
)
def test_what_is_not_an_analysis_is_refused(data: Any) -> None:
    with pytest.raises(ValueError):
        RuleAnalysis.from_data(data)


def test_a_valid_analysis_is_read() -> None:
    restored = RuleAnalysis.from_data(
        {
            **_VALID,
            "null_tested": ["a__b"],
            "flat": {"a.b > 1": "a__b > 1"},
            "reads": {},
            "option_filtered": {"a__c": "words"},
        }
    )
    assert restored.null_tested() == frozenset({"a__b"})
    assert restored.option_filtered(cast(Any, None)) == {"a__c": "words"}
    with pytest.raises(cel.CelError, match=re.escape("no analysis of 'a.b > 1'")):
        restored.compiled("a.b > 1")  # flattened, but what it reads was not recorded


def test_a_restored_rule_compiles_an_expression_only_when_it_first_runs(
    start_up_cache: Path,
) -> None:
    path = bundled("rules") / "GL201.yaml"
    load_rule(path)  # checked, and kept in the start-up cache
    rule = load_rule(path)
    programs = [rule.applies, *(check.violation for check in rule.checks)]
    programs += [program for check in rule.checks for program in check.message.programs]
    assert programs and all(type(program) is cel.Deferred for program in programs if program)
    deferred = next(program for program in programs if program is not None)
    assert deferred._program is None
    context = cel.new_context(dict.fromkeys(deferred.variables()))
    with contextlib.suppress(cel.CelError):  # nulls everywhere: it may well not evaluate
        cel.evaluate(deferred, context)
    assert deferred._program is cel.compile_expression(deferred.source)


def test_a_recorded_expression_that_does_not_compile_fails_when_it_runs() -> None:
    deferred = cel.Deferred("a >", ["a"])
    assert deferred.variables() == ["a"]
    with pytest.raises(cel.CelError, match="ERROR"):
        cel.evaluate(deferred, cel.new_context({"a": 1}))


def test_a_restored_cost_model_bounds_a_document_as_the_computed_one() -> None:
    path = bundled("rules") / "GL205.yaml"
    (once, per_item) = checking.Analyser().work_models(load_rule(path).meta)
    for model in (once, per_item):
        restored = WorkModel.from_data(json.loads(json.dumps(model.as_data())))

        def size_of(path: tuple[Any, ...]) -> int:
            return 7 + len(path)

        assert restored.bounds(size_of) == model.bounds(size_of)
        assert over_work_limit(restored, lambda path: 10**6) == over_work_limit(
            model, lambda p: 10**6
        )


def test_a_run_with_its_rules_in_the_start_up_cache_imports_no_parser(tmp_path: Path) -> None:
    """Parsing every rule expression, and importing what parses them, cost more than the rest
    of loading the rules: a run whose rule files were checked before does neither."""
    (tmp_path / "job.yaml").write_text((REPO / "examples" / "inference-chat.yaml").read_text())

    def probed() -> str:
        return imported_by_check(["--no-cache", "job.yaml"], tmp_path, tmp_path / "cache", PARSER)

    first = probed()
    assert first.startswith("0 ") and "linter.cel.syntax" in first  # checks every rule
    assert probed() == "0 []\n"  # the same findings (GL301's warning: no ledger), no parser


UNBOUNDED_EACH = """\
id: ACME500
name: unbounded-each
severity: warning
summary: probe
scope: {kinds: [Workload]}
each: 'string(workload.metadata.name).split("-")'
checks:
  - violation: 'item != ""'
    path: metadata.name
    message: m
docs: {whatItDoes: x, whyIsThisBad: x, example: "x: 1", useInstead: "x: 1"}
"""


def test_a_range_whose_size_cannot_be_bounded_is_refused_where_each_is_written(
    tmp_path: Path,
) -> None:
    """Each expression is bounded alone when it compiles; one run per element of ``each`` is
    bounded only once the rule's cost is summed, and a failure there is ``each``'s (it used to
    escape as an internal error)."""
    path = tmp_path / "ACME500.yaml"
    path.write_text(UNBOUNDED_EACH)
    with pytest.raises(RuleError) as refused:
        checking.checked(path, path.read_bytes())
    assert str(refused.value) == (
        f"{path}:6:8: the range of each must be a path, a literal, a comprehension or a "
        "concatenation of those: its size cannot be bounded"
    )
