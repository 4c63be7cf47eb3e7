"""The evaluator remembers a rule's outcome under the values it reads: targets that agree on
them share one evaluation, targets that differ in any of them do not, and what depends on the
target itself (where a finding points) is never shared."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from conftest import ORG_RULE

from linter.findings import Finding
from linter.policy import evaluator as engine
from linter.policy.evaluator import Evaluator
from linter.policy.loader import CompiledRule, load_rule
from linter.policy.selection import RuleSettings
from linter.run.wide_parts import WidePart


def rule(tmp_path: Path, number: int = 100, extra: str = "", **fields: str) -> CompiledRule:
    values = {"violation": "true", "path": "spec", "message": "m", **fields}
    path = tmp_path / f"ACME{number}.yaml"
    path.write_text(ORG_RULE.format(number=number, name=f"rule-{number}", extra=extra, **values))
    return load_rule(path)


def target(number: int, values: dict[str, Any]) -> WidePart:
    """A workload of its own file, with ``spec`` on line ``number``."""
    spots = {"kind": (1, 1, 1, 5, "kind"), "spec": (number, 1, number, 5, "spec")}
    return WidePart(f"w{number}.yaml", 0, 0, "Workload", None, values, spots)


def findings(evaluator: Evaluator, *targets: WidePart) -> list[Finding]:
    out: list[Finding] = []
    for one in targets:
        values = engine.Values(engine.nested(one.values))
        out.extend(evaluator.evaluate(one, values, None, lambda *_: None))
    return out


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[dict[str, Any]]]:
    """The values each evaluation (not each lookup of a remembered outcome) ran on."""
    seen: list[dict[str, Any]] = []
    real = engine._run

    def counted(*args: Any) -> Any:
        seen.append(dict(args[3].values))  # _run(rule, settings, budget, prepared, ...)
        return real(*args)

    monkeypatch.setattr(engine, "_run", counted)
    yield seen


def test_targets_with_the_values_a_rule_reads_share_one_evaluation(
    tmp_path: Path, runs: list[dict[str, Any]]
) -> None:
    evaluator = Evaluator(
        [
            (
                rule(
                    tmp_path,
                    violation="workload.spec.serving.replicas > 2",
                    message="{workload.spec.serving.replicas}",
                ),
                RuleSettings(),
            )
        ]
    )
    same = {"workload__spec__serving__replicas": 4, "workload__spec__resources__region": "a"}
    other_unread = {
        "workload__spec__serving__replicas": 4,
        "workload__spec__resources__region": "b",
    }
    found = findings(evaluator, target(3, same), target(4, other_unread), target(5, same))
    assert [(f.location.file, f.location.span.line, f.message) for f in found] == [
        ("w3.yaml", 3, "4"),
        ("w4.yaml", 4, "4"),
        ("w5.yaml", 5, "4"),
    ]
    assert runs == [{"workload__spec__serving__replicas": 4}]


def test_a_value_the_rule_reads_changes_the_verdict(
    tmp_path: Path, runs: list[dict[str, Any]]
) -> None:
    evaluator = Evaluator(
        [
            (
                rule(
                    tmp_path,
                    violation="workload.spec.serving.replicas + 1 == 2",
                    message="{workload.spec.serving.replicas}",
                ),
                RuleSettings(),
            )
        ]
    )
    targets = [
        target(3, {"workload__spec__serving__replicas": 1}),
        target(4, {"workload__spec__serving__replicas": 1.0}),  # equal in Python, a double in CEL
        target(5, {"workload__spec__serving__replicas": True}),
        target(6, {}),  # absent: an evaluation error
        target(7, {"workload__spec__serving__replicas": 1}),
    ]
    found = findings(evaluator, *targets)
    failed = "rule ACME100 (rule-100) could not be evaluated here: "
    assert [(f.rule_id, f.location.span.line, f.message) for f in found] == [
        ("ACME100", 3, "1"),
        ("GL006", 1, failed + "Unsupported operation: float + int"),
        ("GL006", 1, failed + "Unsupported operation: bool + int"),
        ("GL006", 1, failed + "no such field: workload.spec.serving.replicas"),
        ("ACME100", 7, "1"),
    ]
    assert len(runs) == 4


def test_a_rule_reading_the_workload_name_is_evaluated_for_each(
    tmp_path: Path, runs: list[dict[str, Any]]
) -> None:
    evaluator = Evaluator([(rule(tmp_path, message="{workload.metadata.name}"), RuleSettings())])
    values = {"workload__metadata__name": "chat"}
    found = findings(evaluator, target(3, values), target(4, values))
    assert [f.message for f in found] == ["chat", "chat"]
    assert len(runs) == 2


def test_an_evaluation_that_fails_part_way_is_replayed_whole(
    tmp_path: Path, runs: list[dict[str, Any]]
) -> None:
    evaluator = Evaluator(
        [
            (
                rule(
                    tmp_path,
                    extra="each: workload.spec.endpoints",
                    violation='item.region.startsWith("eu")',
                    message="item {index}",
                ),
                RuleSettings(),
            )
        ]
    )
    regions = [{"region": "eu-west-1"}, {"region": 5}, {"region": "eu-north-1"}]
    values = {"workload__spec__endpoints": regions}
    found = findings(evaluator, target(3, values), target(4, values))
    expected = [
        ("ACME100", "item 0"),
        (
            "GL006",
            "rule ACME100 (rule-100) could not be evaluated "
            "here: Undefined variable or function: 'startsWith'",
        ),
    ]
    assert [(f.rule_id, f.message) for f in found] == expected * 2
    assert len(runs) == 1


def test_a_small_memory_forgets_and_stays_right(tmp_path: Path) -> None:
    evaluator = Evaluator(
        [(rule(tmp_path, message="{workload.spec.serving.replicas}"), RuleSettings())], memo_size=1
    )
    targets = [target(n, {"workload__spec__serving__replicas": n % 2}) for n in range(3, 9)]
    assert [f.message for f in findings(evaluator, *targets)] == ["1", "0", "1", "0", "1", "0"]
    assert len(evaluator._memo) == 1


def test_options_are_part_of_what_is_remembered(tmp_path: Path) -> None:
    options = "options:\n  limit: {type: integer, default: 1, description: x}"
    compiled = rule(tmp_path, extra=options, message="{options.limit}")
    first = Evaluator([(compiled, RuleSettings(options={"limit": 1}))])
    second = Evaluator([(compiled, RuleSettings(options={"limit": 2}))])
    one = target(3, {})
    assert [f.message for f in findings(first, one)] == ["1"]
    assert [f.message for f in findings(second, one)] == ["2"]


def _contexts(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """What every CEL context of the run is made with."""
    made: list[dict[str, Any]] = []
    real = engine.cel.new_context

    def counted(variables: dict[str, Any]) -> Any:
        made.append(dict(variables))
        return real(variables)

    monkeypatch.setattr(engine.cel, "new_context", counted)
    return made


def test_the_rules_evaluated_on_one_target_share_one_context(
    tmp_path: Path, runs: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    contexts = _contexts(monkeypatch)
    replicas = rule(
        tmp_path,
        violation="workload.spec.serving.replicas > 2",
        message="{workload.spec.serving.replicas}",
    )
    region = rule(
        tmp_path,
        101,
        violation='workload.spec.resources.region == "a"',
        message="{workload.spec.resources.region}",
    )
    evaluator = Evaluator([(replicas, RuleSettings()), (region, RuleSettings())])
    both = {"workload__spec__serving__replicas": 4, "workload__spec__resources__region": "a"}
    found = findings(evaluator, target(3, both))
    assert [(f.rule_id, f.message) for f in found] == [("ACME100", "4"), ("ACME101", "a")]
    assert contexts == [both]
    assert runs == [both, both]
    # Each rule is still remembered under its own values: a target that differs only in what
    # the second rule reads evaluates only that one.
    contexts.clear()
    other = {**both, "workload__spec__resources__region": "b"}
    assert [f.rule_id for f in findings(evaluator, target(4, other))] == ["ACME100"]
    assert contexts == [{"workload__spec__resources__region": "b"}]


class _Unknowable(dict[str, Any]):
    """An activation in which one value cannot be computed (as a fact that fails)."""

    def __getitem__(self, name: str) -> Any:
        if name == "workload__spec__resources__region":
            raise ValueError("the region's catalogue entry is broken")
        return super().__getitem__(name)


def test_a_value_that_cannot_be_computed_fails_only_the_rules_that_read_it(
    tmp_path: Path,
) -> None:
    replicas = rule(tmp_path, message="{workload.spec.serving.replicas}")
    # remembered: the value fails while its key is made; naming the workload: while its
    # context is filled
    region = rule(tmp_path, 101, violation='workload.spec.resources.region == "a"')
    named = rule(
        tmp_path,
        102,
        violation='workload.spec.resources.region == "a"',
        message="{workload.metadata.name}",
    )
    rules = [(replicas, RuleSettings()), (region, RuleSettings()), (named, RuleSettings())]
    values = {
        "workload__spec__serving__replicas": 4,
        "workload__spec__resources__region": "a",
        "workload__metadata__name": "chat",
    }
    one = target(3, values)
    activation = _Unknowable(values)
    found = list(Evaluator(rules).evaluate(one, engine.Values(activation), None, lambda *_: None))
    cause = "could not be evaluated here: the region's catalogue entry is broken"
    assert [(f.rule_id, f.message) for f in found] == [
        ("ACME100", "4"),
        ("GL006", f"rule ACME101 (rule-101) {cause}"),
        ("GL006", f"rule ACME102 (rule-102) {cause}"),
    ]


def test_a_value_read_only_to_report_a_finding_is_converted_only_for_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    contexts = _contexts(monkeypatch)
    compiled = rule(
        tmp_path,
        violation="workload.spec.serving.replicas > 2",
        message="{size(workload.spec.endpoints)} endpoints, "
        "{workload.spec.resources.region == null}",
    )
    endpoints = [{"region": "eu-west-1"}, {"region": "eu-north-1"}]
    common = {"workload__spec__endpoints": endpoints, "workload__spec__resources__region": None}
    found = findings(
        Evaluator([(compiled, RuleSettings())]),
        target(3, {**common, "workload__spec__serving__replicas": 4}),
        target(4, {**common, "workload__spec__serving__replicas": 1}),
    )
    assert [(f.location.span.line, f.message) for f in found] == [(3, "2 endpoints, true")]
    # the endpoints are given to the context on request; a null is always in it (on request,
    # the backend would take it for an undefined variable)
    assert contexts == [
        {"workload__spec__resources__region": None, "workload__spec__serving__replicas": 4},
        {"workload__spec__resources__region": None, "workload__spec__serving__replicas": 1},
    ]


def test_a_rule_with_each_has_every_value_it_reads_in_its_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    contexts = _contexts(monkeypatch)
    compiled = rule(
        tmp_path,
        extra="each: workload.spec.endpoints",
        violation='item.region.startsWith("eu")',
        message="{workload.spec.serving.replicas + index}",
    )
    values = {
        "workload__spec__endpoints": [{"region": "eu-west-1"}, {"region": "us-east-1"}],
        "workload__spec__serving__replicas": 4,
    }
    found = findings(Evaluator([(compiled, RuleSettings())]), target(3, values))
    assert [f.message for f in found] == ["4"]
    assert contexts == [values]


def _with_related(tmp_path: Path, related: str) -> CompiledRule:
    text = ORG_RULE.format(
        number=100, name="rule-100", extra="", violation="true", path="spec", message="m"
    )
    path = tmp_path / "ACME100.yaml"
    path.write_text(
        text.replace("    message: 'm'\n", f"    message: 'm'\n    related: {related}\n")
    )
    return load_rule(path)


def _evaluated(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The programs CEL evaluates."""
    programs: list[Any] = []
    real = engine.cel.evaluate

    def counted(program: Any, context: Any) -> Any:
        programs.append(program)
        return real(program, context)

    monkeypatch.setattr(engine.cel, "evaluate", counted)
    return programs


@pytest.mark.parametrize(
    ("document", "by_cel", "related"),
    [
        (0, False, [("w4.yaml", 4)]),
        # beyond CEL's integers: CEL gives back a double, which names no document
        (2**64, True, []),
    ],
)
def test_related_at_a_plain_path_is_read_without_cel_when_cel_gives_the_same(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    document: int,
    by_cel: bool,
    related: list[tuple[str, int]],
) -> None:
    compiled = _with_related(tmp_path, "facts.pool.conflicts")
    evaluated = _evaluated(monkeypatch)
    other = target(4, {})
    entry = {"file": "w4.yaml", "document": document, "part": 0, "path": "spec"}
    one = target(3, {"facts__pool__conflicts": [entry]})
    values = engine.Values(engine.nested(one.values))
    found = list(
        Evaluator([(compiled, RuleSettings())]).evaluate(
            one, values, None, lambda f, d, p: other if (f, d, p) == ("w4.yaml", 0, 0) else None
        )
    )
    assert [(r.file, r.span.line) for f in found for r in f.related] == related
    assert (compiled.checks[0].related in evaluated) is by_cel


def test_a_value_the_backend_cannot_convert_fails_only_the_rules_that_read_it(
    tmp_path: Path,
) -> None:
    replicas = rule(tmp_path, message="{workload.spec.serving.replicas}")
    region = rule(
        tmp_path, 101, violation='workload.spec.resources.region == "a"', message="{index}"
    )
    named = rule(tmp_path, 102, message="{workload.metadata.name}")
    rules = [(replicas, RuleSettings()), (region, RuleSettings()), (named, RuleSettings())]
    values = {
        "workload__spec__serving__replicas": 4,
        "workload__spec__resources__region": {"a"},  # a set: no CEL value
        "workload__metadata__name": "chat",
    }
    one = target(3, values)
    found = list(Evaluator(rules).evaluate(one, engine.Values(values), None, lambda *_: None))
    assert [(f.rule_id, f.message.split(":")[0]) for f in found] == [
        ("ACME100", "4"),
        ("GL006", "rule ACME101 (rule-101) could not be evaluated here"),
        ("ACME102", "chat"),
    ]
    assert "Failed to convert variable 'workload__spec__resources__region'" in found[1].message


def test_a_list_option_is_added_to_the_shared_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rule's list options are converted into the context once, not on every read (per
    element of a filter); the rules of the target still share one context."""
    contexts = _contexts(monkeypatch)
    options = "options:\n  words: {type: list, default: [dev], description: x}"
    words = rule(
        tmp_path,
        extra=options,
        violation="workload.spec.endpoints.filter(e, e.region in options.words).size() > 0",
        message="{options.words[0]}",
    )
    replicas = rule(tmp_path, 101, violation="workload.spec.serving.replicas > 2")
    settings = RuleSettings(options={"words": ["dev", "test"]})
    evaluator = Evaluator([(words, settings), (replicas, RuleSettings())])
    endpoints = [{"region": "a"}, {"region": "test"}]
    values = {"workload__spec__endpoints": endpoints, "workload__spec__serving__replicas": 4}
    found = findings(evaluator, target(3, values))
    assert [(f.rule_id, f.message) for f in found] == [("ACME100", "dev"), ("ACME101", "m")]
    # the options tried once, as the evaluator is made; then one context for the target
    assert contexts == [{"options": {"words": ["dev", "test"]}}, values]


def test_a_list_option_the_backend_cannot_convert_fails_as_it_did(tmp_path: Path) -> None:
    """As undefined, also beside a rule whose options are in the shared context."""
    listed = "options:\n  {name}: {{type: list, default: [], description: x}}"
    days = rule(tmp_path, extra=listed.format(name="days"), violation="size(options.days) > 0")
    words = rule(
        tmp_path, 101, extra=listed.format(name="words"), violation="size(options.words) > 0"
    )
    evaluator = Evaluator(
        [
            (words, RuleSettings(options={"words": ["dev"]})),
            (days, RuleSettings(options={"days": [date(2026, 12, 5)]})),
        ]
    )
    found = findings(evaluator, target(3, {}))
    assert [(f.rule_id, f.message) for f in found] == [
        ("ACME101", "m"),
        (
            "GL006",
            "rule ACME100 (rule-100) could not be evaluated here: "
            "Undefined variable or function: 'options'",
        ),
    ]


def test_a_map_only_compared_with_null_is_a_stand_in(
    tmp_path: Path, runs: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The context holds an empty map for it, and targets that differ only in its fields the
    rule does not read share one evaluation."""
    contexts = _contexts(monkeypatch)
    compiled = rule(
        tmp_path,
        violation="workload.spec.serving != null && workload.spec.serving.replicas > 2",
        message="{workload.spec.serving.replicas}",
    )
    evaluator = Evaluator([(compiled, RuleSettings())])
    assert compiled.null_tested == {"workload__spec__serving"}
    targets = [
        target(n, {"workload__spec__serving": {"replicas": 4, "engine": engine}})
        for n, engine in ((3, "vllm"), (4, "sglang"))
    ]
    nothing = target(5, {})
    found = findings(evaluator, *targets, nothing)
    assert [(f.rule_id, f.message, f.location.span.line) for f in found] == [
        ("ACME100", "4", 3),
        ("ACME100", "4", 4),
        (
            "GL006",
            "rule ACME100 (rule-100) could not be evaluated here: "
            "no such field: workload.spec.serving.replicas",
            1,
        ),
    ]
    assert contexts == [{"workload__spec__serving": {}, "workload__spec__serving__replicas": 4}, {}]
    assert len(runs) == 2


def test_names_are_resolved_after_the_names_they_are_within_in_first_use_order() -> None:
    assert engine._plan(["facts__memory__gpu", "workload__spec", "facts__cost"]) == (
        ("facts", None, "facts"),
        ("facts__memory", "facts", "memory"),
        ("facts__memory__gpu", "facts__memory", "gpu"),
        ("workload", None, "workload"),
        ("workload__spec", "workload", "spec"),
        ("facts__cost", "facts", "cost"),
    )


class _CountedFacts(Mapping[str, Any]):
    """Facts whose ``memory`` fails every time it is computed, counting the attempts."""

    def __init__(self) -> None:
        self.attempts = 0

    def __getitem__(self, name: str) -> Any:
        if name != "memory":
            raise KeyError(name)
        self.attempts += 1
        raise ValueError("no such GPU")

    def __iter__(self) -> Iterator[str]:
        return iter(["memory"])

    def __len__(self) -> int:
        return 1


def test_a_failing_value_fails_every_name_within_it_and_is_computed_once() -> None:
    facts = _CountedFacts()
    values = engine.Values({"facts": facts, "workload": {"spec": {"profile": "inference"}}})
    plan = engine._plan(["facts__memory__gpu", "facts__memory__fits", "workload__spec__profile"])
    failed = values.resolve_all(plan)
    assert {name: str(err) for name, err in failed.items()} == {
        "facts__memory": "no such GPU",
        "facts__memory__gpu": "no such GPU",
        "facts__memory__fits": "no such GPU",
    }
    assert facts.attempts == 1
    assert values.resolved("workload__spec__profile") == "inference"
    with pytest.raises(ValueError, match="no such GPU"):  # not kept: asked again, computed again
        values("facts__memory__gpu")
    assert facts.attempts == 2


def _naming_rule(tmp_path: Path) -> Evaluator:
    """A rule that fires on more than two replicas and names the workload in its message."""
    compiled = rule(
        tmp_path, violation="workload.spec.serving.replicas > 2", message="{workload.metadata.name}"
    )
    return Evaluator([(compiled, RuleSettings())])


def test_a_quiet_outcome_is_shared_by_targets_that_differ_only_in_what_a_message_reads(
    tmp_path: Path, runs: list[dict[str, Any]]
) -> None:
    """The message reads the workload's name, so no outcome is remembered under every value
    the rule reads; a quiet one is, under what decides it."""
    evaluator = _naming_rule(tmp_path)
    targets = [
        target(3, {"workload__spec__serving__replicas": 1, "workload__metadata__name": "a"}),
        target(4, {"workload__spec__serving__replicas": 1, "workload__metadata__name": "b"}),
        target(5, {"workload__spec__serving__replicas": 3, "workload__metadata__name": "c"}),
        target(6, {"workload__spec__serving__replicas": 3, "workload__metadata__name": "d"}),
        target(7, {"workload__spec__serving__replicas": 1, "workload__metadata__name": "e"}),
    ]
    assert [(f.location.span.line, f.message) for f in findings(evaluator, *targets)] == [
        (5, "c"),
        (6, "d"),
    ]
    assert [run["workload__metadata__name"] for run in runs] == ["a", "c", "d"]


_WORDS_OPTION = (
    "options:\n  words: {type: list, default: [demo, test], description: x}\n"
    "variables:\n  idle: facts.environment.wordList.filter(w, w in options.words)"
)


def _words_rule(tmp_path: Path) -> CompiledRule:
    return rule(
        tmp_path,
        extra=_WORDS_OPTION,
        violation="size(variables.idle) > 0",
        message="{variables.idle[0]}",
    )


def test_a_list_read_through_an_option_filter_is_remembered_by_the_elements_the_option_lists(
    tmp_path: Path, runs: list[dict[str, Any]]
) -> None:
    compiled = _words_rule(tmp_path)
    assert compiled.option_filtered == {"facts__environment__wordList": "words"}
    evaluator = Evaluator([(compiled, RuleSettings(options={"words": ["demo", "test"]}))])
    lists = [["chat", "a1"], ["chat", "b2"], ["demo", "x"], ["demo", "y"], ["serve", "c3"]]
    targets = [target(n, {"facts__environment__wordList": words}) for n, words in enumerate(lists)]
    assert [(f.location.span.line, f.message) for f in findings(evaluator, *targets)] == [
        (2, "demo"),
        (3, "demo"),
    ]
    # ["chat", "b2"] and ["serve", "c3"] keep nothing either: the quiet outcome of the first;
    # an outcome that fired is remembered only under every value it read
    assert [run["facts__environment__wordList"] for run in runs] == [lists[0], *lists[2:4]]


_WORDS_ONLY = "options:\n  words: {type: list, default: [demo, test], description: x}"


@pytest.mark.parametrize("with_variables", [True, False])
def test_a_remembered_quiet_outcome_is_not_given_where_the_budget_refuses_to_run_the_rule(
    tmp_path: Path, runs: list[dict[str, Any]], with_variables: bool
) -> None:
    """The filter's bound grows with the list and its longest word: a list the option keeps
    nothing of has the key of a short one, and is still refused (by the rule's whole budget,
    and with its variables by the budget of what runs after them)."""
    compiled = (
        _words_rule(tmp_path)
        if with_variables
        else rule(
            tmp_path,
            extra=_WORDS_ONLY,
            violation="facts.environment.wordList.exists(w, w in options.words)",
        )
    )
    assert compiled.option_filtered == {"facts__environment__wordList": "words"}
    evaluator = Evaluator([(compiled, RuleSettings(options={"words": ["demo", "test"]}))])
    short = target(3, {"facts__environment__wordList": ["chat"]})
    long = target(4, {"facts__environment__wordList": ["x" * 60_000] * 10})
    found = findings(evaluator, short, long, short)
    assert [(f.rule_id, f.location.span.line) for f in found] == [("GL006", 1)]
    assert found[0].location.file == "w4.yaml"
    assert "not run: evaluating it could take" in found[0].message
    assert len(runs) == 2


def test_a_value_the_rule_reads_that_could_not_be_computed_is_never_given_a_quiet_outcome(
    tmp_path: Path, runs: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    evaluator = _naming_rule(tmp_path)
    values = {"workload__spec__serving__replicas": 1, "workload__metadata__name": "a"}
    findings(evaluator, target(3, values))
    real = engine.Values.resolve_all

    def failing(self: engine.Values, plan: engine.Plan) -> dict[str, Exception]:
        failed = real(self, plan)
        return {**failed, "workload__metadata__name": ValueError("the name fact failed")}

    monkeypatch.setattr(engine.Values, "resolve_all", failing)
    assert findings(evaluator, target(4, values)) == []
    assert len(runs) == 2  # run again, as before the quiet outcome was remembered
