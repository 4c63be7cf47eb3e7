"""The pydantic model each declared record class describes (its twin), made on first need.

A twin is what the class statement would have made had the record been a pydantic model: the
same name, module, qualified name and docstring; the twins of the record's bases as its bases
(so fields, configuration and validators are inherited as they were); each field's resolved
annotation, with every record class in it replaced by its twin and every declaration
(linter/declared) by pydantic's own object; and the record's methods, properties and class
variables, its marked validators as pydantic's. So its validation errors and its JSON Schema are
those the model gave. Importing this module imports pydantic: only validation, schemas and
dumps need it.
"""

from __future__ import annotations

import typing
from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    StringConstraints,
    WithJsonSchema,
)
from pydantic import field_validator as pydantic_field_validator
from pydantic import model_validator as pydantic_model_validator

from linter import declared
from linter.declared import (
    FIELD_VALIDATOR_MARK,
    UNSET,
    VALIDATOR_MARK,
    FieldSpec,
    PrivateSpec,
    Record,
    StringSpec,
    field_names,
    fields_of,
    hints_of,
    own_annotations,
)
from linter.declared.building import built

#: pydantic's metaclass, which makes a model class as a class statement would.
_MODEL_CLASS: Any = type(BaseModel)
_TWINS: dict[type[Record], type[BaseModel]] = {}
#: A record class's own attributes that are not carried to its twin (Python's, and ours).
_NOT_CARRIED = frozenset(
    {"__module__", "__qualname__", "__doc__", "__annotations__", "__dict__", "__weakref__"}
    | {"model_config"}
)


def twin(record: type[Record]) -> type[BaseModel]:
    """The pydantic model ``record`` describes (one per class)."""
    found = _TWINS.get(record)
    if found is None:
        found = _TWINS[record] = _made(record)
    return found


def validated(record: type[Record], data: Any) -> Any:
    """``data`` validated by the twin (pydantic's ``ValidationError`` if it does not validate),
    as the record it describes."""
    twin(record).model_validate(data)
    return built(record, data)


def as_twin(value: Any) -> Any:
    """A record as an instance of its twin, with the same values (nested records as theirs); other
    values as they are, collections of records rebuilt."""
    if isinstance(value, Record):
        values = value.__dict__
        return twin(type(value)).model_construct(
            **{name: as_twin(values[name]) for name in field_names(type(value))}
        )
    if isinstance(value, (list, tuple, set, frozenset)):
        return type(value)(as_twin(item) for item in value)
    if isinstance(value, dict):
        return {key: as_twin(item) for key, item in value.items()}
    return value


def _made(record: type[Record]) -> type[BaseModel]:
    if record is Record:  # its configuration only: its methods are the records' own
        root: type[BaseModel] = _MODEL_CLASS(
            "Record",
            (BaseModel,),
            {
                "__module__": record.__module__,
                "__qualname__": record.__qualname__,
                "__doc__": record.__doc__,
                "model_config": ConfigDict(**record.model_config),  # type: ignore[typeddict-item]
            },
        )
        return root
    bases = tuple(twin(base) for base in record.__bases__ if issubclass(base, Record))
    hints = hints_of(record)
    own = record.__dict__
    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {
        "__module__": record.__module__,
        "__qualname__": record.__qualname__,
        "__doc__": own.get("__doc__"),
        "__annotations__": annotations,
    }
    if "model_config" in own:
        namespace["model_config"] = ConfigDict(**own["model_config"])  # type: ignore[typeddict-item]
    declared_here = {field.name for field in fields_of(record) if field.owner is record}
    for name in own_annotations(record):
        hint = hints[name]
        if name in declared_here:
            annotations[name] = twin_type(hint)
            value = own.get(name, UNSET)
            if value is not UNSET:
                namespace[name] = _field(value)
        elif name == "model_config":
            continue
        elif typing.get_origin(hint) is ClassVar or hint is ClassVar:
            annotations[name] = hint
            if name in own:
                namespace[name] = own[name]
        elif name.startswith("_"):
            annotations[name] = hint
            value = own.get(name)
            namespace[name] = _private(value)
    for name, value in own.items():
        if name in annotations or name in namespace or name in _NOT_CARRIED:
            continue
        if getattr(value, VALIDATOR_MARK, None) is not None:
            namespace[name] = pydantic_model_validator(mode="after")(value)
        elif getattr(value, FIELD_VALIDATOR_MARK, None) is not None:
            fields = getattr(value, FIELD_VALIDATOR_MARK)
            namespace[name] = pydantic_field_validator(*fields, mode="after")(value)
        else:
            namespace[name] = value
    made: type[BaseModel] = _MODEL_CLASS(record.__name__, bases, namespace)
    return made


def _private(value: Any) -> Any:
    """A private attribute's declaration as pydantic's class body has it."""
    if not isinstance(value, PrivateSpec):
        return PrivateAttr(value)
    if value.default_factory is not None:
        return PrivateAttr(default_factory=value.default_factory)
    return PrivateAttr() if value.default is UNSET else PrivateAttr(value.default)


def _field(value: Any) -> Any:
    """A field's default as pydantic's class body has it: ``Field(...)`` or the value."""
    if not isinstance(value, FieldSpec):
        return value
    options: dict[str, Any] = dict(value.options)
    factory = value.default_factory
    if isinstance(factory, type) and issubclass(factory, Record):  # its twin makes the default
        factory = twin(factory)
    if factory is not None:
        options["default_factory"] = factory
    if value.default is not UNSET:
        return Field(value.default, **options)
    return Field(**options)


def twin_type(annotation: Any) -> Any:
    """The annotation with every record class in it replaced by its twin, and every declaration
    in its metadata by pydantic's object."""
    if isinstance(annotation, type) and issubclass(annotation, Record):
        return twin(annotation)
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Annotated:
        metadata = tuple(_twin_metadata(item) for item in annotation.__metadata__)
        arguments = (twin_type(args[0]), *metadata)
        return Annotated[arguments]
    if not args or origin in (Literal, ClassVar):
        return annotation
    converted = tuple(twin_type(arg) for arg in args)
    if converted == args:
        return annotation
    if origin is Union or origin is type(int | None):
        return Union[converted]  # noqa: UP007 - built from a tuple
    return origin[converted]


def _twin_metadata(item: Any) -> Any:
    if isinstance(item, FieldSpec):
        return Field(**item.options)
    if isinstance(item, StringSpec):
        return StringConstraints(**item.options)
    if isinstance(item, declared.AfterValidator):
        return AfterValidator(item.function)
    if isinstance(item, declared.BeforeValidator):
        return BeforeValidator(item.function)
    if isinstance(item, declared.WithJsonSchema):
        return WithJsonSchema(item.schema)
    return item
