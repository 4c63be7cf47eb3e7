"""Declared records (linter/declared): defined without pydantic, they validate, describe their
schema, dump and compare as the pydantic model written the same way does (every declaration the
catalogue and vocabulary modules use is written here both ways)."""

from __future__ import annotations

import json
import subprocess
import sys
import typing
from collections.abc import Iterator
from typing import Annotated, Any, ClassVar, Literal

import pydantic
import pytest
from conftest import REPO
from pydantic.alias_generators import to_camel

from linter import declared
from linter.declared import Record, model_validator
from linter.declared.building import built
from linter.declared.twins import as_twin, twin

Name = Annotated[str, declared.Field(pattern=r"^[a-z]+$", description="Lower-case letters.")]
Code = Annotated[str, declared.StringConstraints(pattern=r"^L-[0-9]{2}$")]


def _even(value: int) -> int:
    if value % 2:
        raise ValueError("not even")
    return value


Even = Annotated[int, declared.AfterValidator(_even)]


def _fresh() -> list[str]:
    return []


class Part(Record):
    """A nested record."""

    name: Name
    weight: float = declared.Field(1, gt=0, description="Kilograms.")


class Whole(Record):
    """Every declaration a record may use."""

    LIMIT: ClassVar[int] = 3

    kind: Literal["a", "b"]
    parts: list[Part] = declared.Field(min_length=1)
    spare: Part | None = None
    on_demand: list[Code] = declared.Field(default_factory=_fresh, alias="on-demand")
    size: int | float = 0
    tags: frozenset[str] = frozenset()
    limits: dict[str, Even] = declared.Field(default_factory=dict)
    note: str | None = declared.Field(None, min_length=1)
    _index: dict[str, Part] = declared.PrivateAttr(default_factory=dict)

    def model_post_init(self, context: Any, /) -> None:
        for part in self.parts:
            self._index[part.name] = part

    @model_validator(mode="after")
    def _not_too_many(self) -> Whole:
        if len(self.parts) > self.LIMIT:
            raise ValueError(f"at most {self.LIMIT} parts")
        return self

    @property
    def heaviest(self) -> str:
        return max(self.parts, key=lambda part: part.weight).name

    def part(self, name: str) -> Part | None:
        return self._index.get(name)


class ModelBase(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(frozen=True, extra="forbid", strict=True)


PName = Annotated[str, pydantic.Field(pattern=r"^[a-z]+$", description="Lower-case letters.")]
PCode = Annotated[str, pydantic.StringConstraints(pattern=r"^L-[0-9]{2}$")]
PEven = Annotated[int, pydantic.AfterValidator(_even)]


class ModelPart(ModelBase):
    """A nested record."""

    name: PName
    weight: float = pydantic.Field(1, gt=0, description="Kilograms.")


class ModelWhole(ModelBase):
    """Every declaration a record may use."""

    LIMIT: ClassVar[int] = 3

    kind: Literal["a", "b"]
    parts: list[ModelPart] = pydantic.Field(min_length=1)
    spare: ModelPart | None = None
    on_demand: list[PCode] = pydantic.Field(default_factory=_fresh, alias="on-demand")
    size: int | float = 0
    tags: frozenset[str] = frozenset()
    limits: dict[str, PEven] = pydantic.Field(default_factory=dict)
    note: str | None = pydantic.Field(None, min_length=1)
    _index: dict[str, ModelPart] = pydantic.PrivateAttr(default_factory=dict)

    def model_post_init(self, context: Any, /) -> None:
        for part in self.parts:
            self._index[part.name] = part

    @pydantic.model_validator(mode="after")
    def _not_too_many(self) -> ModelWhole:
        if len(self.parts) > self.LIMIT:
            raise ValueError(f"at most {self.LIMIT} parts")
        return self


GOOD: dict[str, Any] = {
    "kind": "a",
    "parts": [{"name": "wheel", "weight": 2}, {"name": "axle"}],
    "on-demand": ["L-12"],
    "size": 3,
    "tags": frozenset({"x"}),
    "limits": {"a": 4},
}

BAD: list[dict[str, Any]] = [
    {**GOOD, "kind": "c"},
    {**GOOD, "parts": []},
    {**GOOD, "parts": [{"name": "Wheel"}]},
    {**GOOD, "parts": [{"name": "w", "weight": 0}]},
    {**GOOD, "parts": [{"name": "w"}] * 4},
    {**GOOD, "on-demand": ["L-1"]},
    {**GOOD, "limits": {"a": 3}},
    {**GOOD, "note": ""},
    {**GOOD, "size": "3"},
    {**GOOD, "extra": 1},
    {"parts": [{"name": "w"}]},
]


def _titled(data: dict[str, Any]) -> dict[str, Any]:
    """The model's schema or dump with its classes' names as the records': the only difference
    (a dump's frozensets as sorted lists, as JSON has them)."""
    text = json.dumps(data, default=sorted).replace("ModelWhole", "Whole")
    result: dict[str, Any] = json.loads(text.replace("ModelPart", "Part"))
    return result


def test_the_twin_describes_the_schema_the_model_does() -> None:
    assert Whole.model_json_schema(mode="validation") == _titled(
        ModelWhole.model_json_schema(mode="validation")
    )


@pytest.mark.parametrize("data", BAD, ids=range(len(BAD)))
def test_data_that_does_not_validate_gets_the_models_errors(data: dict[str, Any]) -> None:
    with pytest.raises(pydantic.ValidationError) as record_error:
        Whole(**data)
    with pytest.raises(pydantic.ValidationError) as model_error:
        ModelWhole.model_validate(data)
    mine = [
        {k: v for k, v in e.items() if k not in ("url", "ctx")} for e in record_error.value.errors()
    ]
    theirs = [
        {k: v for k, v in e.items() if k not in ("url", "ctx")} for e in model_error.value.errors()
    ]
    assert mine == theirs
    assert record_error.value.title == "Whole"


def test_valid_data_becomes_a_record_with_the_models_values() -> None:
    record = Whole.model_validate(GOOD)
    model = ModelWhole.model_validate(GOOD)
    assert type(record) is Whole and type(record.parts[0]) is Part
    assert record.parts[0].weight == 2.0 and type(record.parts[0].weight) is float
    assert record.parts[1].weight == 1 and record.size == 3 and type(record.size) is int
    assert record.on_demand == ["L-12"] and record.tags == frozenset({"x"})
    assert record.spare is None and record.note is None
    assert record.heaviest == "wheel" and record.part("axle") == record.parts[1]
    assert _titled(record.model_dump()) == _titled(model.model_dump())
    assert record.model_dump(mode="json", by_alias=True, exclude_none=True) == _titled(
        model.model_dump(mode="json", by_alias=True, exclude_none=True)
    )


def test_a_default_is_never_shared_between_records() -> None:
    one, other = Whole.model_validate(GOOD), Whole.model_validate(GOOD)
    assert one.limits == other.limits and one.limits is not other.limits
    assert one._index is not other._index


def test_a_record_is_immutable_but_for_its_private_attributes() -> None:
    record = Whole.model_validate(GOOD)
    with pytest.raises(AttributeError, match="Whole is immutable: cannot set 'kind'"):
        record.kind = "b"  # type: ignore[misc]
    with pytest.raises(AttributeError, match="cannot delete 'kind'"):
        del record.kind
    record._index = {}
    assert record.part("wheel") is None


def test_records_compare_hash_and_show_by_their_fields() -> None:
    one, other = Part(name="w", weight=2.0), Part(name="w", weight=2.0)
    assert one == other and hash(one) == hash(other) and one != Part(name="w")
    assert repr(one) == "Part(name='w', weight=2.0)"
    assert one.__eq__(ModelPart(name="w", weight=2.0)) is NotImplemented


def test_a_record_is_its_twins_instance_with_the_same_values() -> None:
    record = Whole.model_validate(GOOD)
    instance = as_twin(record)
    assert type(instance) is twin(Whole) and type(instance.parts[0]) is twin(Part)
    assert instance.model_dump() == record.model_dump()
    assert twin(Whole) is twin(Whole) and twin(Whole).__name__ == "Whole"
    assert twin(Whole).__doc__ == Whole.__doc__ and twin(Whole).__module__ == __name__


def test_only_validators_that_check_are_declared() -> None:
    with pytest.raises(TypeError, match="not 'before'"):
        model_validator(mode="before")


def test_defining_and_building_records_does_not_import_pydantic() -> None:
    script = (
        "import sys\n"
        "from linter.declared import Record, Field\n"
        "from linter.declared.building import built\n"
        "class Part(Record):\n"
        "    name: str = Field(min_length=1)\n"
        "    weight: float = 1\n"
        "part = built(Part, {'name': 'w', 'weight': 2})\n"
        "assert part.weight == 2.0 and type(part.weight) is float, part\n"
        "print(sorted(m for m in sys.modules if m.startswith(('pydantic', 'linter.declared'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "['linter.declared', 'linter.declared.building']"


def test_metadata_that_is_not_a_declaration_is_refused_where_a_record_is_built() -> None:
    """pydantic's own validators could change what validates: a record with one is never built
    from data that was not validated, which would hold other values than validation's."""

    class Counted(Record):
        count: Annotated[int, pydantic.BeforeValidator(int)]

    with pytest.raises(TypeError, match="is not a declaration"):
        built(Counted, {"count": 3})


class Inner(declared.CamelRecord):
    """Nested, made by its class when left out."""

    max_tokens: int = 1


class Outer(declared.CamelRecord):
    """Spelled in camelCase in files."""

    cache_gib: float
    inner: Inner = declared.Field(default_factory=Inner)


class ModelInner(pydantic.BaseModel):
    """Nested, made by its class when left out."""

    model_config = pydantic.ConfigDict(
        frozen=True, extra="forbid", strict=True, alias_generator=to_camel, populate_by_name=True
    )

    max_tokens: int = 1


class ModelOuter(pydantic.BaseModel):
    """Spelled in camelCase in files."""

    model_config = ModelInner.model_config

    cache_gib: float
    inner: ModelInner = pydantic.Field(default_factory=ModelInner)


def test_a_camel_case_record_reads_both_spellings_as_the_model_does() -> None:
    assert Outer.model_json_schema(by_alias=True) == _titled(
        json.loads(
            json.dumps(ModelOuter.model_json_schema(by_alias=True))
            .replace("ModelOuter", "Outer")
            .replace("ModelInner", "Inner")
        )
    )
    for data in ({"cacheGib": 1}, {"cache_gib": 1.5, "inner": {"maxTokens": 2}}):
        record, model = Outer.model_validate(data), ModelOuter.model_validate(data)
        assert (record.cache_gib, record.inner.max_tokens) == (
            model.cache_gib,
            model.inner.max_tokens,
        )
        assert type(record.inner) is Inner and type(record.cache_gib) is float
        assert built(Outer, data) == record
    with pytest.raises(pydantic.ValidationError):
        Outer.model_validate({"cacheGib": 1, "extra": 2})


def test_a_field_given_by_alias_and_by_name_is_refused_as_the_model_refuses_it() -> None:
    """pydantic takes the name beside the alias for an unknown key: the checker declines such
    data and the twin reports it (so a builder never sees it)."""
    data = {"cacheGib": 1.0, "cache_gib": 2.0}
    with pytest.raises(pydantic.ValidationError) as theirs:
        ModelOuter.model_validate(data)
    with pytest.raises(pydantic.ValidationError) as ours:
        Outer.model_validate(data)
    assert ours.value.errors() == theirs.value.errors()


def test_an_absent_part_is_one_shared_empty_record_and_a_given_one_its_own() -> None:
    left_out, again = built(Outer, {"cacheGib": 1}), built(Outer, {"cacheGib": 2})
    assert left_out.inner is again.inner and left_out.inner == Inner()
    assert built(Outer, {"cacheGib": 1, "inner": {}}).inner is not left_out.inner


def test_data_that_is_not_a_mapping_is_refused_where_a_record_is_built() -> None:
    """A damaged start-up cache entry is rebuilt from its file (linter/policy/loader.py) on a
    TypeError, ValueError or KeyError."""
    with pytest.raises(TypeError, match="the data of a record is a mapping, not list"):
        built(Outer, [])


def test_every_camel_case_field_is_spelled_as_pydantics_generator_spells_it() -> None:
    """The rule file's spelling is published (schemas/rule.schema.json, by pydantic's
    ``to_camel`` before records): the declared generator must spell every field the same."""
    import linter.config
    import linter.policy.rule_file  # noqa: F401

    def subclasses(cls: type) -> list[type]:
        return [sub for child in cls.__subclasses__() for sub in (child, *subclasses(child))]

    names = {
        field.name
        for record in subclasses(declared.CamelRecord)
        for field in declared.fields_of(record)
    }
    assert len(names) > 40
    assert {name: declared.camel_case(name) for name in names} == {
        name: to_camel(name) for name in names
    }


def test_a_records_data_is_plain_and_the_same_in_every_process() -> None:
    record = Whole.model_validate({**GOOD, "tags": frozenset({"b", "a", "c"})})
    data = declared.data_of(record)
    assert data["tags"] == ["a", "b", "c"] and data["parts"][0] == {"name": "wheel", "weight": 2.0}
    assert json.loads(json.dumps(data)) == data


class Spelled(declared.CamelRecord):
    """A field validator that changes the value, as the cluster inventory's spells GPU names."""

    names: list[str] = declared.Field(default_factory=declared.empty_list)
    size: int = 0

    @declared.field_validator("names")
    @classmethod
    def _upper(cls, names: list[str]) -> list[str]:
        if "bad" in names:
            raise ValueError("a bad name")
        return [name.upper() for name in names]


def test_a_field_validator_gives_the_value_both_ways_a_record_is_made() -> None:
    data = {"names": ["a", "b"]}
    assert Spelled.model_validate(data).names == ["A", "B"] == built(Spelled, data).names
    assert built(Spelled, {}).names == []  # a default is not validated, as pydantic does
    with pytest.raises(pydantic.ValidationError, match="a bad name"):
        Spelled.model_validate({"names": ["bad"]})
    with pytest.raises(TypeError, match="not 'before'"):
        declared.field_validator("names", mode="before")


def test_given_fields_copies_and_construction_as_pydantic_has_them() -> None:
    record = Spelled.model_validate({"size": 3})
    assert record.model_fields_set == {"size"}
    assert Spelled.model_construct().model_fields_set == set()
    assert Spelled.model_construct() == Spelled(names=[], size=0)
    copy = record.model_copy(update={"names": ["x"]})
    assert (copy.names, copy.size, copy.model_fields_set) == (["x"], 3, {"size", "names"})
    assert (record.names, record.model_fields_set) == ([], {"size"})
    assert record.model_copy() == record and record.model_copy() is not record


def _record_classes() -> set[type[declared.Record]]:
    """Every record class gpulint declares (each module imported)."""
    import importlib
    import pkgutil

    import linter

    for module in pkgutil.walk_packages(linter.__path__, "linter."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)

    def below(cls: type[declared.Record]) -> Iterator[type[declared.Record]]:
        for sub in cls.__subclasses__():
            yield sub
            yield from below(sub)

    return {cls for cls in below(declared.Record) if cls.__module__.startswith("linter.")}


def test_every_record_classs_annotations_resolve_as_typing_resolves_them() -> None:
    classes = _record_classes()
    assert len(classes) > 100
    for cls in classes:
        assert declared.hints_of(cls) == typing.get_type_hints(cls, include_extras=True), cls


class Quoted(declared.Record):
    """A quoted name inside an annotation: left to ``typing.get_type_hints``."""

    parts: list["Part"] = declared.Field(default_factory=list)  # noqa: UP037 - the case


def test_an_annotation_with_a_quoted_name_inside_is_resolved_by_typing() -> None:
    hints = declared.hints_of(Quoted)
    assert hints["parts"] == list[Part]
    assert hints == typing.get_type_hints(Quoted, include_extras=True)
