"""Models built from data known to validate, without building a validator to check it again.

Validating a model's data first builds its validator, from the model's fields, in Python: about
1-8 ms a model tree, and a one-file run validated some 30 of them before a rule ran (issue 31),
mostly data that had passed validation before: the catalogues and vocabularies packaged with
gpulint (the tests validate every one of them against its model) and rule files restored from the
start-up cache (a rule is cached only once it validated, in an authenticated entry that only
gpulint writes). :func:`prevalidated` builds from such data the instance the validator would
return: the same field values, converted as strict validation converts them (an integer for a
``float`` field becomes a float; collections are new ones of the field's type), defaults filled
in, the same set of given fields. It checks nothing: untrusted input always goes through
``model_validate``.

Validators that only check are not run again (an ``after`` validator that returns its input,
field or model); ``model_post_init`` runs, as after validation, to set private attributes. A
model whose validators could change its data (``before``, ``wrap`` or ``plain`` ones), that
keeps extra keys, or with a union that the data's own type does not settle, is refused with
:class:`TypeError` when first used here, which the tests that compare both ways of building
every packaged file would report.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from inspect import Parameter
from typing import TYPE_CHECKING, Any, TypeVar, cast

from linter.declared import Record
from linter.declared.building import Convert, Plan, built, converter, filler, record_builder

if TYPE_CHECKING:
    from pydantic import BaseModel
    from pydantic.fields import FieldInfo

M = TypeVar("M")

_set_attribute = object.__setattr__


def prevalidated(model: type[M], data: Any) -> M:
    """The instance of ``model`` that ``model.model_validate(data)`` returns, for ``data`` that is
    known to validate (above); nothing is checked. A declared record (linter/declared) is built
    without pydantic; a pydantic model's builder imports it."""
    if issubclass(model, Record):
        return built(model, data)  # type: ignore[no-any-return]
    return _builder(cast("type[BaseModel]", model))(data)  # type: ignore[no-any-return]


@functools.cache
def _builder(model: type[BaseModel]) -> Convert:
    """A function from a model's valid data (a mapping) to its instance."""
    _refuse_changing_validators(model)
    fields = list(model.model_fields.items())
    for _, field in fields:
        _refuse_changing_metadata(tuple(field.metadata))
    post_init = model.__pydantic_post_init__ is not None
    plans: list[Plan] = [
        (
            _keys(name, field),
            name,
            converter(field.annotation, _nested, _refuse_changing_metadata),
            _default(model, name, field),
        )
        for name, field in fields
    ]

    fill = filler(plans)

    def build(data: Any) -> BaseModel:
        values, given = fill(data)
        instance = model.__new__(model)
        _set_attribute(instance, "__dict__", values)
        _set_attribute(instance, "__pydantic_fields_set__", given)
        _set_attribute(instance, "__pydantic_extra__", None)
        _set_attribute(instance, "__pydantic_private__", None)
        if post_init:  # as validation ends: private attributes set, then the model's own step
            instance.model_post_init(None)
        return instance

    return build


def _default(model: type[BaseModel], name: str, field: FieldInfo) -> Callable[[], Any]:
    """A field's value when the data does not give it, as validation fills it in. A default
    factory's signature is read here, once: ``FieldInfo.get_default`` reads it on every call
    (0.1 ms for ``list``)."""
    if field.is_required():

        def missing() -> Any:
            raise KeyError(f"{model.__name__}: no {_keys(name, field)[0]}")

        return missing
    if field.default_factory is None:
        return functools.partial(field.get_default, call_default_factory=False)
    from pydantic import BaseModel

    factory = field.default_factory
    if isinstance(factory, type) and issubclass(factory, BaseModel):  # Model(): built as {} is
        return functools.partial(_builder(factory), {})
    if _takes_data(factory):
        raise TypeError(f"{model.__name__}.{name}'s default reads other fields: validate instead")
    return factory  # type: ignore[return-value]


def _takes_data(factory: Callable[..., Any]) -> bool:
    """Whether pydantic passes a default factory the fields validated so far: one positional
    parameter without a default (a signature that cannot be read, a C one's, takes none)."""
    try:
        parameters = list(inspect.signature(factory).parameters.values())
    except (TypeError, ValueError):
        return False
    return (
        len(parameters) == 1
        and parameters[0].kind in (Parameter.POSITIONAL_ONLY, Parameter.POSITIONAL_OR_KEYWORD)
        and parameters[0].default is Parameter.empty
    )


def _keys(name: str, field: FieldInfo) -> tuple[str, ...]:
    """The keys the data may give a field under: its alias first, as validation reads them."""
    alias = field.validation_alias if isinstance(field.validation_alias, str) else field.alias
    return (alias, name) if alias and alias != name else (name,)


def _nested(annotation: Any) -> Convert | None:
    """The builder of a nested model or record (linter/declared/building.py's ``Nested``)."""
    from pydantic import BaseModel

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _builder(annotation)
    return record_builder(annotation)


def _refuse_changing_validators(model: type[BaseModel]) -> None:
    if model.model_config.get("extra") == "allow":
        raise TypeError(f"{model.__name__} keeps more than its fields: validate its data instead")
    decorators = model.__pydantic_decorators__
    for kind in ("model_validators", "field_validators"):
        for name, decorator in getattr(decorators, kind).items():
            if decorator.info.mode != "after":
                raise TypeError(f"{model.__name__}.{name} may change its data: validate instead")
    if decorators.root_validators or decorators.validators:
        raise TypeError(f"{model.__name__} has validators that may change its data")


def _refuse_changing_metadata(metadata: tuple[Any, ...]) -> None:
    from pydantic.functional_validators import BeforeValidator, PlainValidator, WrapValidator

    for item in metadata:
        if isinstance(item, (BeforeValidator, WrapValidator, PlainValidator)):
            raise TypeError(f"{item!r} may change its data: validate instead")
        if any(getattr(item, flag, None) for flag in ("strip_whitespace", "to_upper", "to_lower")):
            raise TypeError(f"{item!r} changes its data: validate instead")
