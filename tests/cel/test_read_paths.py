"""The paths an expression reads, and their check against JSON Schemas as pydantic writes them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel

from linter.cel.read_paths import (
    PathProblem,
    PathUse,
    Wildcard,
    check_paths,
    element_of,
    format_path,
    paths,
)

REPO = Path(__file__).resolve().parents[2]
EACH, ANY = Wildcard.EACH, Wildcard.ANY


def read(expression: str, **bindings: Any) -> list[tuple[str, str, bool]]:
    """Each use as (path, source text of the use, may be absent)."""
    return [
        (format_path(use.path), expression[use.start : use.end], use.may_be_absent)
        for use in paths(expression, bindings)
    ]


def test_a_comprehension_variable_is_an_element_of_its_range() -> None:
    assert read("facts.pool.conflicts.map(c, c.name + c.file)") == [
        ("facts.pool.conflicts", "facts.pool.conflicts", False),
        ("facts.pool.conflicts[*].name", "c.name", False),
        ("facts.pool.conflicts[*].file", "c.file", False),
    ]


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("workload", [("workload", "workload", False)]),
        ("has(facts.memory.estimate)", [("facts.memory.estimate", "facts.memory.estimate", True)]),
        ("has(f(x).y)", [("x", "x", False)]),
        ("has(l[i].x)", [("l[*].x", "l[i].x", True), ("i", "i", False)]),
        ('m["key"].b', [("m.key.b", 'm["key"].b', False)]),
        ('m["a b"]', [("m['a b']", 'm["a b"]', False)]),
        ("l[0].x + l[1u]", [("l[0].x", "l[0].x", False), ("l[1]", "l[1u]", False)]),
        ("l[i].x", [("l[*].x", "l[i].x", False), ("i", "i", False)]),
        ("l[a.b + 1]", [("l[*]", "l[a.b + 1]", False), ("a.b", "a.b", False)]),
        ("(workload.spec).x", [("workload.spec.x", "(workload.spec).x", False)]),
        ("a.b.size() > 0", [("a.b", "a.b", False)]),
        ("[1, 2][0]", []),
        ("f(x).y", [("x", "x", False)]),
        ("M{f: a.b}", [("a.b", "a.b", False)]),
        ("l.map(x, x)", [("l", "l", False)]),
        (
            "l.filter(x, x.ok).map(y, y.name)",
            [("l", "l", False), ("l[*].ok", "x.ok", False), ("l[*].name", "y.name", False)],
        ),
        ("dyn(l).all(x, x.ok)", [("l", "l", False), ("l[*].ok", "x.ok", False)]),
        (
            "a.all(x, x.b.exists(y, y.c && x.d))",
            [
                ("a", "a", False),
                ("a[*].b", "x.b", False),
                ("a[*].b[*].c", "y.c", False),
                ("a[*].d", "x.d", False),
            ],
        ),
        ("[a, b].all(x, x.c)", [("a", "a", False), ("b", "b", False)]),
        ("f(l).map(x, x.y)", [("l", "l", False)]),
        (
            "l.map(facts, facts.x) + facts.y",
            [("l", "l", False), ("l[*].x", "facts.x", False), ("facts.y", "facts.y", False)],
        ),
        ("l.map(x, has(x.a))", [("l", "l", False), ("l[*].a", "x.a", True)]),
    ],
)
def test_paths(expression: str, expected: list[tuple[str, str, bool]]) -> None:
    assert read(expression) == expected


def test_bindings_stand_for_paths_or_for_values_not_checked() -> None:
    each = ("facts", "quota", "accelerators", EACH)
    assert read("item.region == null ? index : item.x.y", item=each, index=None) == [
        ("facts.quota.accelerators[*].region", "item.region", False),
        ("facts.quota.accelerators[*].x.y", "item.x.y", False),
    ]
    assert read("item.z.map(v, v.w)", item=each) == [
        ("facts.quota.accelerators[*].z", "item.z", False),
        ("facts.quota.accelerators[*].z[*].w", "v.w", False),
    ]
    assert read("item.a + item", item=None) == []


@pytest.mark.parametrize(
    ("each", "element"),
    [
        ("facts.quota.accelerators", ("facts", "quota", "accelerators", EACH)),
        ("facts.a.filter(x, x.ok)", ("facts", "a", EACH)),
        ("dyn(m['k'])", ("m", "k", EACH)),
        ("facts.a.map(x, x.b)", None),
        ("[facts.a]", None),
    ],
)
def test_element_of_a_rules_each(each: str, element: tuple[object, ...] | None) -> None:
    assert element_of(each) == element


def test_each_segment_has_the_span_of_its_text() -> None:
    source = "x.map(c, c . name)  + m['k'][0]"
    uses = paths(source)
    assert [[source[a:b] for a, b in use.spans] for use in uses] == [
        ["x"],
        ["c", "c", "name"],
        ["m", "'k'", "0"],
    ]
    assert uses[1] == PathUse(("x", EACH, "name"), 9, 17, ((9, 10), (9, 10), (13, 17)))


def test_format_path() -> None:
    assert format_path(("a", "b", 0, EACH, "c d", ANY, "e")) == "a.b[0][*]['c d'][*].e"


# -- checking against schemas ------------------------------------------------------------------


class Estimate(BaseModel):
    parameters: int
    precision: str | None = None
    gpus: int = 1


class Suggestion(BaseModel):
    gpu: str
    child: Suggestion | None = None  # a recursive model: a $ref to itself


class Memory(BaseModel):
    status: Literal["checked", "unknown-model"]
    estimate: Estimate | None = None
    suggestions: list[Suggestion] = []
    perGpu: dict[str, float] = {}
    pair: tuple[int, str] = (0, "")
    config: dict[str, Any] = {}
    anything: Any = None


class Facts(BaseModel):
    memory: Memory


SCHEMAS = {
    "facts": Facts.model_json_schema(),
    "workload": json.loads((REPO / "schemas" / "workload.schema.json").read_text()),
    "options": {
        "type": "object",
        "properties": {"minHeadroom": {"type": "number"}, "n": {"type": "integer"}},
    },
}


def problems(expression: str, **bindings: Any) -> list[tuple[str, str]]:
    return [
        (expression[problem.start : problem.end], problem.message)
        for problem in check_paths(paths(expression, bindings), SCHEMAS)
    ]


@pytest.mark.parametrize(
    "expression",
    [
        "facts.memory.estimate.parameters > 0 && facts.memory.estimate.precision == null",
        "facts.memory.status == 'checked' && has(facts.memory.estimate.gpus)",
        "facts.memory.suggestions.exists(s, s.gpu == 'L4' && s.child.child.gpu != '')",
        "facts.memory.suggestions[0].gpu + facts.memory.suggestions[options.n].child.gpu",
        "facts.memory.perGpu.anyKey + facts.memory.perGpu['H100-80GB']",
        "facts.memory.perGpu.all(k, k.size() > 0)",
        "facts.memory.pair[0] + facts.memory.pair[1].size()",
        "facts.memory.config.num_hidden_layers.whatever[3]",
        "facts.memory.anything.at.all",
        "workload.metadata.labels.team + workload.spec.endpoints[0].region",
        "workload.spec.endpoints.map(e, e.provider + e.region)",
        "options.minHeadroom * 2.0",
        "[1, 2].map(x, x.anything) + f(facts).nothing",
    ],
)
def test_paths_the_schemas_have(expression: str) -> None:
    assert problems(expression) == []


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        (
            "facts.memory.estimate.paramters > 0",
            [
                (
                    "paramters",
                    "facts.memory.estimate has no field 'paramters' (did you mean 'parameters'?)",
                )
            ],
        ),
        (
            "has(facts.memory.estimat)",
            [("estimat", "facts.memory has no field 'estimat' (did you mean 'estimate'?)")],
        ),
        ("facts.memory.zzz", [("zzz", "facts.memory has no field 'zzz'")]),
        (
            "facts.memory.suggestions.exists(s, s.gpuu == 'L4')",
            [("gpuu", "facts.memory.suggestions[*] has no field 'gpuu' (did you mean 'gpu'?)")],
        ),
        (
            "facts.memory.suggestions[0].child.child.gpus",
            [
                (
                    "gpus",
                    "facts.memory.suggestions[0].child.child has no field 'gpus' (did you mean 'gpu'?)",
                )
            ],
        ),
        (
            "facts.memory.suggestions.gpu",
            [("gpu", "facts.memory.suggestions is a list: it has no field 'gpu'")],
        ),
        (
            "facts.memory.status.value",
            [("value", "facts.memory.status is a string: it has no field 'value'")],
        ),
        (
            "facts.memory.estimate.gpus[0]",
            [("0", "facts.memory.estimate.gpus is an integer: it has no item [0]")],
        ),
        (
            "facts.memory.estimate[0]",
            [("0", "facts.memory.estimate is an object: it has no item [0]")],
        ),
        ("facts.memory.pair[2]", [("2", "facts.memory.pair has no item [2]")]),
        (
            "facts.memory.perGpu.all(k, k.x)",
            [("x", "facts.memory.perGpu[*] is a string: it has no field 'x'")],
        ),
        (
            "workloadd.spec",
            [("workloadd", "unknown variable 'workloadd' (did you mean 'workload'?)")],
        ),
        ("item.x", [("item", "unknown variable 'item'")]),
        (
            "workload.spec.modle.id && workload.spec.endpoints.all(e, e.regoin == 'eu')",
            [
                ("modle", "workload.spec has no field 'modle' (did you mean 'model'?)"),
                (
                    "regoin",
                    "workload.spec.endpoints[*] has no field 'regoin' (did you mean 'region'?)",
                ),
            ],
        ),
        (
            "workload.spec.resources.acelerator",
            [
                (
                    "acelerator",
                    "workload.spec.resources has no field 'acelerator' (did you mean 'accelerator'?)",
                )
            ],
        ),
        (
            "options.minHeadrom",
            [("minHeadrom", "options has no field 'minHeadrom' (did you mean 'minHeadroom'?)")],
        ),
    ],
)
def test_paths_no_document_can_have(expression: str, expected: list[tuple[str, str]]) -> None:
    assert problems(expression) == expected


def test_a_bound_item_is_checked_through_its_path_and_shown_at_its_name() -> None:
    each = ("workload", "spec", "endpoints", EACH)
    assert problems("item.regoin", item=each) == [
        ("regoin", "workload.spec.endpoints[*] has no field 'regoin' (did you mean 'region'?)")
    ]
    assert problems("item", item=("workload", "spec", "nothing", EACH)) == []  # not a read of more
    assert problems("item.x", item=("workload", "spec", "nothing", EACH)) == [
        ("item", "workload.spec has no field 'nothing'")
    ]


def test_suggestions_name_up_to_three_close_fields_best_first() -> None:
    schema = {
        "type": "object",
        "properties": {name: {"type": "string"} for name in ("gpu", "gpus", "gpux", "gpuz", "cpu")},
    }
    [problem] = check_paths(paths("x.gpuy"), {"x": schema})
    assert problem == PathProblem(
        2, 6, "x has no field 'gpuy' (did you mean 'gpu', 'gpuz' or 'gpux'?)"
    )


def test_schema_shapes_pydantic_does_not_write_are_read_leniently() -> None:
    schemas: dict[str, dict[str, Any]] = {
        "open": {"type": "object"},  # no properties: any key
        "patterned": {"type": "object", "properties": {"a": {}}, "patternProperties": {"^x": {}}},
        "elsewhere": {"$ref": "https://example.com/schema.json"},
        "typed": {"type": ["object", "null"], "properties": {"a": {"type": "integer"}}},
        "closed": {"type": "object", "properties": {}, "additionalProperties": False},
        "items": {"type": "array", "items": False, "prefixItems": [{"type": "string"}]},
    }
    uses = paths("open.a.b + patterned.xyz + elsewhere.q + typed.a + items[0]")
    assert check_paths(uses, schemas) == []
    assert [p.message for p in check_paths(paths("typed.b + closed.c + items[1]"), schemas)] == [
        "typed has no field 'b'",
        "closed has no field 'c'",
        "items has no item [1]",
    ]
