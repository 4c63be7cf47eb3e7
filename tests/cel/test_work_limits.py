"""Cost limits: what is refused at load, the bounds computed per document, and that the built-in
rules stay within them on every example and test manifest while the reviewer's attacks do not."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from linter.bundled import bundled
from linter.cel import backend as cel
from linter.cel.flatten import flattened
from linter.cel.value_paths import Path, Wildcard
from linter.cel.work import MAX_VALUE_SIZE, MAX_WORK, SizeOf, document_sizes, over_work_limit
from linter.cel.work_limits import (
    MAX_COMPREHENSION_DEPTH,
    MAX_LENGTH,
    WorkLimitError,
    WorkModel,
    check,
    work_bound,
    work_model,
)
from linter.facts import run_index
from linter.load.discovery import discover
from linter.policy.evaluator import activation
from linter.policy.loader import CompiledRule, load_rulebook
from linter.policy.template import placeholders
from linter.run.runner import collect

EACH, ANY = Wildcard.EACH, Wildcard.ANY
NESTED_4 = "a.map(x, b.map(y, c.map(z, d.map(w, 1))))"


def refusal(source: str) -> tuple[str, int]:
    with pytest.raises(WorkLimitError) as caught:
        check(source)
    return caught.value.message, caught.value.offset


# -- at load -----------------------------------------------------------------------------------


def test_length_is_limited() -> None:
    check("1 + " + " " * (MAX_LENGTH - 5) + "1")
    assert refusal("1 + " + " " * (MAX_LENGTH - 4) + "1") == (
        f"expression longer than {MAX_LENGTH} characters",
        MAX_LENGTH,
    )


NESTING = (
    f"comprehensions (map, filter, exists, all) nested more than {MAX_COMPREHENSION_DEPTH} deep"
)


@pytest.mark.parametrize(
    ("source", "offset"),
    [
        (NESTED_4, 27),
        # what fooled the parenthesis counting: a comment between the macro and its parenthesis,
        # a raw string ending in a backslash, a closing parenthesis inside a string
        ("a.map // hidden\n (x, b.map(y, c.map(z, d.map(w, 1))))", 39),
        (r"r'\' + a.map(x, b.map(y, c.map(z, d.map(w, 1))))", 34),
        ("')' + a.map(x, b.map(y, c.map(z, d.all(w, ')' == w))))", 33),
        ("a.all(x, [b.exists(y, {1: c.filter(z, d.exists_one(w, true))})])", 38),
        ("a.map(x, b.map(y, c.map(z, d.map(w, t, u))))", 27),
    ],
)
def test_comprehensions_nest_at_most_three_deep(source: str, offset: int) -> None:
    assert refusal(source) == (NESTING, offset)
    assert source[offset] == "d"


@pytest.mark.parametrize(
    "source",
    [
        "a.map(x, b.map(y, c.map(z, 1)))",
        "a.map(x, x).map(y, y).map(z, z).map(w, w).map(v, v)",  # chained, not nested
        "a.map(x, b.map(y, c.map(z, 1)).map(w, 1))",
        "a.all(x, x) && b.all(x, c.all(y, d.all(z, true)))",
        "x.has(y) && a.b(c.d(e.f(g)))",  # calls are not comprehensions
    ],
)
def test_comprehensions_within_the_limit(source: str) -> None:
    check(source)


@pytest.mark.parametrize(
    ("source", "what", "offset"),
    [
        ("f(x).map(y, y)", "map()", 0),
        ("l.all(x, (a - b).exists(y, true))", "exists()", 9),
        ("size(l).filter(x, true)", "filter()", 0),
        ("x.y().all(z, true)", "all()", 0),
    ],
)
def test_every_range_is_bounded(source: str, what: str, offset: int) -> None:
    assert refusal(source) == (
        f"the range of {what} must be a path, a literal, a comprehension or a concatenation of "
        "those: its size cannot be bounded",
        offset,
    )


@pytest.mark.parametrize(
    "source",
    [
        "a.b[0].c.map(x, x)",
        "[1, 2].map(x, x) + {'k': 1}.map(k, k)",
        "(a + [1]).all(x, true)",
        "(c ? a : b).all(x, x.filter(y, true).exists(z, true))",
        "dyn(a).exists(x, true)",
        "M{f: 1}.all(x, true)",
    ],
)
def test_bounded_ranges(source: str) -> None:
    check(source)


def test_an_each_must_be_bounded_too() -> None:
    with pytest.raises(WorkLimitError, match="the range of each must be a path"):
        work_model("item.x", each="f(facts)")


def test_an_expression_too_complex_to_bound_is_refused() -> None:
    outer = " + ".join(f"a{i}" for i in range(25))
    inner = " + ".join(f"b{i}" for i in range(25))
    assert refusal(f"({outer}).map(x, ({inner}).map(y, 1))") == (
        "expression too complex to bound its cost",
        0,
    )


def test_compiling_refuses_with_the_backend_error_type() -> None:
    with pytest.raises(
        cel.CelError, match=r"^comprehensions .* nested more than 3 deep \(at offset 27\)$"
    ):
        flattened(NESTED_4)
    with pytest.raises(
        cel.CelError, match=r"^expected an expression, found end of input \(at offset 3\)$"
    ):
        flattened("1 +")


# -- the bounds --------------------------------------------------------------------------------


def sizes(given: dict[str, int]) -> SizeOf:
    """A size_of from dotted paths, ``*`` standing for EACH."""
    table = {
        tuple(EACH if part == "*" else part for part in dotted.split(".")): size
        for dotted, size in given.items()
    }
    return lambda path: table.get(path, 0)


@pytest.mark.parametrize(
    ("expression", "each", "given", "bounds"),
    [
        # outside comprehensions reading and comparing take a step a node
        ("facts.memory.status == 'checked'", None, {}, (3, 0)),
        # iterating multiplies; a map builds a list of its results
        ("l.map(x, x.name)", None, {"l": 10, "l.*.name": 7}, (2 + 3 * 10, 10 + 10 * 7)),
        # work on values other than the element repeats per element
        ("l.all(x, s == x)", None, {"l": 10, "s": 5}, (2 + 4 * 10 + 2 * 10 * 5, 0)),
        ("l.exists(x, x in m)", None, {"l": 10, "m": 3, "l.*": 2}, (2 + 40 + 30 + 60, 0)),
        ("s.contains(t)", None, {"s": 100, "t": 10}, (3 + 1000, 0)),
        ("s.contains('abc')", None, {"s": 100}, (3, 0)),
        # concatenation builds as much as both operands
        ("s + t", None, {"s": 100, "t": 10}, (3, 110)),
        ("string(n) + 'x'", None, {"n": 1}, (4, 2 + 65)),
        # each element of the list of a rule's each evaluates the expression once
        ("item.x == 'a'", "facts.list", {"facts.list": 20}, (2 + 7 * 20, 0)),
    ],
)
def test_bounds(
    expression: str, each: str | None, given: dict[str, int], bounds: tuple[int, int]
) -> None:
    model = work_model(expression, each)
    assert model.bounds(sizes(given)) == bounds
    assert work_bound(expression, sizes(given), each) == bounds[0]


def test_a_string_doubled_in_a_chain_of_maps_grows_exponentially() -> None:
    doubling = "[s]" + "".join(f".map(v{i}, v{i} + v{i})" for i in range(20))
    check(doubling)  # no nesting at all: only the bound catches it
    work, built = work_model(doubling).bounds(sizes({"s": 10}))
    assert built == 1 + 20 + 2 * 10 * (2**21 - 2)  # the lists, and 2s + 4s + ... twice over
    assert work > 10 * 2**20


def test_models_add_up_and_options_fill_in_before_documents() -> None:
    model = work_model("l.all(x, x in options.allowed)") + work_model("s + t")
    assert isinstance(model, WorkModel)
    filled = model.specialise("options", sizes({"options.allowed": 4}))
    document = {"l": 10, "l.*": 3, "s": 5, "t": 6}
    assert filled.bounds(sizes(document)) == model.bounds(sizes({"options.allowed": 4, **document}))
    assert filled.bounds(sizes(document)) == (2 + 10 * (4 + 4 + 3 * 4) + 3, 5 + 6)
    assert filled.work.terms.keys() == {(), (("l",),), (("l", EACH), ("l",))}


def test_a_model_without_document_terms_never_asks_for_a_size() -> None:
    def no_lookups(path: Path) -> int:
        raise AssertionError(path)

    expression = "facts.memory.status == 'checked' && workload.spec.x in ['a', 'b']"
    assert work_model(expression).bounds(no_lookups) == (10, 2)


LABELS = {f"team-{i}": f"value-{i}" for i in range(1000)}
DOCUMENT: dict[str, Any] = {
    "workload": {"metadata": {"name": "chat", "notes": "n" * 1000, "labels": LABELS}}
}


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        (
            "workload.metadata.labels.map(a, workload.metadata.labels.map(b, "
            "workload.metadata.labels.map(c, 1)))",
            "evaluating it could take 3,004,003,002 steps on this document (limit 1,000,000)",
        ),
        (
            "workload.metadata.labels.all(a, workload.metadata.labels.exists(b, a == b))",
            "evaluating it could take 5,003,002 steps on this document (limit 1,000,000)",
        ),
        (
            "[workload.metadata.name]" + "".join(f".map(v{i}, v{i} + v{i})" for i in range(20)),
            "evaluating it could take 8,388,694 steps on this document (limit 1,000,000)",
        ),
        (
            " + ".join(["workload.metadata.notes"] * 50),  # no loop: 2 + 3 + ... + 50 notes
            "it could build values of 1,274,000 elements or characters on this document "
            "(limit 1,000,000)",
        ),
    ],
)
def test_the_reviewers_attacks_are_refused_before_they_run(expression: str, message: str) -> None:
    check(expression)  # each is fine at load: it is the document that makes it expensive
    assert over_work_limit(work_model(expression), document_sizes(DOCUMENT)) == message


def test_the_same_expression_passes_on_a_small_document() -> None:
    expression = "workload.metadata.labels.all(a, workload.metadata.labels.exists(b, a == b))"
    small = {"workload": {"metadata": {"labels": dict(list(LABELS.items())[:100])}}}
    assert over_work_limit(work_model(expression), document_sizes(small)) is None


def test_document_sizes() -> None:
    size_of = document_sizes(
        {
            "d": {"s": "abcd", "n": 7, "null": None, "l": [{"a": "xy"}, {"a": "xyz"}, {}]},
            "m": {"key": [1, 2], "longer-key": "v"},
        }
    )
    assert size_of(("d",)) == 4
    assert size_of(("d", "s")) == 4
    assert size_of(("d", "n")) == size_of(("d", "null")) == 1
    assert size_of(("d", "l")) == 3
    assert size_of(("d", "l", 1, "a")) == 3
    assert size_of(("d", "l", EACH, "a")) == 3  # the largest element's
    assert size_of(("d", "l", ANY)) == 1
    assert size_of(("m", EACH)) == len("longer-key")  # iterating a map yields its keys
    assert size_of(("m", ANY)) == 2  # indexing it yields its values
    for missing in [("x",), ("d", "zz"), ("d", "l", 5), ("d", "s", 0), ("d", "s", EACH), ("m", 0)]:
        assert size_of(missing) == 0


# -- the built-in rules on realistic documents -------------------------------------------------


def rule_model(rule: CompiledRule) -> WorkModel:
    """Everything a rule evaluates on a document, its messages included."""
    meta = rule.meta
    model = work_model(meta.applies or "true") + work_model(meta.each or "true")
    for check_ in meta.checks:
        fields = [check_.violation, check_.related]
        fields += [text for text, _ in placeholders(check_.message) + placeholders(check_.path)]
        for text in fields:
            if text is not None:
                model = model + work_model(text, meta.each)
    return model


def realistic_documents() -> Iterator[tuple[str, dict[str, Any]]]:
    manifests = collect(discover(["examples", "tests/compliant", "tests/rules"])).manifests
    run = run_index(manifests)
    for manifest in manifests:
        yield manifest.file, activation(manifest, run=run)


def test_the_built_in_rules_fit_the_budget_on_every_example_and_fixture() -> None:
    rules = [rule for rule in load_rulebook([bundled("rules")]) if not rule.meta.engine]
    models = {rule.id: rule_model(rule) for rule in rules}
    worst = [0, 0]
    documents = 0
    for file, variables in realistic_documents():
        documents += 1
        size_of = document_sizes(variables)
        for rule in rules:
            options = {name: spec.default for name, spec in rule.meta.options.items()}
            model = models[rule.id].specialise("options", document_sizes({"options": options}))
            assert over_work_limit(model, size_of) is None, (rule.id, file)
            worst = [max(old, new) for old, new in zip(worst, model.bounds(size_of), strict=True)]
    assert documents > 100
    assert worst[0] < MAX_WORK // 100 and worst[1] < MAX_VALUE_SIZE // 100  # ample headroom
