"""The CEL parser: literals, operators, macros, spans, errors with offsets, bounded nesting, and a
round trip from generated trees through source text back to the same trees."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from linter.cel.lexer import KEYWORDS
from linter.cel.syntax import (
    BINARY_PRECEDENCE,
    MACROS,
    MAX_DEPTH,
    RESERVED,
    Binary,
    Call,
    CelSyntaxError,
    Comprehension,
    Conditional,
    Has,
    Ident,
    Index,
    ListLit,
    Literal,
    MapLit,
    Message,
    Node,
    Select,
    Unary,
    children,
    parse,
)


def sexpr(node: Node) -> str:
    """A compact, unambiguous rendering of a tree's shape for the assertions below."""
    if isinstance(node, Literal):
        return f"{node.value!r}:{node.kind}"
    if isinstance(node, Ident):
        return node.name
    if isinstance(node, Select):
        return f"(. {sexpr(node.operand)} {node.field})"
    if isinstance(node, Has):
        return f"(has {sexpr(node.select)})"
    if isinstance(node, Comprehension):
        parts = " ".join(sexpr(arg) for arg in node.args)
        return f"({node.macro} {sexpr(node.range)} {node.variable} {parts})"
    if isinstance(node, Call):
        target = "" if node.target is None else f"{sexpr(node.target)} "
        return f"(call {target}{node.function} [{' '.join(sexpr(a) for a in node.args)}])"
    if isinstance(node, Message):
        fields = " ".join(f"{name}={sexpr(value)}" for name, value in node.fields)
        return f"(msg {node.name} {fields})"
    if isinstance(node, MapLit):
        return "{" + " ".join(f"{sexpr(k)}:{sexpr(v)}" for k, v in node.entries) + "}"
    if isinstance(node, (Binary, Unary)):
        op = node.op
    elif isinstance(node, Index):
        op = "[]"
    elif isinstance(node, Conditional):
        op = "?:"
    else:
        assert isinstance(node, ListLit)
        op = "list"
    return f"({op} {' '.join(sexpr(child) for child in children(node))})".replace(" )", ")")


@pytest.mark.parametrize(
    ("source", "value", "kind"),
    [
        ("1", 1, "int"),
        ("007", 7, "int"),
        ("0x1F", 31, "int"),
        ("0xffu", 255, "uint"),
        ("1U", 1, "uint"),
        ("18446744073709551615u", 2**64 - 1, "uint"),
        ("-9223372036854775808", -(2**63), "int"),
        ("9223372036854775807", 2**63 - 1, "int"),
        ("-0x10", -16, "int"),
        ("1.5", 1.5, "double"),
        (".5", 0.5, "double"),
        ("1e3", 1000.0, "double"),
        ("2E-2", 0.02, "double"),
        ("-1.5", -1.5, "double"),
        ("1e-400", 0.0, "double"),
        ("true", True, "bool"),
        ("false", False, "bool"),
        ("null", None, "null"),
        ("'a'", "a", "string"),
        ('"a"', "a", "string"),
        ("'''a\n'b'\"'''", "a\n'b'\"", "string"),
        ('"""x""y"""', 'x""y', "string"),
        ("'\\a\\b\\f\\n\\r\\t\\v\\\\\\'\\\"\\?\\`'", "\a\b\f\n\r\t\v\\'\"?`", "string"),
        ("'\\x41\\X42\\103\\u00e9\\U0001F600'", "ABCé\U0001f600", "string"),
        ("'\\303\\277'", "\u00c3\u00bf", "string"),
        ("'ÿ'", "ÿ", "string"),
        ("r'\\n'", "\\n", "string"),
        ("R'\\'", "\\", "string"),
        ("r'''a\\'''", "a\\", "string"),
        ("'''\\''''", "'", "string"),
        ("b'abc'", b"abc", "bytes"),
        ("b'\\xff\\377\\n'", b"\xff\xff\n", "bytes"),
        ("B'ÿ'", "ÿ".encode(), "bytes"),
        ("br'\\x'", b"\\x", "bytes"),
        ("bR'''\\'''", b"\\", "bytes"),
    ],
)
def test_literals(source: str, value: object, kind: str) -> None:
    assert parse(source) == Literal(value, kind)  # type: ignore[arg-type]


def test_literals_of_different_kinds_differ() -> None:
    assert parse("1") != parse("1u")
    assert parse("1") != parse("true")
    assert parse("1") != parse("1.0")
    assert parse("'a'") != parse("b'a'")


@pytest.mark.parametrize(
    ("source", "shape"),
    [
        ("a || b && c", "(|| a (&& b c))"),
        ("a && b || c", "(|| (&& a b) c)"),
        ("a || b || c", "(|| (|| a b) c)"),
        ("a == b != c", "(!= (== a b) c)"),
        ("a < b + c * d", "(< a (+ b (* c d)))"),
        ("a - b - c", "(- (- a b) c)"),
        ("a / b % c * d", "(* (% (/ a b) c) d)"),
        ("a in b && c", "(&& (in a b) c)"),
        ("a + b in c", "(in (+ a b) c)"),
        ("(a || b) && c", "(&& (|| a b) c)"),
        ("a ? b : c ? d : e", "(?: a b (?: c d e))"),
        ("a || b ? c && d : e", "(?: (|| a b) (&& c d) e)"),
        ("(a ? b : c) ? d : e", "(?: (?: a b c) d e)"),
        ("!a == b", "(== (! a) b)"),
        ("!!a", "(! (! a))"),
        ("--a", "(- (- a))"),
        ("- -1", "(- (- 1:int))"),  # a run of two: the backend refuses - -9223372036854775808
        ("-1 - 1", "(- -1:int 1:int)"),
        ("1 - -1", "(- 1:int -1:int)"),
        ("-x.y", "(- (. x y))"),
        ("-1u", "(- 1:uint)"),
        ("!-1", "(! -1:int)"),
        ("-1.5.foo", "(. -1.5:double foo)"),
        ("1.e3", "(. 1:int e3)"),
        ("a.b[c].d(e)", "(call ([] (. a b) c) d [e])"),
        ("f()", "(call f [])"),
        (".f(a, b)", "(call .f [a b])"),
        ("x.while()", "(call x while [])"),
        (".a.b", "(. .a b)"),
        ("a.if", "(. a if)"),
        ("has(a.b.c)", "(has (. (. a b) c))"),
        ("has(a.b, c)", "(call has [(. a b) c])"),
        ("x.has(a.b)", "(call x has [(. a b)])"),
        ("l.map(x, x + 1)", "(map l x (+ x 1:int))"),
        ("l.map(x, x > 0, x)", "(map l x (> x 0:int) x)"),
        ("l.all(x, y, z)", "(call l all [x y z])"),
        ("l.exists(x)", "(call l exists [x])"),
        ("l.filter(x, p).exists_one(y, q)", "(exists_one (filter l x p) y q)"),
        ("l.map(.x, .x)", "(map l .x .x)"),
        ("[1, 'a',]", "(list 1:int 'a':string)"),
        ("[]", "(list)"),
        ("{'a': 1, 2: b,}", "{'a':string:1:int 2:int:b}"),
        ("a.b.M{x: 1, if: 2}", "(msg a.b.M x=1:int if=2:int)"),
        (".M{}", "(msg .M )"),
        ("M{x: 1}.x", "(. (msg M x=1:int) x)"),
        ("a // first\n. // second\nb", "(. a b)"),
    ],
)
def test_shape(source: str, shape: str) -> None:
    assert sexpr(parse(source)) == shape


def spans(source: str) -> list[tuple[str, str]]:
    tree = parse(source)
    found: list[tuple[str, str]] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        found.append((type(node).__name__, source[node.start : node.end]))
        stack.extend(reversed(children(node)))
    return found


def test_spans_cover_each_node_with_its_parentheses() -> None:
    assert spans("(workload).spec . x + -1") == [
        ("Binary", "(workload).spec . x + -1"),
        ("Select", "(workload).spec . x"),
        ("Select", "(workload).spec"),
        ("Ident", "(workload)"),
        ("Literal", "-1"),
    ]
    assert spans("has(a.b) ? l.map(x, [x]) : !f(M{y: 1})") == [
        ("Conditional", "has(a.b) ? l.map(x, [x]) : !f(M{y: 1})"),
        ("Has", "has(a.b)"),
        ("Select", "a.b"),
        ("Ident", "a"),
        ("Comprehension", "l.map(x, [x])"),
        ("Ident", "l"),
        ("ListLit", "[x]"),
        ("Ident", "x"),
        ("Unary", "!f(M{y: 1})"),
        ("Call", "f(M{y: 1})"),
        ("Message", "M{y: 1}"),
        ("Literal", "1"),
    ]
    assert spans("{'k': m['k'] // c\n}") == [
        ("MapLit", "{'k': m['k'] // c\n}"),
        ("Literal", "'k'"),
        ("Index", "m['k']"),
        ("Ident", "m"),
        ("Literal", "'k'"),
    ]


@pytest.mark.parametrize(
    ("source", "message", "offset"),
    [
        ("", "expected an expression, found end of input", 0),
        ("// nothing\n", "expected an expression, found end of input", 11),
        ("1 +", "expected an expression, found end of input", 3),
        ("a b", "expected an operator or the end of the expression, found 'b'", 2),
        ("(a", "expected ')', found end of input", 2),
        ("f(1,)", "expected an expression, found ')'", 4),
        ("a.in", "expected a field name, found 'in'", 2),
        ("a.1", "expected an operator or the end of the expression, found '.1'", 1),
        ("if", "'if' is a reserved word", 0),
        ("x.map(let, 1)", "'let' is a reserved word", 6),
        ("a & b", "unexpected character '&'", 2),
        ("é", "unexpected character 'é'", 0),
        ("1\v", "unexpected character '\\x0b'", 1),
        ("'abc", "unterminated string literal", 0),
        ("'a\nb'", "unterminated string literal", 0),
        ("x + '''abc''", "unterminated string literal", 4),
        ("'ab\\qc'", "invalid escape sequence '\\\\q'", 3),
        ("'\\400'", "invalid escape sequence '\\\\4'", 1),
        ("b'\\u0041'", "invalid escape sequence '\\\\u0041'", 2),
        ("'\\uD800'", "escape '\\\\uD800' is not a Unicode scalar value", 1),
        ("'\\U00110000'", "escape '\\\\U00110000' is not a Unicode scalar value", 1),
        ("9223372036854775808", "int literal out of range", 0),
        ("x * -9223372036854775809", "int literal out of range", 4),
        ("18446744073709551616u", "uint literal out of range", 0),
        ("1e309", "double literal out of range", 0),
        ("!-x", "expected an expression, found '-'", 1),
        ("-!x", "expected an expression, found '!'", 1),
        ("a ? b ? c : d : e", "expected ':', found '?'", 6),
        ("has(a)", "has() needs a field selection, such as has(a.b)", 4),
        ("has(a[0])", "has() needs a field selection, such as has(a.b)", 4),
        ("l.map(x.y, 1)", "the first argument of map() must be a simple name", 6),
        ("l.exists(1, 1)", "the first argument of exists() must be a simple name", 9),
        ("(a){x: 1}", "expected an operator or the end of the expression, found '{'", 3),
        ("f(){x: 1}", "expected an operator or the end of the expression, found '{'", 3),
        ("M{x: 1}{y: 2}", "expected an operator or the end of the expression, found '{'", 7),
        ("M{1: 2}", "expected a field name, found '1'", 2),
        ("[,]", "expected an expression, found ','", 1),
        ("a[]", "expected an expression, found ']'", 2),
        ("'" + "x" * 30, "unterminated string literal", 0),
        (
            "1 " + "x" * 30,
            "expected an operator or the end of the expression, found 'xxxxxxxxxxxxxxxxx...'",
            2,
        ),
    ],
)
def test_errors_say_what_and_where(source: str, message: str, offset: int) -> None:
    with pytest.raises(CelSyntaxError) as caught:
        parse(source)
    assert (caught.value.message, caught.value.offset) == (message, offset)
    assert str(caught.value) == f"{message} (at offset {offset})"


@pytest.mark.parametrize("word", sorted(RESERVED))
def test_reserved_words_are_not_names_but_may_be_fields(word: str) -> None:
    with pytest.raises(CelSyntaxError, match="reserved word"):
        parse(word)
    assert parse(f"a.{word}") == Select(Ident("a"), word)
    assert parse(f"a.{word}()") == Call(word, (), Ident("a"))
    assert parse(f"M{{{word}: 1}}") == Message("M", ((word, Literal(1, "int")),))


@pytest.mark.parametrize("word", sorted(KEYWORDS))
def test_keywords_are_neither_names_nor_fields(word: str) -> None:
    for source in (f"a.{word}", f"M{{{word}: 1}}", f"l.map({word}, 1)"):
        with pytest.raises(CelSyntaxError):
            parse(source)


NESTINGS = {
    "parentheses": lambda n: "(" * n + "1" + ")" * n,
    "lists": lambda n: "[" * n + "]" * n,
    "maps": lambda n: "{1: " * n + "1" + "}" * n,
    "calls": lambda n: "f(" * n + "1" + ")" * n,
    "indexes": lambda n: "x[" * n + "1" + "]" * n,
    "conditionals": lambda n: "a ? 1 : " * n + "2",
    "comprehensions": lambda n: "".join(f"x.map(y{i}, " for i in range(n)) + "1" + ")" * n,
    "or-chain": lambda n: " || ".join(["a"] * (n + 1)),
    "not-chain": lambda n: "!" * n + "a",
    "selections": lambda n: "a" + ".b" * n,
}


@pytest.mark.parametrize("build", list(NESTINGS.values()), ids=list(NESTINGS))
def test_nesting_is_bounded(build: object) -> None:
    assert callable(build)
    parse(build(MAX_DEPTH - 1))
    for depth in (MAX_DEPTH + 1, 10_000):
        with pytest.raises(CelSyntaxError, match=f"nested more than {MAX_DEPTH} levels deep"):
            parse(build(depth))


def test_children_in_source_order() -> None:
    tree = parse("f(a, b) + c.d(e) + x[y] + (p ? q : r) + {k: v}.w.map(m, n) + M{f: g}")
    leaves: list[str] = []
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, Ident):
            leaves.append(node.name)
        stack.extend(reversed(children(node)))
    assert leaves == ["a", "b", "c", "e", "x", "y", "p", "q", "r", "k", "v", "n", "g"]


# -- round trip: generated trees, printed, parse back to themselves ---------------------------

_NAME = st.from_regex(r"[a-z_][a-z0-9_]{0,3}", fullmatch=True).filter(
    lambda name: name not in RESERVED | KEYWORDS | set(MACROS) | {"has"}
)
_FIELD = st.one_of(_NAME, st.sampled_from(sorted(RESERVED)))
_VARIABLE = st.one_of(_NAME, _NAME.map(lambda name: "." + name))
_LITERAL = st.one_of(
    st.integers(-(2**63), 2**63 - 1).map(lambda v: Literal(v, "int")),
    st.integers(0, 2**64 - 1).map(lambda v: Literal(v, "uint")),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda v: Literal(v, "double")),
    st.text(st.characters(exclude_categories=("Cs",)), max_size=6).map(
        lambda v: Literal(v, "string")
    ),
    st.binary(max_size=6).map(lambda v: Literal(v, "bytes")),
    st.booleans().map(lambda v: Literal(v, "bool")),
    st.just(Literal(None, "null")),
)


def _extend(nodes: st.SearchStrategy[Node]) -> st.SearchStrategy[Node]:
    def comprehension(macro: str) -> st.SearchStrategy[Node]:
        arity = max(MACROS[macro])
        return st.builds(
            lambda r, v, a: Comprehension(macro, r, v, tuple(a)),
            nodes,
            _VARIABLE,
            st.lists(nodes, min_size=arity - 1, max_size=arity - 1),
        )

    fields = st.lists(st.tuples(_FIELD, nodes), max_size=3).map(tuple)
    arguments = st.lists(nodes, max_size=3).map(tuple)
    return st.one_of(
        st.builds(Select, nodes, _FIELD),
        st.builds(Index, nodes, nodes),
        st.builds(Call, _VARIABLE, arguments),
        st.builds(Call, _NAME, arguments, nodes),
        st.builds(Has, st.builds(Select, nodes, _FIELD)),
        *(comprehension(macro) for macro in sorted(MACROS)),
        st.builds(Unary, st.sampled_from(["!", "-"]), nodes),
        st.builds(Binary, st.sampled_from(sorted(BINARY_PRECEDENCE)), nodes, nodes),
        st.builds(Conditional, nodes, nodes, nodes),
        st.lists(nodes, max_size=3).map(lambda items: ListLit(tuple(items))),
        st.lists(st.tuples(nodes, nodes), max_size=3).map(lambda items: MapLit(tuple(items))),
        st.builds(
            lambda first, rest, fields: Message(".".join([first, *rest]), fields),
            _VARIABLE,
            st.lists(_FIELD, max_size=2),
            fields,
        ),
    )


TREES = st.recursive(st.one_of(_LITERAL, _VARIABLE.map(Ident)), _extend, max_leaves=25)
_MEMBER = 7  # the precedence of a primary or member expression
_PRECEDENCE: dict[type[Node], int] = {Conditional: 0, Unary: 6}


def precedence(node: Node) -> int:
    if isinstance(node, Binary):
        return BINARY_PRECEDENCE[node.op]
    return _PRECEDENCE.get(type(node), _MEMBER)


def wrap(node: Node, least: int) -> str:
    text = show(node)
    return text if precedence(node) >= least else f"({text})"


def starts_with_number(node: Node) -> bool:
    """Whether printing ``node`` starts with an int or double (a ``-`` before it would join)."""
    while True:
        if isinstance(node, Literal):
            return node.kind in ("int", "double")
        if isinstance(node, (Select, Index)):
            node = node.operand
        elif isinstance(node, Comprehension):
            node = node.range
        elif isinstance(node, Call) and node.target is not None:
            node = node.target
        else:
            return False


def literal_text(node: Literal) -> str:
    value = node.value
    if node.kind == "uint":
        return f"{value}u"
    if node.kind in ("int", "double"):
        return repr(value)
    if node.kind in ("bool", "null"):
        return {True: "true", False: "false", None: "null"}[value]  # type: ignore[index]
    if isinstance(value, bytes):
        return 'b"' + "".join(f"\\x{byte:02x}" for byte in value) + '"'
    assert isinstance(value, str)
    escapes = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"}
    return '"' + "".join(escapes.get(char, char) for char in value) + '"'


def show(node: Node) -> str:
    """Source text for a tree, with only the parentheses its precedence needs."""
    if isinstance(node, Literal):
        return literal_text(node)
    if isinstance(node, Ident):
        return node.name
    if isinstance(node, Select):
        return f"{wrap(node.operand, _MEMBER)}.{node.field}"
    if isinstance(node, Index):
        return f"{wrap(node.operand, _MEMBER)}[{show(node.index)}]"
    if isinstance(node, Call):
        target = "" if node.target is None else wrap(node.target, _MEMBER) + "."
        return f"{target}{node.function}({', '.join(show(arg) for arg in node.args)})"
    if isinstance(node, Has):
        return f"has({show(node.select)})"
    if isinstance(node, Comprehension):
        args = ", ".join([node.variable, *(show(arg) for arg in node.args)])
        return f"{wrap(node.range, _MEMBER)}.{node.macro}({args})"
    if isinstance(node, Unary):
        operand = node.operand
        if isinstance(operand, Unary) and operand.op == node.op:
            return node.op + show(operand)
        text = wrap(operand, _MEMBER)
        if node.op == "-" and precedence(operand) == _MEMBER and starts_with_number(operand):
            text = f"({text})"
        return node.op + text
    if isinstance(node, Binary):
        level = BINARY_PRECEDENCE[node.op]
        return f"{wrap(node.left, level)} {node.op} {wrap(node.right, level + 1)}"
    if isinstance(node, Conditional):
        return f"{wrap(node.condition, 1)} ? {wrap(node.then, 1)} : {show(node.otherwise)}"
    if isinstance(node, ListLit):
        return "[" + ", ".join(show(item) for item in node.elements) + "]"
    if isinstance(node, MapLit):
        return "{" + ", ".join(f"{show(k)}: {show(v)}" for k, v in node.entries) + "}"
    assert isinstance(node, Message)
    return node.name + "{" + ", ".join(f"{k}: {show(v)}" for k, v in node.fields) + "}"


@settings(max_examples=600, derandomize=True, deadline=None)
@given(TREES)
def test_round_trip(tree: Node) -> None:
    source = show(tree)
    parsed = parse(source)
    assert parsed == tree, source
    stack = [parsed]
    while stack:  # every node's span is the source of that node
        node = stack.pop()
        assert parse(source[node.start : node.end]) == node, source[node.start : node.end]
        stack.extend(children(node))


def test_round_trip_covers_every_node_type() -> None:
    """The printer is not trivially right: precedence, signs and quoting all matter."""
    source = "-(1).a + -(-1) * --x - !(-y) ? {1u: b'\\x00'}[\"\\n\"] : .M{if: [1.5]}.m.all(v, !!v)"
    assert show(parse(source)) == (
        '-(1.a) + -(-1) * --x - !(-y) ? {1u: b"\\x00"}["\\n"] : .M{if: [1.5]}.m.all(v, !!v)'
    )
