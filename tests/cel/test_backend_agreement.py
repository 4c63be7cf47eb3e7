"""The parser against the Rust backend: every rule expression parses, and what the backend
refuses as syntax is refused here too (on a corpus, and on generated token soups)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from linter.cel import backend as cel
from linter.cel.syntax import CelSyntaxError, parse
from linter.policy.template import placeholders

REPO = Path(__file__).resolve().parents[2]

# Both accept.
ACCEPTED = [
    "a.b.map(x, x)", "a.map(x,\n// c\n x)", "r'\\'", "r'a\\' + b", "0x1F", "0xffu", "0xFFU",
    "0x1u", "1u", "1U", "1e3", "1E3", "1e+3", "1e-3", "1.0e+3", ".5", ".5e1", "5.e1", "1.e3",
    "1 . e3", "0.5", "00.5", "01", "00", "a.if", "a.while()", "f(x).let", "A{if: 1}",
    "a{b: 1}", "a.b{c:1}", ".a.b", ".A{a:1}", "A.b.C{x:1}", "A{x:1,}", "A{a: 1, a: 2}",
    "a{x:1}.y", "A{}", "a.B{}", ".a.B{}", "b'\\xff'", "'''a\nb'''", "'''a\rb'''",
    "1 ? 2 : 3 ? 4 : 5", "--1", "- -1", "!!true", "-1u", "!-1", "!- 1", "-1.5", "-.5",
    "-1.5.foo", "-1.y", "-x", "-x.y", "- x", "!x", "-(1)", "-(-1)", "--(1)", "!(!x)",
    "-9223372036854775808", "- 9223372036854775808", "-0x8000000000000000", "9223372036854775807",
    "18446744073709551615u", "0xffffffffffffffffu", "1.7976931348623157e308", "4.9e-324",
    "1e-400", "a[1][2]", "{1:2,}", "[1,2,]", "[1,2,3,]", "{'a':1,'b':2,}", "{1:2, 1:3}",
    "a.b.c(1,2)", "has(a.b)", "has(a.b.c)", "has(a.b[0].c)", "has(a{x:1}.b)", "has((a).b)",
    "has(f(x).b)", "has(1.b)", "has ( a . b )", "has(a.b).c", "has(a.b) && has(c.d)", "has()",
    "has(a.b, c)", "x.has(a.b)", ".has(a.b)", "has(.a.b)", "[].map(x, y, z)", "a.all(x)",
    "a.exists(1)", "a.filter(x,x,x)", "a.all(x, y, z)", "a.exists_one(x)", "a.map(x, x, y, z)",
    "a.all(1, v, v)", "a.transformList(1, v, v)", "cel.bind(1, 1, x)", "optional.of(1)",
    "a.map(.x, 1)", "x.map(y, y).map(z,z)", "x.map(y, y)+1", "a.exists(x, true).b",
    "1 < 2 < 3", "1 == 2 == 3", "x in y in z", "1 < 2 == true", "a != !b", "!a == b",
    "1 + 2 * 3 - 4 / 5 % 6", "a && b || c && d", "a || b ? c : d", "!a ? b : c",
    "a ? b || c : d", "a ? (b ? c : d) : e", "(a ? b : c) ? d : e", "a?b:c", "1 + -1", "1 - -1",
    "1--1", "1 * -x", "[-1]", "x[-1]", "f(-1)", "'\\u00e9'", "'\\U0001F600'", "'\\U0010FFFF'",
    "'\\X41'", "'\\x41'", "b'\\x41\\101'", "'\\a\\v\\?\\`'", "'\\r\\n'", "'\\f\\b'", "'\\000'",
    "'\\377'", "b'\\377'", "b'\\a'", "b'ÿ'", "'ÿ'", "r'\\q'", "r'''\\'''", "r\"a\\\"",
    "r\"\"\"\\\"\"\"", "'\"'", "\"'\"", "'''a''b'''", "\"\"\"a\"b\"\"\"", "'\\\\'", "\"\"", "''",
    "''''''", "\"\"\"\"\"\"", "r''", "b''", "br''", "R'x'", "bR'x'", "BR'x'", "B'x'", "Br'x'",
    "bR\"\"\"x\"\"\"", "'''\n'''", "\"a\" + 'b'", "b'a' + B'b'", "1//x", "1 // c", "1 // c\n",
    "1 //c\n+2", "\n1\n", "  1  ", "1\t+\f2", "1\r+2", "1 +\n2", "a . b", "a.b . c", "a.\nb",
    "a.//c\nb", "x.map(//c\ny, y)", "true.b", "truex", "true_", "nullx", "__x", "_",
    "a.b.c.d.e", "x.exists_one(y, y)", "1in[1]", "1 in[1]", "((((1))))", "[[[]]]", "{{}:{}}",
    "(1)", "{}", "a{}", "f()", "a.f()", "x.y()", "x.y(1,2,3)", "{1:2}", "a[\"k\"]", "a['k'].b",
    "{'a': 1}.a", "[1][0]", "x == null", "type(x) == int", "a.b[0].c(1).d", "null",
    "x.size()", "size(x)", "int(x)", "'s'.map(x,x)", "1.map(x,x)", "f.map(x,x)", "map(x, y)",
    "a.b.map(x, x.map(y, y))", "0x1e", "0x1E", "0xABCDEFu", "1e+5", "1E-5",
]  # fmt: skip

# Both refuse.
REJECTED = [
    "1 +", "'\\q'", "1.", "0.", "in", "a.in", "a.in()", "in(1)", "x.in(y)", "if", "if()", "let",
    "let.b", "f(let)", "while", ".if", "{let: 1}", "'a\nb'", "'a\rb'", "f(1,)", "f(,)",
    "has(a)", "has(a[0])", "has(a.b())", "a.map(1, x)", "a.map(1, x, y)", "a.exists_one(1, x)",
    "a.map(x.y, x, y)", "a.exists(x.y, 1)", "'\\777'", "'\\400'", "'\\08'", "'\\0'", "'\\00'",
    "'\\8'", "'\\18'", "b'\\400'", "b'\\u00e9'", "b'\\u0041'", "b'\\U00000041'", "0X1f", "1e",
    "1e+", "1.5e", "0x", "0xg", "00x1", "1.5u", "1uu", "123abc", "rb'x'", "Rb'x'", "rb''",
    "u'x'", "f'x'", "`x`", "a.`b c`", "a?.b", "a[?0]", "a.?b", "a.1", "a.b.", "a..b", "0..1",
    "1.5.3", "0x1.5", "()", "'a' 'b'", "1 2", "1 + /*x*/ 2", "a . /*c*/ b", "@", "#", "$a",
    "a & b", "a | b", "a = b", "9223372036854775808", "-(9223372036854775808)",
    "--9223372036854775808", "- -9223372036854775808", "-9223372036854775809", "0x8000000000000000",
    "18446744073709551616u", "0x10000000000000000u", "1.7976931348623157e309", "1e400",
    "-1e400", "'\\x4'", "'\\x'", "'\\xg0'", "'\\u12'", "'\\u00'", "'\\uzzzz'", "'\\U0000004'",
    "'\\U00110000'", "'\\uD800'", "'\\ud83d\\ude00'", "\"\"\"x\"\"\"\"", "\"\"\"\"\"\"\"",
    "'''\\'''", "'''a'''b'''", "''''", "'''''", "'''''''", "''''''''", "'''''''''", "'\\'",
    "\"\\\n\"", "1/ /x\n2", "1\v+2", "1\u00a0+2", "1\u2028", "\u00e9", "x\u00e9", "a.b\u00e9",
    "A{in: 1}", "A{1: 2}", "A{true: 1}", "A{null: 1}", "A{x 1}", "a.true", "a.null",
    "a.false", ".true", "a[0]{x:1}", "f(){x:1}", "(a){x:1}", "(A){}", "a.b(){x:1}",
    "a.b(1).C{x:1}", "a{x:1}{y:2}", "f(a)(b)", "a.b.c()()", "(f)(1)", "a[1,2]", "a[]",
    "{1:2,,}", "[1,,]", "{a}", "{a:}", "{:1}", "a ? b", "a ? b : c : d", "a ?: b", "a ?? b",
    "a ? a ? 1 : 2 : 2", "!", "-", "-!1", "!-x", "!--1", "1 !", "a ! b", "a &&", "&& a",
    "a && || b", "", " ", "// only a comment", "l[0:1]",
]  # fmt: skip

# The backend accepts these; this parser refuses them on purpose.
STRICTER = {
    "[,]": "a lone comma is not an element list",
    "{,}": "a lone comma is not an entry list",
    "A{,}": "a lone comma is not a field list",
    "(" * 90 + "1" + ")" * 90: "nested more than MAX_DEPTH (the backend stops at 95)",
    "true" + " && true" * 90: "an operator chain nests the tree like brackets",
    "!" * 91 + "true": "so does a chain of unary operators",
    "a" + ".b" * 90: "and a chain of selections",
}


def backend_accepts(source: str) -> bool:
    try:
        cel.compile_expression(source)
    except cel.CelError:
        return False
    return True


def parses(source: str) -> bool:
    try:
        parse(source)
    except CelSyntaxError:
        return False
    return True


def rule_expressions() -> list[tuple[str, str]]:
    yaml = YAML(typ="safe", pure=True)
    found: list[tuple[str, str]] = []
    for path in sorted((REPO / "rules").glob("*.yaml")):
        rule = yaml.load(path.read_text(encoding="utf-8"))
        expressions = [rule.get("applies"), rule.get("each")]
        for check in rule.get("checks", []):
            expressions += [check["violation"], check.get("related")]
            expressions += [field for field, _ in placeholders(check["message"])]
            expressions += [field for field, _ in placeholders(check["path"])]
        found += [(path.stem, text) for text in expressions if text is not None]
    return found


RULE_EXPRESSIONS = rule_expressions()


def test_every_policy_rule_has_expressions_to_check() -> None:
    engine_rules = {"GL001", "GL002", "GL004", "GL005", "GL006", "GL010"}  # the engine's own
    rules = {path.stem for path in (REPO / "rules").glob("*.yaml")} - engine_rules
    assert {rule for rule, _ in RULE_EXPRESSIONS} == rules


@pytest.mark.parametrize(("rule", "source"), RULE_EXPRESSIONS)
def test_every_rule_expression_parses(rule: str, source: str) -> None:
    parse(source)


@pytest.mark.parametrize("source", ACCEPTED)
def test_both_accept(source: str) -> None:
    assert backend_accepts(source)
    assert parses(source)


@pytest.mark.parametrize("source", REJECTED)
def test_both_refuse(source: str) -> None:
    assert not backend_accepts(source)
    assert not parses(source)


@pytest.mark.parametrize("source", list(STRICTER), ids=list(STRICTER.values()))
def test_stricter_than_the_backend_on_purpose(source: str) -> None:
    assert backend_accepts(source)
    assert not parses(source)


TOKENS = [
    "a", "b", "x", "if", "in", "true", "null", "has", "map", "all", "exists_one", "filter",
    "1", "0x1", "1u", "1.5", ".5", "1e3", "'s'", '"s"', "r'\\'", "b'\\xff'", "'\'\'t\'\'\'",
    "'\\u00e9'", "'\\q'", "-", "!", "+", "*", "/", "%", "==", "!=", "<", "<=", "&&", "||", "?",
    ":", ".", ",", "(", ")", "[", "]", "{", "}", " ", "// c\n", "=", "&",
]  # fmt: skip
SOUPS = st.lists(st.sampled_from(TOKENS), min_size=1, max_size=12).map("".join)


@settings(
    max_examples=1500, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(SOUPS)
def test_whatever_the_backend_refuses_is_refused(source: str) -> None:
    if not backend_accepts(source):
        assert not parses(source), source


def test_token_soups_include_valid_expressions() -> None:
    """Else the test above would hold trivially."""
    found = find(
        SOUPS,
        lambda s: len(s) > 12 and backend_accepts(s),
        settings=settings(database=None, derandomize=True),
    )
    assert parses(found)
