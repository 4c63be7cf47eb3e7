"""The HCL reader: structure, spans, comments, values as written, and bounded failure on hostile
input (an error with its position, never a traceback, never quadratic time)."""

from __future__ import annotations

import pytest

from linter.load import hcl
from linter.load.positions import Span


def test_blocks_attributes_and_spans() -> None:
    text = 'resource "aws_instance" "gpu" {\n  instance_type = "g5.xlarge"\n  count = 2\n}\n'
    parsed = hcl.parse(text)
    (block,) = parsed.body.blocks
    assert (block.type, block.labels) == ("resource", ["aws_instance", "gpu"])
    assert (block.span, block.type_span) == (Span(1, 1, 4, 2), Span(1, 1, 1, 9))
    attribute = block.body.attributes["instance_type"]
    assert attribute.name_span == Span(2, 3, 2, 16)
    assert isinstance(attribute.expr, hcl.HclTemplate) and attribute.expr.parts == ["g5.xlarge"]
    assert attribute.expr.span == Span(2, 19, 2, 30)
    count = block.body.attributes["count"].expr
    assert isinstance(count, hcl.HclLiteral) and count.value == 2


def test_one_line_blocks_and_objects() -> None:
    parsed = hcl.parse('a { b = 1 }\nc {}\nd = { x = 1, "y" = [1,\n 2] }\n')
    assert [b.type for b in parsed.body.blocks] == ["a", "c"]
    assert list(parsed.body.blocks[0].body.attributes) == ["b"]
    value = parsed.body.attributes["d"].expr
    assert isinstance(value, hcl.ObjectExpr) and len(value.items) == 2


def test_templates_heredocs_and_escapes() -> None:
    parsed = hcl.parse('a = "x-${var.r}-$${lit}\\n"\nb = <<-EOT\n    one ${x}\n    two\n  EOT\n')
    a = parsed.body.attributes["a"].expr
    assert isinstance(a, hcl.HclTemplate)
    assert a.parts[0] == "x-" and isinstance(a.parts[1], hcl.Traversal)
    assert a.parts[2] == "-${lit}\n"
    b = parsed.body.attributes["b"].expr
    assert isinstance(b, hcl.HclTemplate) and b.heredoc
    assert b.parts[0] == "one " and b.parts[2] == "\ntwo\n"


def test_directives_for_expressions_calls_and_traversals() -> None:
    text = (
        'x = "%{ if var.a }yes%{ else }no%{ endif }"\n'
        'y = [for k, v in var.m : v if k != "a"]\n'
        "z = {for k, v in var.m : k => v...}\n"
        "w = provider::aws::arn_parse(var.arn).region\n"
        "s = var.list[*].name\n"
    )
    attributes = hcl.parse(text).body.attributes
    x = attributes["x"].expr
    assert isinstance(x, hcl.HclTemplate) and x.directive
    assert isinstance(attributes["y"].expr, hcl.ForExpr)
    assert isinstance(attributes["z"].expr, hcl.ForExpr)
    w = attributes["w"].expr
    assert isinstance(w, hcl.Postfix) and isinstance(w.target, hcl.HclCall)
    assert (w.target.name, w.steps) == ("provider::aws::arn_parse", ["region"])
    s = attributes["s"].expr
    assert isinstance(s, hcl.Traversal) and s.steps == ["list", "*", "name"]


def test_comments_are_kept_with_their_offsets() -> None:
    text = '# gpulint.dev/profile: training\nx = "a # not a comment" // tail\n/* block\n */\n'
    parsed = hcl.parse(text)
    assert [c.text for c in parsed.comments] == [
        "# gpulint.dev/profile: training",
        "// tail",
        "/* block\n */",
    ]
    assert parsed.lines.at(parsed.comments[1].start) == (2, 25)


def test_an_attribute_set_twice_is_a_problem_at_the_second() -> None:
    parsed = hcl.parse("a = 1\na = 2\n")
    assert [(p.span.line, p.message) for p in parsed.problems] == [
        (2, "attribute 'a' is already set at line 1")
    ]


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        ('a = 1\nb = "open\n', 2, 5, "unterminated string (a quoted string ends on its line)"),
        ("a = <<EOT\nnever closed\n", 1, 5, "heredoc <<EOT is never closed"),
        ("a = 1 b = 2\n", 1, 7, "expected a newline, found 'b'"),
        ("block {\n  a = 1\n", 3, 1, "expected '}' to close the block, found end of file"),
        ("a = [1, 2\n", 2, 1, "expected ',' or ']' in the list"),
        ("a = `x`\n", 1, 5, "unexpected character '`'"),
        ('a = "\\q"\n', 1, 6, "invalid escape sequence"),
        ("a = /* open\n", 1, 5, "unterminated comment"),
        ('resource "a${x}" {\n}\n', 1, 10, "a block label is a literal string"),
    ],
)
def test_syntax_errors_are_reported_at_their_cause(
    text: str, line: int, column: int, message: str
) -> None:
    with pytest.raises(hcl.HclError) as caught:
        hcl.parse(text)
    assert (caught.value.span.line, caught.value.span.column, caught.value.message) == (
        line,
        column,
        message,
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x = " + "[" * 5000 + "]" * 5000 + "\n", "nested more than 64 levels deep: not read"),
        ("x = " + "(" * 5000 + "1" + ")" * 5000 + "\n", "nested more than 64 levels deep"),
        ("x = " + '"${' * 5000 + "1" + '}"' * 5000 + "\n", "nested more than 64 levels deep"),
        ("b {\n" * 5000 + "}\n" * 5000, "nested more than 64 levels deep"),
        ("x = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n", "nested more than 64 levels deep"),
        ("x = " + "true ? 1 : " * 5000 + "1\n", "nested more than 64 levels deep"),
        ("x = " + "[for a in " * 2000 + "[]" + " : a]" * 2000 + "\n", "nested more than 64"),
        ("x = " + "!" * 10_000 + "true\n", "more than 64 unary operators in a row"),
        ("x = " + "9" * 5000 + "\n", "a number of more than 100 characters"),
    ],
)
def test_hostile_nesting_is_an_error_with_a_position(text: str, message: str) -> None:
    with pytest.raises(hcl.HclError) as caught:
        hcl.parse(text)
    assert caught.value.message.startswith(message)
    assert caught.value.span.line >= 1


def test_a_long_operator_chain_is_built_without_recursion() -> None:
    parsed = hcl.parse("x = " + " + ".join("1" for _ in range(50_000)) + "\n")
    chain = parsed.body.attributes["x"].expr
    depth = 0
    while isinstance(chain, hcl.Operation):
        chain, depth = chain.operands[0], depth + 1
    assert depth == 49_999


@pytest.mark.parametrize(
    "text",
    [
        'x = "' + "a" * 300_000 + '"\n',  # one 300 KB line
        "x = (\n" + "\n" * 200_000 + "1)\n",  # quadratic in tree-sitter-hcl
        "x = [" + ",".join("1" for _ in range(100_000)) + "]\n",
        "x = <<EOT\n" + "${a}\n" * 50_000 + "EOT\n",
    ],
)
def test_large_inputs_read(text: str) -> None:
    assert hcl.parse(text).body.attributes["x"]


def test_too_many_tokens_is_an_error_not_a_memory_blow_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hcl, "MAX_TOKENS", 1000)
    with pytest.raises(hcl.HclError) as caught:
        hcl.parse("x = [" + ",".join("1" for _ in range(1000)) + "]\n")
    assert caught.value.message == "more than 1,000 tokens: not read"


def test_too_large_a_text_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hcl, "MAX_CHARS", 10)
    with pytest.raises(hcl.HclError) as caught:
        hcl.parse("x = 12345678\n")
    assert caught.value.message == "more than 10 characters: not read"
