"""Message placeholders: which are plain paths (rendered by lookup) and which decide."""

from __future__ import annotations

import pytest

from linter.cel.syntax import CelSyntaxError
from linter.policy.cel_placeholders import decisions, plain_lookup

ROOTS = frozenset({"facts", "workload"})


@pytest.mark.parametrize(
    ("expression", "lookup"),
    [
        ("facts.memory.reason", ("facts__memory__reason", ())),
        ("options", ("options", ())),
        (" item . quotas [0] ", ("item", ("quotas", 0))),
        ("workload.metadata.labels['team'].x", ("workload__metadata__labels", ("team", "x"))),
        ("(facts.cost).spotPerHour", ("facts__cost__spotPerHour", ())),
        ("facts.a__b.c", ("facts", ("a__b", "c"))),
        ("item.a__b", ("item", ("a__b",))),
        ("l[1]", ("l", (1,))),
        ("l[1u]", None),
        ("l[true]", None),
        ("l[i]", None),
        ("l[-1]", None),
        (".facts.x", None),
        ("double(facts.memory.estimate.parameters) / 1e9", None),
        ("facts.x.size()", None),
        ("has(facts.x)", None),
        ("'facts.x'", None),
        ("f(x).y", None),
        ("facts.memory.estimate.headroomFraction * 100.0", None),
        ("[facts.x][0]", None),
    ],
)
def test_plain_lookup(expression: str, lookup: tuple[str, tuple[str | int, ...]] | None) -> None:
    assert plain_lookup(expression, ROOTS) == lookup


def spans_of(expression: str) -> list[str]:
    return [expression[start:end] for start, end in decisions(expression)]


@pytest.mark.parametrize(
    ("expression", "found"),
    [
        ("facts.memory.reason", []),
        ("a + b", []),  # numbers or lists: nothing says it is text
        ("a + 1", []),
        ("x ? 'y' : 'z'", ["x ? 'y' : 'z'"]),
        ("'in ' + item.region", ["'in ' + item.region"]),
        ("a + b + string(c) + d", ["a + b + string(c) + d"]),
        ("a + (b + 'x')", ["a + (b + 'x')"]),
        ("x.string(c) + d", []),  # a method named string is not the conversion
        (
            "c ? 'in ' + r : s",
            ["c ? 'in ' + r : s", "'in ' + r"],
        ),
        (
            "[a + 'x', b + 'y']",
            ["a + 'x'", "b + 'y'"],
        ),
        (
            "l.map(e, e.name + ' in ' + e.file)",
            ["e.name + ' in ' + e.file"],
        ),
        ("(a + 'x').size() + b", ["(a + 'x')"]),  # a span includes the parentheses
    ],
)
def test_decisions(expression: str, found: list[str]) -> None:
    assert spans_of(expression) == found


def test_decisions_of_the_built_in_rule_gl209_message() -> None:
    expression = (
        'facts.cost.managedApi.breakEven == null ? "; declare it" : ": at " '
        '+ string(workload.spec.serving.expectedTokensPerMinute) + " tokens/min, " '
        '+ (facts.cost.managedApi.breakEven.cheaper == "api" ? "the API" : "self-hosting")'
    )
    assert spans_of(expression) == [
        expression,
        expression[expression.index('": at "') :],
        expression[expression.index("(facts.cost.managedApi.breakEven.cheaper") :],
    ]


def test_both_refuse_what_is_not_cel() -> None:
    with pytest.raises(CelSyntaxError):
        plain_lookup("facts.", ROOTS)
    with pytest.raises(CelSyntaxError):
        decisions("a ?")
