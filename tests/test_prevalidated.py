"""``prevalidated`` builds exactly what validation would, for every kind of data it is given at
run time (packaged catalogues, rule files restored from the start-up cache), and refuses models
it could not build faithfully. A declared record (linter/declared) is compared with what its
pydantic twin validates the same data into, field by field."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from conftest import REPO
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PrivateAttr

from linter.catalog import load, load_file
from linter.catalog.base import Catalogue, validated
from linter.catalog.prevalidated import prevalidated
from linter.catalog.prices import PriceBook
from linter.catalog.schemas import registry
from linter.declared import Record, field_names, privates_of
from linter.declared.twins import twin
from linter.formats.vocabulary import read_vocabulary, vocabulary_file
from linter.load import load_text
from linter.policy.rule_file import RuleFile


def _validation(model: Any, data: Any) -> Any:
    """What validating ``data`` gives: a pydantic model's instance, or a record's twin's."""
    return (twin(model) if issubclass(model, Record) else model).model_validate(data)


def _differences(built: Any, valid: Any, where: str = "") -> list[str]:
    """Where two values differ in type or value, models' given fields included (``==`` would
    take 3 for 3.0 and a list for a tuple); a record is compared with its twin's instance."""
    if isinstance(built, Record):
        return _record_differences(built, valid, where)
    if type(built) is not type(valid):
        return [f"{where}: {type(built).__name__} against {type(valid).__name__}"]
    if isinstance(valid, BaseModel):
        found = []
        if built.model_fields_set != valid.model_fields_set:
            found.append(
                f"{where}: given {built.model_fields_set} against {valid.model_fields_set}"
            )
        if built.__pydantic_private__ != valid.__pydantic_private__:
            found.append(f"{where}: private attributes differ")
        for name in type(valid).model_fields:
            found += _differences(getattr(built, name), getattr(valid, name), f"{where}.{name}")
        return found
    if isinstance(valid, dict):
        if list(built) != list(valid):
            return [f"{where}: keys {list(built)} against {list(valid)}"]
        return [d for key in valid for d in _differences(built[key], valid[key], f"{where}[{key}]")]
    if isinstance(valid, (list, tuple)):
        if len(built) != len(valid):
            return [f"{where}: {len(built)} items against {len(valid)}"]
        return [
            d
            for i, pair in enumerate(zip(built, valid, strict=True))
            for d in _differences(*pair, f"{where}[{i}]")
        ]
    return [] if built == valid else [f"{where}: {built!r} against {valid!r}"]


def _record_differences(built: Record, valid: Any, where: str) -> list[str]:
    if type(valid) is not twin(type(built)):
        return [f"{where}: {type(built).__name__} against {type(valid).__name__}"]
    privates = {name: built.__dict__[name] for name, _ in privates_of(type(built))}
    found = _differences(privates, valid.__pydantic_private__ or {}, f"{where} private")
    for name in field_names(type(built)):
        found += _differences(getattr(built, name), getattr(valid, name), f"{where}.{name}")
    return found


def _catalogue_validation(name: str, model: type[Catalogue]) -> Any:
    return _validation(model, model.assemble(load(name)))


@pytest.mark.parametrize("name", sorted(registry()))
def test_a_catalogue_is_built_as_its_validation_returns_it(name: str) -> None:
    model = registry()[name]
    assert _differences(validated(name, model), _catalogue_validation(name, model)) == []


def test_the_price_book_is_built_as_its_validation_returns_it() -> None:
    """``prices.yaml`` without its tables, as a run reads it (linter/catalog/prices.py)."""
    built = validated("prices", PriceBook)
    assert _differences(built, _catalogue_validation("prices", PriceBook)) == []


#: Every vocabulary table the formats read, with its model.
VOCABULARIES = {
    "engine_devices.yaml": ("linter.formats.cmdline.devices", "DeviceTables"),
    "engine_flags.yaml": ("linter.formats.cmdline.engines", "EngineFlagCatalogue"),
    "kubernetes.yaml": ("linter.formats.kubernetes.labels", "LabelCatalogue"),
    "kubernetes_autoscalers.yaml": ("linter.formats.kubernetes.autoscalers", "AutoscalerTables"),
    "kubernetes_capacity.yaml": ("linter.formats.kubernetes.capacity", "CapacityTables"),
    "launcher_flags.yaml": ("linter.formats.cmdline.launchers", "LauncherCatalogue"),
    "model_cache.yaml": ("linter.formats.platforms.model_cache", "CacheTables"),
    "model_env.yaml": ("linter.formats.platforms.model_env", "ModelEnvVocabulary"),
    "platforms.yaml": ("linter.formats.platforms", "Platforms"),
    "production_stack.yaml": ("linter.formats.kubernetes.production_stack", "ValuesTable"),
    "ray_serve.yaml": ("linter.formats.kubernetes.serve_apps", "ServeTables"),
    "slurm.yaml": ("linter.formats.slurm.options", "SlurmVocabulary"),
    "terraform.yaml": ("linter.formats.terraform_vocabulary", "TerraformVocabulary"),
}


def test_every_vocabulary_table_is_listed() -> None:
    assert sorted(path.name for path in vocabulary_file("x").parent.glob("*.yaml")) == sorted(
        VOCABULARIES
    )


@pytest.mark.parametrize("name", sorted(VOCABULARIES))
def test_a_vocabulary_table_is_built_as_its_validation_returns_it(name: str) -> None:
    module, model_name = VOCABULARIES[name]
    model = getattr(importlib.import_module(module), model_name)
    built = read_vocabulary(name, model)
    assert _differences(built, _validation(model, load_file(vocabulary_file(name)))) == []


@pytest.mark.parametrize("path", sorted((REPO / "rules").glob("*.yaml")), ids=lambda p: p.name)
def test_a_rule_file_is_built_as_its_validation_returns_it(path: Path) -> None:
    data = load_text(path.read_text(encoding="utf-8")).documents[0].data
    assert _differences(prevalidated(RuleFile, data), _validation(RuleFile, data)) == []


class _Part(BaseModel):
    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")
    share: float
    tags: tuple[str, ...] = ()


class _Scope(BaseModel):
    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")
    kinds: list[str] = Field(default_factory=lambda: ["Workload"])


class _Whole(BaseModel):
    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")
    kind: Literal["a", "b"]
    on_demand: list[_Part] = Field(alias="on-demand")
    bound: Literal["any"] | list[str] | None = None
    named: dict[str, _Part] = Field(default_factory=dict)
    empty: _Part = Field(default_factory=lambda: _Part(share=0.0))
    scope: _Scope = Field(default_factory=_Scope)
    note: str | None = None
    amounts: list[int | float | str] = Field(default_factory=list)


WHOLE = {
    "kind": "a",
    "on-demand": [{"share": 3}, {"share": 0.5, "tags": ("x",)}],
    "bound": ["eu"],
    "named": {"one": {"share": 1}},
    "amounts": [3, 2.5, "4"],
}


def test_a_model_is_built_as_validation_builds_it() -> None:
    built = prevalidated(_Whole, WHOLE)
    assert _differences(built, _Whole.model_validate(WHOLE)) == []
    assert built.on_demand[0].share == 3.0 and type(built.on_demand[0].share) is float
    assert built.on_demand[1].tags == ("x",)
    assert [type(amount) for amount in built.amounts] == [int, float, str]
    assert built.model_fields_set == {"kind", "on_demand", "bound", "named", "amounts"}
    assert built.named == {"one": _Part(share=1.0)}
    assert built.scope == _Scope() and built.scope.model_fields_set == set()
    assert prevalidated(_Whole, {**WHOLE, "bound": "any"}).bound == "any"


def test_private_attributes_are_set_as_after_validation() -> None:
    built = prevalidated(_Indexed, {"words": ["a", "b"]})
    assert built.__pydantic_private__ == {"_index": {"a": 0, "b": 1}, "_first": ""}
    assert _differences(built, _Indexed.model_validate({"words": ["a", "b"]})) == []


def test_a_missing_required_field_is_a_key_error() -> None:
    with pytest.raises(KeyError, match="_Whole: no on-demand"):
        prevalidated(_Whole, {"kind": "a"})


class _Shouting(BaseModel):
    word: Annotated[str, BeforeValidator(str.upper)]


class _Indexed(BaseModel):
    words: list[str]
    _index: dict[str, int] = PrivateAttr(default_factory=dict)
    _first: str = PrivateAttr("")

    def model_post_init(self, context: Any, /) -> None:
        self._index.update((word, place) for place, word in enumerate(self.words))


class _Derived(BaseModel):
    word: str
    words: list[str] = Field(default_factory=lambda data: [data["word"]])


class _Pair(BaseModel):
    pair: tuple[str, int]


class _FloatKeys(BaseModel):
    shares: dict[float, str]


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    word: str


class _Either(BaseModel):
    value: _Part | _Whole


@pytest.mark.parametrize(
    ("model", "message"),
    [
        (_Shouting, "may change its data"),
        (_Open, "_Open keeps more than its fields"),
        (_Derived, "_Derived.words's default reads other fields"),
        (_Pair, "a tuple of fixed types"),
        (_FloatKeys, "keys that validation converts"),
        (_Either, "is ambiguous for dict"),
    ],
)
def test_a_model_it_cannot_build_faithfully_is_refused(
    model: type[BaseModel], message: str
) -> None:
    with pytest.raises(TypeError, match=message):
        prevalidated(model, {})
