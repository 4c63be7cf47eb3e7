"""Facts are records that hold what a lax pydantic model of the same fields would have made of
the same arguments, and give the data its ``model_dump(mode="json", by_alias=True)`` gave."""

from __future__ import annotations

import dataclasses
import json
import typing
from enum import Enum
from typing import Any, Literal

import pytest
from pydantic.alias_generators import to_camel

import linter.facts  # noqa: F401 - every provider's fact classes
from linter.declared import camel_case, resolved_annotations
from linter.facts.base import Fact, described
from linter.facts.entry import twin
from linter.facts.memory import MemoryRecord


class Colour(str, Enum):
    RED = "red"


class Inner(Fact):
    """A nested part."""

    ratio: float = described("A share.")
    seen: bool


class Sample(Fact):
    share: float | None = described("A float that may be missing.")
    count: int
    flag: bool
    word: str
    kind: Literal["a", "b"]
    level: Literal["low", "high"] | None
    words: list[str]
    terms: dict[str, float]
    part: Inner | None
    parts: list[Inner]


class SampleGiB(MemoryRecord):
    weights_gib: float


ARGUMENTS: list[dict[str, Any]] = [
    # an int given to a float, a float with no fraction to an int, 0/1 to a bool
    {"share": 3, "count": 2.0, "flag": 1, "word": "x", "kind": "a", "words": [], "terms": {}}
    | {"level": None},
    # an enum's value to a str, a tuple to a list, ints to a dict of floats
    {
        "share": None,
        "count": True,
        "flag": False,
        "word": Colour.RED,
        "kind": "b",
        "level": "high",
        "words": ("p", "q"),
        "terms": {"weights": 1, "kv": 2.5},
    },
    {"share": float("inf"), "count": 7, "flag": True, "word": "", "kind": "a", "words": ["z"]}
    | {"level": "low", "terms": {"x": True}},
]


def _nested(arguments: dict[str, Any], inner: type[Any]) -> dict[str, Any]:
    return {**arguments, "part": inner(ratio=1, seen=0), "parts": [inner(ratio=0.5, seen=True)]}


@pytest.mark.parametrize("arguments", ARGUMENTS)
def test_a_fact_holds_and_gives_what_its_pydantic_twin_did(arguments: dict[str, Any]) -> None:
    fact = Sample(**_nested(arguments, Inner))
    model = twin(Sample)(**_nested(arguments, twin(Inner)))
    expected = model.__pydantic_serializer__.to_python(model, mode="json", by_alias=True)
    # json.dumps tells 3 from 3.0 and True from 1, which == does not
    assert json.dumps(fact.as_data()) == json.dumps(expected)
    fields = type(model).model_fields
    assert [type(getattr(fact, name)).__name__ for name in fields] == [
        type(getattr(model, name)).__name__ for name in fields
    ]


def test_data_keys_are_camel_case_and_a_memory_record_spells_gib() -> None:
    fact = Sample(**_nested(ARGUMENTS[0], Inner))
    assert list(fact.as_data()) == [
        "share",
        "count",
        "flag",
        "word",
        "kind",
        "level",
        "words",
        "terms",
        "part",
        "parts",
    ]
    assert SampleGiB(weights_gib=2).as_data() == {"weightsGiB": 2.0}


def test_the_data_is_a_copy_of_the_fact_s_lists() -> None:
    fact = Sample(**_nested(ARGUMENTS[0], Inner))
    data = fact.as_data()
    data["words"].append("changed")
    data["parts"][0]["ratio"] = 9
    assert fact.words == [] and fact.parts[0].ratio == 0.5


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("kind", "c", ValueError),  # not one of its literals, as pydantic refused it
        ("level", "mid", ValueError),  # nor of an optional field's
        ("count", 2.5, ValueError),  # a fraction is not a count
        ("flag", 2, ValueError),
        ("word", 5, TypeError),
    ],
)
def test_a_value_pydantic_refused_is_refused(field: str, value: Any, error: type) -> None:
    arguments = {**_nested(ARGUMENTS[0], Inner), field: value}
    with pytest.raises(error):
        Sample(**arguments)


def test_a_field_of_a_type_facts_do_not_hold_is_refused_when_first_made() -> None:
    class Odd(Fact):
        pair: int | str

    with pytest.raises(TypeError, match="a fact field cannot be"):
        Odd(pair=1)


def _fact_classes(cls: type[Fact] = Fact) -> list[type[Fact]]:
    """gpulint's fact classes (every provider's module is imported by linter.facts)."""
    found = []
    for sub in cls.__subclasses__():
        if sub.__module__.startswith("linter."):
            found.append(sub)
        found += _fact_classes(sub)
    return found


def test_every_fact_key_is_the_one_pydantic_s_camel_case_made() -> None:
    names = {field.name for cls in _fact_classes() for field in dataclasses.fields(cls)}
    assert len(_fact_classes()) >= 35 and len(names) > 200
    assert {name: camel_case(name) for name in names} == {name: to_camel(name) for name in names}


def test_every_fact_classs_annotations_resolve_as_typing_resolves_them() -> None:
    """What a fact's plan is made from (linter/facts/base.py): no Annotated is stripped."""
    for cls in _fact_classes():
        assert resolved_annotations(cls, Fact) == typing.get_type_hints(cls), cls


def test_a_fact_is_a_keyword_only_record_with_its_own_docstring() -> None:
    assert Inner.__doc__ == "A nested part."
    assert Sample.__doc__ is None  # not the signature dataclasses would write
    with pytest.raises(TypeError):
        Inner(0.5, True)  # type: ignore[misc]
    assert repr(Inner(ratio=1, seen=True)) == "Inner(ratio=1.0, seen=True)"
