"""Records behave as the dataclasses they stand for: the same repr, equality and hash values
(linter/records.py), so replacing ``@dataclass`` changed no output and no memo key."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
import subprocess
import sys
from dataclasses import field
from typing import Any

import pytest
from conftest import REPO

from linter import records
from linter.record_templates import TEMPLATES
from linter.records import datarecord, is_frozen


def _pair(body: dict[str, Any], **options: Any) -> tuple[type, type]:
    """The same class made by ``@dataclass(**options)`` and by ``@datarecord`` (frozen unless
    ``frozen=False`` is given, as ``@dataclass`` needs it spelled)."""
    annotations = body["__annotations__"]
    as_dataclass = dataclasses.dataclass(**options)(
        type("Shape", (), {**body, "__annotations__": dict(annotations)})
    )
    as_record = datarecord(**options)(
        type("Shape", (), {**body, "__annotations__": dict(annotations)})
    )
    return as_dataclass, as_record


SHAPES: list[tuple[str, dict[str, Any], dict[str, Any], tuple[Any, ...]]] = [
    ("no fields", {"__annotations__": {}}, {"frozen": True}, ()),
    ("one field", {"__annotations__": {"a": "int"}}, {"frozen": True}, (1,)),
    (
        "defaults and a list",
        {"__annotations__": {"a": "str", "b": "list", "c": "float"}, "c": 0.5},
        {"frozen": True},
        ("x", [1, "y"]),
    ),
    (
        "uncompared fields",
        {
            "__annotations__": {"a": "int", "start": "int", "end": "int"},
            "start": field(default=0, compare=False),
            "end": field(default=0, compare=False, repr=False),
        },
        {"frozen": True},
        (3, 4, 5),
    ),
    (
        "slots",
        {"__annotations__": {"a": "int", "b": "str"}},
        {"frozen": True, "slots": True},
        (1, "b"),
    ),
    ("mutable", {"__annotations__": {"a": "int", "b": "str"}}, {"frozen": False}, (1, "b")),
    ("not compared", {"__annotations__": {"a": "int"}}, {"frozen": True, "eq": False}, (1,)),
]


@pytest.mark.parametrize(("name", "body", "options", "args"), SHAPES, ids=[s[0] for s in SHAPES])
def test_a_record_is_its_dataclass(
    name: str, body: dict[str, Any], options: dict[str, Any], args: tuple[Any, ...]
) -> None:
    as_dataclass, as_record = _pair(body, **options)
    made, recorded = as_dataclass(*args), as_record(*args)
    assert repr(recorded) == repr(made)
    assert [f.name for f in dataclasses.fields(recorded)] == [
        f.name for f in dataclasses.fields(made)
    ]
    twin = as_record(*args)
    assert (recorded == twin) is (made == as_dataclass(*args))
    assert recorded.__eq__(made) is NotImplemented or not options.get("eq", True)
    if as_dataclass.__hash__ is None:
        assert as_record.__hash__ is None
    elif options.get("eq", True):
        assert _hashed(recorded) == _hashed(made) == _hashed(twin)
    else:  # identity, as object's
        assert hash(recorded) == object.__hash__(recorded)
    assert dataclasses.replace(recorded) == recorded or not options.get("eq", True)


def _hashed(value: Any) -> int | str:
    """The hash, or the error hashing raised (a list field: unhashable, both ways)."""
    try:
        return hash(value)
    except TypeError as err:
        return str(err)


@datarecord(slots=True)
class _Slotted:
    a: int
    b: tuple[str, ...] = ()


@datarecord(frozen=False)
class _Mutable:
    a: int


@pytest.mark.parametrize("value", [_Slotted(1, ("x",)), _Mutable(2)], ids=repr)
def test_records_cross_to_workers(value: Any) -> None:
    """Findings and file results are pickled back from worker processes."""
    assert repr(pickle.loads(pickle.dumps(value))) == repr(value)


def test_uncompared_fields_are_left_out_of_equality_and_hash() -> None:
    _, as_record = _pair(SHAPES[3][1], frozen=True)
    assert as_record(1, 2, 3) == as_record(1, 7, 8)
    assert hash(as_record(1, 2, 3)) == hash(as_record(1, 7, 8)) == hash((1,))


def test_a_body_keeps_its_own_methods() -> None:
    @datarecord
    class Own:
        a: int

        def __repr__(self) -> str:
            return "own"

        def __eq__(self, other: object) -> bool:
            return True

    @dataclasses.dataclass(frozen=True)
    class Reference:
        a: int

        def __eq__(self, other: object) -> bool:
            return True

    assert repr(Own(1)) == "own"
    assert Own(1) == Own(2)
    # Python sets __hash__ = None beside a body's __eq__; a frozen dataclass hashes its fields
    assert hash(Own(1)) == hash(Reference(1)) == hash((1,))


def test_a_subclass_compares_its_own_fields() -> None:
    @datarecord
    class Base:
        a: int

    @datarecord
    class Child(Base):
        b: int = 0

    assert Child(1, 2) != Child(1, 3)
    assert Child(1, 2) != Base(1)
    assert repr(Child(1, 2)) == "test_a_subclass_compares_its_own_fields.<locals>.Child(a=1, b=2)"


def test_a_recursive_repr_stops() -> None:
    @datarecord(frozen=False)
    class Node:
        children: list[Any]

    node = Node([])
    node.children.append(node)
    assert repr(node) == "test_a_recursive_repr_stops.<locals>.Node(children=[...])"


def test_frozen_is_read_from_the_record_not_its_dataclass_params() -> None:
    """Immutability is declared, not enforced: ``__dataclass_params__.frozen`` is False for a
    frozen record, so code that keys on frozenness asks ``is_frozen``."""

    @dataclasses.dataclass(frozen=True)
    class Frozen:
        a: int

    class Plain:
        pass

    assert is_frozen(_Slotted) and is_frozen(Frozen)
    assert not is_frozen(_Mutable) and not is_frozen(Plain)


def test_a_record_keeps_its_own_docstring_or_none() -> None:
    """dataclasses writes a missing docstring from the signature; a record does not."""

    @datarecord
    class Plain:
        x: int

    @datarecord(slots=True)
    class Told:
        """Said."""

        x: int

    assert (Plain.__doc__, Told.__doc__) == (None, "Said.")


#: Fields of every kind a record's __init__ takes: required, with a default, with a default
#: factory, keyword-only, and a __post_init__ that reads them.
INIT_SHAPES: list[tuple[str, dict[str, Any], dict[str, Any], tuple[Any, ...], dict[str, Any]]] = [
    ("no fields", {"__annotations__": {}}, {}, (), {}),
    ("required", {"__annotations__": {"a": "int", "b": "str"}}, {}, (1, "b"), {}),
    (
        "defaults and factories",
        {
            "__annotations__": {"a": "int", "b": "list", "c": "float", "d": "dict"},
            "b": field(default_factory=list),
            "c": 0.5,
            "d": field(default_factory=lambda: {"made": True}),
        },
        {},
        (1,),
        {"c": 2.0},
    ),
    (
        "keyword-only",
        {"__annotations__": {"a": "int", "b": "tuple"}, "b": ()},
        {"kw_only": True},
        (),
        {"a": 3},
    ),
    (
        "slots and a factory",
        {"__annotations__": {"a": "int", "b": "set"}, "b": field(default_factory=set)},
        {"slots": True},
        (4,),
        {},
    ),
    (
        "post init",
        {
            "__annotations__": {"a": "int", "b": "int"},
            "b": 0,
            "__post_init__": lambda self: self.seen.append((self.a, self.b)),
            "seen": [],
        },
        {"frozen": False},
        (5,),
        {"b": 6},
    ),
]


@pytest.mark.parametrize(
    ("name", "body", "options", "args", "kwargs"), INIT_SHAPES, ids=[s[0] for s in INIT_SHAPES]
)
def test_a_record_is_made_as_its_dataclass(
    name: str, body: dict[str, Any], options: dict[str, Any], args: tuple[Any, ...], kwargs: Any
) -> None:
    """The same signature (names, kinds, defaults, ``<factory>``, annotations), the same values
    set, factories called per instance and ``__post_init__`` called last."""
    as_dataclass, as_record = _pair({**body, "seen": []} if "seen" in body else body, **options)
    assert str(inspect.signature(as_record)) == str(inspect.signature(as_dataclass))
    assert as_record.__init__.__annotations__ == as_dataclass.__init__.__annotations__
    assert as_record.__init__.__qualname__ == "Shape.__init__"
    made, recorded, again = (kind(*args, **kwargs) for kind in (as_dataclass, as_record, as_record))
    assert repr(recorded) == repr(made)
    for one in dataclasses.fields(recorded):
        if isinstance(getattr(recorded, one.name), (list, dict, set)):
            assert getattr(recorded, one.name) is not getattr(again, one.name)
    if "seen" in body:  # one list, shared by both classes: each instance appended once
        assert as_record.seen == [(5, 6)] * 3
    assert _refusal(as_record, *args, *range(9), **kwargs) == _refusal(
        as_dataclass, *args, *range(9), **kwargs
    )


def _refusal(kind: type, *args: Any, **kwargs: Any) -> str:
    """The message of the TypeError that making ``kind`` with these arguments raises."""
    with pytest.raises(TypeError) as refused:
        kind(*args, **kwargs)
    return str(refused.value)


def test_records_of_one_shape_share_a_template_with_their_own_names() -> None:
    @datarecord
    class Point:
        x: int
        y: int = 0

    @datarecord
    class Span:
        start: int
        end: int = 9

    assert Point.__init__.__code__.co_code == Span.__init__.__code__.co_code
    assert (Point(1), Span(start=2)) == (Point(1, 0), Span(2, 9))
    assert Span.__init__.__code__.co_varnames == ("self", "start", "end")
    with pytest.raises(TypeError, match="unexpected keyword argument 'x'"):
        Span(x=1)


#: Imports every module of gpulint, counting the templates compiled, and prints that count and
#: the generated module's text for the shapes its records have.
_EVERY_SHAPE = """\
import importlib, pkgutil, sys
import linter, linter.records as records
compiled = []
original = records._compiled_template
records._compiled_template = lambda *shape: compiled.append(shape) or original(*shape)
for module in pkgutil.walk_packages(linter.__path__, "linter."):
    if not module.name.endswith("__main__"):
        importlib.import_module(module.name)
print(len(compiled))
sys.stdout.write(records.templates_module(records.SHAPES))
"""


def test_the_generated_templates_are_those_of_every_shape_gpulints_records_have() -> None:
    """linter/record_templates.py is current (``python -m linter.records`` writes it), so no
    record of gpulint's compiles its ``__init__`` template."""
    done = subprocess.run(
        [sys.executable, "-c", _EVERY_SHAPE], cwd=REPO, capture_output=True, text=True, check=True
    )
    count, _, text = done.stdout.partition("\n")
    written = (REPO / "linter" / "record_templates.py").read_text(encoding="utf-8")
    assert text == written, "linter/record_templates.py is stale: python -m linter.records"
    assert count == "0"


def test_a_generated_template_is_the_one_compiled_for_its_shape() -> None:
    """The same bytecode and names as a template compiled from the same source (a test's
    record, of a shape no gpulint record has, is compiled)."""
    for shape, function in TEMPLATES.items():
        compiled = records._compiled_template(*shape)
        assert function.__code__.co_code == compiled.co_code, shape
        assert function.__code__.co_varnames == compiled.co_varnames
        assert function.__code__.co_names == compiled.co_names


def test_a_record_refuses_what_its_init_cannot_take() -> None:
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):

        @datarecord
        class OutOfOrder:
            a: int = 0
            b: int  # type: ignore[misc]

    with pytest.raises(TypeError, match="not a record field"):

        @datarecord
        class NotInInit:
            a: int = field(default=0, init=False)

    with pytest.raises(TypeError, match="an InitVar is not a record field"):

        @datarecord
        class InitOnly:
            a: int
            b: dataclasses.InitVar[int]


def test_a_body_keeps_its_own_init() -> None:
    @datarecord
    class Own:
        a: int

        def __init__(self, text: str) -> None:
            self.a = len(text)

    assert Own("four").a == 4
