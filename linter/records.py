"""Records: dataclasses that cost little to define, because every start-up defines them all.

A frozen dataclass has six methods written as source and compiled when its class is defined
(``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``): about
0.5 ms a class, and a one-file run defines a hundred of gpulint's, a seventh of its start-up
(issue 31). A record compiles none of them: equality, hashing and ``repr`` are functions shared
by every record that read its fields as the dataclass's own would (the same fields, the same
tuples, so the same results and hash values); its ``__init__`` is the one the dataclass would
compile, made from a template for every record of the same shape (the same number of
parameters, keyword-only ones and default factories at the same places) with the record's names
put in, which costs next to nothing; and immutability is checked where it costs
nothing: ``datarecord`` is frozen by default to the type checker (mypy rejects an assignment to
a field, as it does for a frozen dataclass), while at run time an instance is an ordinary one
and setting its fields is not refused. A record's fields are all parameters of its
``__init__``: ``InitVar`` and ``field(init=False)`` are refused (use ``@dataclass`` for those).

The templates of the shapes gpulint's own records have are functions of a generated module,
:mod:`linter.record_templates` (``python -m linter.records`` writes it; a test fails while it is
stale), so Python's bytecode cache keeps them: compiling them was 4% of a one-file run. Any
other shape (a test's record) is compiled when its first record is defined.

``dataclasses.fields``, ``replace`` and ``asdict`` work on records as on any dataclass; ask
:func:`is_frozen`, not ``__dataclass_params__``, whether one is frozen. A record without a
docstring keeps none (a dataclass is given its signature as one, which costs a third of a
millisecond to work out).
"""

from __future__ import annotations

import builtins
import dataclasses
import reprlib
import sys
import types
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, overload

from linter.record_templates import TEMPLATES

if sys.version_info >= (3, 11):
    from typing import dataclass_transform
else:  # pragma: no cover - Python 3.10
    from typing_extensions import dataclass_transform

_T = TypeVar("_T")

#: Stands in for a missing docstring while ``dataclass`` runs, which would write one.
_UNDOCUMENTED = "undocumented"


@overload
def datarecord(cls: type[_T], /) -> type[_T]: ...


@overload
def datarecord(
    *, frozen: bool = True, eq: bool = True, slots: bool = False, kw_only: bool = False
) -> Callable[[type[_T]], type[_T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def datarecord(
    cls: type[_T] | None = None,
    /,
    *,
    frozen: bool = True,
    eq: bool = True,
    slots: bool = False,
    kw_only: bool = False,
) -> type[_T] | Callable[[type[_T]], type[_T]]:
    """``@dataclass(frozen=..., eq=..., slots=..., kw_only=...)``, defined for less (above)."""

    def wrap(cls: type[_T]) -> type[_T]:
        undocumented = cls.__dict__.get("__doc__") is None
        if undocumented:  # not the docstring dataclasses would write: inspect.signature's 0.3 ms
            cls.__doc__ = _UNDOCUMENTED
        made: type[_T] = dataclasses.dataclass(
            cls, init=False, repr=False, eq=False, slots=slots, kw_only=kw_only
        )
        if undocumented:
            made.__doc__ = None
        if "__init__" not in made.__dict__:  # a body's own __init__ stays, as with dataclasses
            made.__init__ = _init(made)  # type: ignore[method-assign]
        _share_methods(made, frozen, eq)
        made._record_frozen = frozen  # type: ignore[attr-defined]
        return made

    return wrap if cls is None else wrap(cls)


def is_frozen(cls: type) -> bool:
    """Whether ``cls`` declares its instances immutable: a frozen record, or a frozen dataclass
    (a record's ``__dataclass_params__`` says not frozen, as it is not enforced at run time)."""
    record_frozen = getattr(cls, "_record_frozen", None)
    if record_frozen is not None:
        return bool(record_frozen)
    params = getattr(cls, "__dataclass_params__", None)
    return bool(params is not None and params.frozen)


class _FactoryDefault:
    """The default an ``__init__`` parameter shows for a field with a default factory (the
    factory is called when the parameter is left out), written as the dataclass's is."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _FactoryDefault()
#: The names a template is compiled with, replaced by a record's own: parameter and attribute
#: ``i`` are field ``i``'s name, factory ``i`` is its default factory (a global of the function).
_PARAMETER, _ATTRIBUTE, _MAKER, _LEFT_OUT = (
    "_record_parameter_",
    "_record_attribute_",
    "_record_factory_",
    "_record_factory_default",
)
#: A template's shape: positional parameters, which fields have a default factory, keyword-only
#: parameters, whether ``__post_init__`` is called.
Shape = tuple[int, tuple[bool, ...], int, bool]
#: Templates by shape: the generated ones, and those compiled since.
_TEMPLATES: dict[Shape, types.CodeType] = {
    shape: function.__code__.replace(co_name="__init__") for shape, function in TEMPLATES.items()
}
#: The shapes of the records defined in this process (what ``python -m linter.records`` writes).
SHAPES: set[Shape] = set()


def _init(cls: type) -> Callable[..., None]:
    """The ``__init__`` ``@dataclass`` would compile for ``cls``: the same parameters in the same
    order (keyword-only ones last), defaults, factories called when a parameter is left out,
    ``__post_init__`` called last and assignments of the same bytecode, so an instance costs what
    the dataclass's does to make."""
    fields = dataclasses.fields(cls)
    _refuse_unparametered(cls, fields)
    positional = [field for field in fields if not field.kw_only]
    keyword = [field for field in fields if field.kw_only]
    ordered = positional + keyword
    defaults = {field.name: _FACTORY for field in ordered if _has_factory(field)}
    defaults.update(
        (field.name, field.default) for field in ordered if field.default is not dataclasses.MISSING
    )
    _refuse_defaults_out_of_order(positional, defaults)
    makers = tuple(_has_factory(field) for field in ordered)
    shape = (len(positional), makers, len(keyword), hasattr(cls, "__post_init__"))
    SHAPES.add(shape)
    template = _TEMPLATES.get(shape)
    if template is None:
        template = _TEMPLATES[shape] = _compiled_template(*shape)
    names = {f"{_PARAMETER}{i}": field.name for i, field in enumerate(ordered)}
    names.update({f"{_ATTRIBUTE}{i}": field.name for i, field in enumerate(ordered)})
    code = template.replace(
        co_varnames=tuple(names.get(name, name) for name in template.co_varnames),
        co_names=tuple(names.get(name, name) for name in template.co_names),
    )
    if sys.version_info >= (3, 11):
        code = code.replace(co_qualname=f"{cls.__qualname__}.__init__")
    scope: dict[str, Any] = {"__builtins__": builtins, "__name__": cls.__module__}
    scope[_LEFT_OUT] = _FACTORY
    scope.update(
        (f"{_MAKER}{i}", field.default_factory) for i, field in enumerate(ordered) if makers[i]
    )
    tail = tuple(defaults[field.name] for field in positional if field.name in defaults)
    function = types.FunctionType(code, scope, "__init__", tail or None)
    keyword_defaults = {
        field.name: defaults[field.name] for field in keyword if field.name in defaults
    }
    function.__kwdefaults__ = keyword_defaults or None
    function.__qualname__ = f"{cls.__qualname__}.__init__"
    function.__annotations__ = {field.name: field.type for field in ordered} | {"return": None}
    return function


def _has_factory(field: dataclasses.Field[Any]) -> bool:
    return field.default_factory is not dataclasses.MISSING


def _refuse_unparametered(cls: type, fields: tuple[dataclasses.Field[Any], ...]) -> None:
    """Refuse what a record's ``__init__`` does not make: fields it does not take, init-only
    variables (read from their annotation: dataclasses marks them privately), and names its
    template cannot take (``self``, the template's own)."""
    for field in fields:
        if not field.init or field.name == "self" or field.name.startswith("_record_"):
            raise TypeError(f"{cls.__qualname__}.{field.name}: not a record field (see records)")
    kept = {field.name for field in fields}
    for name, field in cls.__dataclass_fields__.items():  # type: ignore[attr-defined]
        if name not in kept and "InitVar" in str(field.type):
            raise TypeError(f"{cls.__qualname__}.{name}: an InitVar is not a record field")


def _refuse_defaults_out_of_order(
    positional: list[dataclasses.Field[Any]], defaults: dict[str, Any]
) -> None:
    """As ``@dataclass`` refuses it: a positional field without a default after one with."""
    defaulted = False
    for field in positional:
        if field.name in defaults:
            defaulted = True
        elif defaulted:
            raise TypeError(f"non-default argument {field.name!r} follows default argument")


def _compiled_template(
    positional: int, makers: tuple[bool, ...], keyword: int, post_init: bool
) -> types.CodeType:
    """The code of an ``__init__`` of this shape, with the placeholder names (_PARAMETER ...)."""
    source = _template_source("__init__", (positional, makers, keyword, post_init))
    namespace: dict[str, Any] = {"Any": Any}
    exec(compile(source, "<string>", "exec"), namespace)  # our own template, no input in it
    return namespace["__init__"].__code__  # type: ignore[no-any-return]


def _template_source(name: str, shape: Shape) -> str:
    """A template as a function named ``name``: one line a parameter and a statement a field,
    each statement's expression in parentheses, so that a formatter leaves the text as it is."""
    positional, makers, keyword, post_init = shape
    parameters = ["self: Any", *(f"{_PARAMETER}{i}: Any" for i in range(positional + keyword))]
    if keyword:
        parameters.insert(positional + 1, "*")
    body = [
        f"    self.{_ATTRIBUTE}{i} = (\n"
        + (
            f"        {_MAKER}{i}()\n"
            f"        if {_PARAMETER}{i} is {_LEFT_OUT}\n"
            f"        else {_PARAMETER}{i}\n"
            if made
            else f"        {_PARAMETER}{i}\n"
        )
        + "    )"
        for i, made in enumerate(makers)
    ]
    if post_init:
        body.append("    self.__post_init__()")
    signature = "".join(f"    {parameter},\n" for parameter in parameters)
    return f"def {name}(\n{signature}) -> None:\n" + ("\n".join(body) or "    pass") + "\n"


def templates_module(shapes: set[Shape]) -> str:
    """The text of :mod:`linter.record_templates` for ``shapes``, in a stable order."""
    ordered = sorted(shapes)
    functions = "\n\n".join(_template_source(f"_shape_{i}", s) for i, s in enumerate(ordered))
    rows = "".join(
        f"    ({positional}, {''.join('1' if made else '0' for made in makers)!r}, {keyword}, "
        f"{post_init}, _shape_{i}),\n"
        for i, (positional, makers, keyword, post_init) in enumerate(ordered)
    )
    return (
        f"{_GENERATED_DOCSTRING}\n\nfrom __future__ import annotations\n\n"
        "from collections.abc import Callable\nfrom typing import Any\n\n\n"
        f"{functions}\n\n"
        "#: Positional parameters, which fields have a default factory (1), keyword-only\n"
        "#: parameters, whether ``__post_init__`` is called, and the template.\n"
        "_SHAPES: list[tuple[int, str, int, bool, Callable[..., None]]] = [\n"
        f"{rows}]\n"
        "#: Each shape's template (linter/records.py ``Shape``).\n"
        "TEMPLATES: dict[tuple[int, tuple[bool, ...], int, bool], Callable[..., None]] = {\n"
        '    (positional, tuple(bit == "1" for bit in makers), keyword, post_init): template\n'
        "    for positional, makers, keyword, post_init, template in _SHAPES\n"
        "}\n"
    )


_GENERATED_DOCSTRING = (
    '"""The ``__init__`` templates of the shapes gpulint\'s records have (linter/records.py), as\n'
    "functions, so that Python's bytecode cache keeps them. Generated by ``python -m "
    "linter.records``:\ndo not edit; a test fails while this differs from what it writes.\n\n"
    "A factory (``_record_factory_0``) and the default that stands for a left-out parameter are\n"
    "names of the scope a record's ``__init__`` is made with, not of this module.\n"
    '"""\n\n# mypy: disable-error-code="name-defined"\n# ruff: noqa: F821'
)


def write_templates(target: str) -> None:
    """Import every module of gpulint and write the templates of its records' shapes."""
    import importlib
    import pkgutil

    import linter

    for module in pkgutil.walk_packages(linter.__path__, "linter."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    with open(target, "w", encoding="utf-8") as out:
        out.write(templates_module(SHAPES))


if __name__ == "__main__":  # python -m linter.records: the shapes are the imported module's
    import importlib
    import os

    _module = importlib.import_module("linter.records")
    _module.write_templates(os.path.join(os.path.dirname(__file__), "record_templates.py"))


def _share_methods(cls: type, frozen: bool, eq: bool) -> None:
    """Give ``cls`` the methods ``@dataclass`` would have compiled for it, where its body does
    not define them (dataclasses' rules, hashing's included)."""
    fields = dataclasses.fields(cls)
    own = cls.__dict__
    if "__repr__" not in own:
        cls._record_shown = tuple(field.name for field in fields if field.repr)  # type: ignore[attr-defined]
        cls.__repr__ = _repr  # type: ignore[assignment]
    if not eq:
        return
    if "__eq__" not in own:
        cls._record_compared = _getter([field.name for field in fields if field.compare])  # type: ignore[attr-defined]
        cls.__eq__ = _eq  # type: ignore[assignment]
    # A body that defines __eq__ but not __hash__ has __hash__ = None set by Python: not its own.
    explicit_hash = "__hash__" in own and not (own["__hash__"] is None and "__eq__" in own)
    if explicit_hash:
        return
    if frozen:
        hashed = [
            field.name for field in fields if (field.compare if field.hash is None else field.hash)
        ]
        cls._record_hashed = _getter(hashed)  # type: ignore[attr-defined]
        cls.__hash__ = _hash  # type: ignore[assignment]
    else:  # as a mutable dataclass with eq: unhashable
        cls.__hash__ = None  # type: ignore[assignment]


def _getter(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of these attributes of an object, always a tuple as the dataclass compares and
    hashes them (``(self.x,)``, never ``self.x``); a static method, as the class holds it."""
    if len(names) >= 2:
        return staticmethod(attrgetter(*names))
    if names:
        one = attrgetter(names[0])
        return staticmethod(lambda obj: (one(obj),))
    return staticmethod(lambda obj: ())


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        compared = self._record_compared
        return compared(self) == compared(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self._record_hashed(self))


@reprlib.recursive_repr()
def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._record_shown)
    return f"{self.__class__.__qualname__}({shown})"
