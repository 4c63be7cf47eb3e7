"""Flattening rule expressions: the rewrite is exact, and evaluation gives the same answers."""

from __future__ import annotations

import pytest

from linter.cel import backend as cel
from linter.cel.flat_names import MISSING, resolve
from linter.cel.flatten import flatten
from linter.cel.syntax import CelSyntaxError

ROOTS = {"workload", "facts"}


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            'workload.spec.resources.capacity == "spot"',
            'workload__spec__resources__capacity == "spot"',
        ),
        ("has(workload.spec.model.id)", "has(workload__spec__model.id)"),
        (
            "workload.spec.endpoints.map(e, e.provider)",
            "workload__spec__endpoints.map(e, e.provider)",
        ),
        ("workload.spec.endpoints[0].region", "workload__spec__endpoints[0].region"),
        (
            '"workload.spec.x" + workload.metadata.name',
            '"workload.spec.x" + workload__metadata__name',
        ),
        ("item.requests.expected > 1e9", "item.requests.expected > 1e9"),
        ("facts . memory . status", "facts__memory__status"),
        ("workload", "workload"),
        # hostile and unusual spellings: the rewrite works on the syntax tree, not the text
        (
            "workload.spec.endpoints.map(e, // a comment\n e.region)",
            "workload__spec__endpoints.map(e, // a comment\n e.region)",
        ),
        ("workload . // comment\n spec . x", "workload__spec__x"),
        (
            r"""workload.spec.a == r'\' && workload.spec.b == r"\" """,
            r"""workload__spec__a == r'\' && workload__spec__b == r"\" """,
        ),
        (
            r"r'\' + 'workload.spec.x' + workload.spec.y",
            r"r'\' + 'workload.spec.x' + workload__spec__y",
        ),
        (
            """'workload.spec.a' + "workload.spec.b" + '''x workload.spec.c''' + workload.spec.d""",
            """'workload.spec.a' + "workload.spec.b" + '''x workload.spec.c''' + workload__spec__d""",
        ),
        (
            r"'it\'s workload.spec.x' + workload.spec.y",
            r"'it\'s workload.spec.x' + workload__spec__y",
        ),
        ("(workload).spec.x + (workload.spec).y", "workload__spec__x + workload__spec__y"),
        ("has(workload.spec)", "has(workload.spec)"),
        ("has((workload.spec).model.id)", "has(workload__spec__model.id)"),
        ("workload.metadata.name.startsWith('a')", "workload__metadata__name.startsWith('a')"),
        ("workload.metadata.labels['team']", "workload__metadata__labels['team']"),
        (
            "workload.spec.endpoints.map(workload, workload.region)",
            "workload__spec__endpoints.map(workload, workload.region)",
        ),
        (
            "facts.a.all(x, facts.b.exists(facts, facts.c == x.d))",
            "facts__a.all(x, facts__b.exists(facts, facts.c == x.d))",
        ),
        (".workload.spec.x", ".workload.spec.x"),
        ("workload.spec.a__b.c", "workload__spec.a__b.c"),
        ("workload.a__b", "workload.a__b"),
        ("workload.spec.M{x: workload.spec.y}", "workload.spec.M{x: workload__spec__y}"),
    ],
)
def test_rewrite(source: str, expected: str) -> None:
    assert flatten(source, ROOTS) == expected


def test_rewrite_refuses_what_is_not_cel() -> None:
    with pytest.raises(CelSyntaxError):
        flatten("workload.spec.(", ROOTS)


def test_resolve_tells_null_from_missing() -> None:
    activation = {"workload": {"spec": {"a": None, "b": {"c": 1}}}}
    assert resolve(activation, "workload__spec__a") is None
    assert resolve(activation, "workload__spec__b__c") == 1
    assert resolve(activation, "workload__spec__zz") is MISSING
    assert resolve(activation, "workload__spec__b__c__d") is MISSING


@pytest.mark.parametrize(
    "source",
    [
        'workload.spec.resources.capacity == "spot"',
        "workload.spec.checkpointing.enabled == null",
        "size(workload.spec.endpoints) == 2 && workload.spec.endpoints[1].region == 'us'",
        "workload.spec.endpoints.exists(e, e.region == 'eu')",
        "has(workload.spec.model.id) && !has(workload.spec.model.config)",
        "facts.memory.estimate.fits || facts.memory.gib.required > 10.0",
        "workload.spec.endpoints.exists(e, // workload.spec.x\n e.region == r'\\')",
        "workload.spec.endpoints.map(workload, workload.region) == ['eu', 'us']",
        "(workload.spec).resources['capacity'] + ' workload.spec' == 'spot workload.spec'",
    ],
)
def test_flattened_and_plain_evaluate_the_same(source: str) -> None:
    activation = {
        "workload": {
            "spec": {
                "resources": {"capacity": "spot"},
                "checkpointing": {"enabled": None},
                "endpoints": [{"region": "eu"}, {"region": "us"}],
                "model": {"id": "m"},
            }
        },
        "facts": {"memory": {"estimate": {"fits": False}, "gib": {"required": 12.5}}},
    }
    plain = cel.evaluate(cel.compile_expression(source), cel.new_context(activation))
    program = cel.compile_expression(flatten(source, ROOTS))
    names = {name: resolve(activation, name) for name in program.variables()}
    flat = cel.evaluate(
        program, cel.new_context({k: v for k, v in names.items() if v is not MISSING})
    )
    assert flat == plain
