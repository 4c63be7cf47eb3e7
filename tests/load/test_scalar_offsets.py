"""Offsets inside string values mapped back to the file, for every scalar style."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString,
    FoldedScalarString,
    LiteralScalarString,
    SingleQuotedScalarString,
)

from linter.load import load_text
from linter.load.positions import Path, ScalarSpan, Span
from linter.load.scalar_offsets import decode, locate


def _scalar(text: str, path: Path, json: bool = False) -> tuple[str, str, ScalarSpan]:
    loaded = load_text(text, json=json)
    assert loaded.problems == []
    document = loaded.documents[0]
    value = document.data
    for part in path:
        value = value[part]
    scalar = document.source_map.scalar(path)
    assert scalar is not None
    return loaded.text, value, scalar


def _find(value: str, needle: str) -> tuple[int, int]:
    start = value.index(needle)
    return start, start + len(needle)


def test_the_loader_records_string_values_with_their_style() -> None:
    text = "a: x\nb: [\"y\", 3, z]\nc: |\n  q\nd: >-\n  r\ne: 's'\n<<: {f: m}\n"
    source_map = load_text(text).documents[0].source_map
    assert source_map.scalar(("a",)) == ScalarSpan(Span(1, 4, 1, 5), 3, 4, "plain")
    assert source_map.scalar(("b", 0)) == ScalarSpan(Span(2, 5, 2, 8), 9, 12, "double-quoted")
    assert source_map.scalar(("b", 1)) is None  # not a string
    assert source_map.scalar(("c",)) == ScalarSpan(Span(3, 4, 5, 1), 23, 29, "literal")
    assert source_map.scalar(("d",)).style == "folded"  # type: ignore[union-attr]
    assert source_map.scalar(("e",)).style == "single-quoted"  # type: ignore[union-attr]
    assert source_map.scalar(("f",)) is None  # merged, not written at that path
    assert source_map.scalar(("a", "b")) is None


def test_plain() -> None:
    text, value, scalar = _scalar("run: vllm serve m --max-model-len 131072\n", ("run",))
    assert locate(text, scalar, *_find(value, "131072")) == Span(1, 35, 1, 41)


def test_double_quoted_escapes_take_their_source_width() -> None:
    text, value, scalar = _scalar(
        'args: ["sh", "-c", "echo \\"hi\\" && vllm serve m --max-model-len 8192"]\n',
        ("args", 2),
    )
    assert value == 'echo "hi" && vllm serve m --max-model-len 8192'
    assert locate(text, scalar, *_find(value, '"hi"')) == Span(1, 26, 1, 32)
    assert locate(text, scalar, *_find(value, "8192")) == Span(1, 65, 1, 69)


def test_double_quoted_hex_escapes_and_escaped_line_breaks() -> None:
    text, value, scalar = _scalar('a: "\\x41\\u00e9\\U0001F600 x\\\n    y"\n', ("a",))
    assert value == "Aé😀 xy"
    assert locate(text, scalar, 0, 1) == Span(1, 5, 1, 9)
    assert locate(text, scalar, 1, 2) == Span(1, 9, 1, 15)
    assert locate(text, scalar, 2, 3) == Span(1, 15, 1, 25)
    assert locate(text, scalar, 5, 6) == Span(2, 5, 2, 6)


def test_single_quoted_doubled_quotes_and_folding() -> None:
    text, value, scalar = _scalar("cmd: 'echo ''a''\n  b'\n", ("cmd",))
    assert value == "echo 'a' b"
    assert locate(text, scalar, 5, 8) == Span(1, 12, 1, 17)
    assert locate(text, scalar, 8, 9) == Span(1, 17, 2, 1)  # the space folding made
    assert locate(text, scalar, 9, 10) == Span(2, 3, 2, 4)


def test_multi_line_plain_folds_lines_and_keeps_empty_ones() -> None:
    text, value, scalar = _scalar("cmd: vllm serve\n  m   \n\n  --tp 2\nnext: 1\n", ("cmd",))
    assert value == "vllm serve m\n--tp 2"
    assert locate(text, scalar, 11, 12) == Span(2, 3, 2, 4)
    assert locate(text, scalar, *_find(value, "--tp")) == Span(4, 3, 4, 7)
    assert locate(text, scalar, 12, 13) == Span(3, 1, 4, 1)  # the empty line


def test_literal_block_with_crlf_line_ends() -> None:
    text, value, scalar = _scalar(
        "run: |\r\n  vllm serve m \\\r\n    --max-model-len 8192\r\nnext: 1\r\n", ("run",)
    )
    assert value == "vllm serve m \\\n  --max-model-len 8192\n"
    assert locate(text, scalar, *_find(value, "8192")) == Span(3, 21, 3, 25)
    assert locate(text, scalar, 14, 15) == Span(2, 17, 3, 1)  # CRLF read as one line break


def test_folded_block_joins_lines_and_keeps_empty_ones() -> None:
    text, value, scalar = _scalar(
        "cmd: >\n  vllm serve m\n  --max-model-len 8192\n\n  --tp 2\n", ("cmd",)
    )
    assert value == "vllm serve m --max-model-len 8192\n--tp 2\n"
    assert locate(text, scalar, 11, 18) == Span(2, 14, 3, 8)  # across the folded break
    assert locate(text, scalar, *_find(value, "--tp")) == Span(5, 3, 5, 7)
    assert locate(text, scalar, 33, 34) == Span(4, 1, 5, 1)


def test_folded_block_keeps_breaks_around_more_indented_lines() -> None:
    text, value, scalar = _scalar("a: >-\n  f1\n    ind\n  f2\n", ("a",))
    assert value == "f1\n  ind\nf2"
    assert locate(text, scalar, *_find(value, "ind")) == Span(3, 5, 3, 8)
    assert locate(text, scalar, *_find(value, "f2")) == Span(4, 3, 4, 5)


@pytest.mark.parametrize(
    ("header", "value", "last"),
    [
        ("|", "x\n", Span(2, 4, 3, 1)),
        ("|-", "x", Span(2, 3, 2, 4)),
        ("|+", "x\n\n\n", Span(4, 1, 5, 1)),
        (">+", "x\n\n\n", Span(4, 1, 5, 1)),
        (">-", "x", Span(2, 3, 2, 4)),
    ],
)
def test_block_chomping(header: str, value: str, last: Span) -> None:
    text, loaded, scalar = _scalar(f"a: {header}\n  x\n\n\nb: 1\n", ("a",))
    assert loaded == value
    assert locate(text, scalar, 0, 1) == Span(2, 3, 2, 4)
    assert locate(text, scalar, len(value) - 1, len(value)) == last


def test_explicit_indentation_indicator_in_a_sequence() -> None:
    text, value, scalar = _scalar("steps:\n  - |2\n      indented\n    next\n", ("steps", 0))
    assert value == "  indented\nnext\n"
    assert locate(text, scalar, *_find(value, "indented")) == Span(3, 7, 3, 15)
    assert locate(text, scalar, *_find(value, "next")) == Span(4, 5, 4, 9)


def test_explicit_indentation_indicator_under_a_key_in_a_sequence() -> None:
    text, value, scalar = _scalar("- run: |1\n     two\n", (0, "run"))
    assert value == "  two\n"  # indentation: the key's column (2) plus 1
    assert locate(text, scalar, 2, 5) == Span(2, 6, 2, 9)


def test_tabs_count_as_one_column() -> None:
    text, value, scalar = _scalar("cmd: vllm\tserve\t--tp 2\n", ("cmd",))
    assert locate(text, scalar, *_find(value, "serve")) == Span(1, 11, 1, 16)
    text, value, scalar = _scalar("cmd: |\n  \tvllm serve\n", ("cmd",))
    assert value == "\tvllm serve\n"
    assert locate(text, scalar, *_find(value, "serve")) == Span(2, 9, 2, 14)
    text, value, scalar = _scalar('cmd: "a\\tb\tc"\n', ("cmd",))
    assert value == "a\tb\tc"
    assert locate(text, scalar, 1, 2) == Span(1, 8, 1, 10)
    assert locate(text, scalar, 3, 4) == Span(1, 11, 1, 12)


def test_properties_before_the_scalar_are_skipped() -> None:
    text, value, scalar = _scalar('x: &cmd !!str "vllm serve m"\n', ("x",))
    assert value == "vllm serve m"
    assert locate(text, scalar, 11, 12) == Span(1, 27, 1, 28)
    text, value, scalar = _scalar("x: !!str # why\n  |\n  vllm\n", ("x",))
    assert locate(text, scalar, 0, 4) == Span(3, 3, 3, 7)


def test_json_strings() -> None:
    text, value, scalar = _scalar('{"cmd": "vllm serve \\"m\\" --tp 2"}', ("cmd",), json=True)
    assert locate(text, scalar, *_find(value, "--tp")) == Span(1, 27, 1, 31)


def test_empty_ranges_and_bad_offsets() -> None:
    text, _, scalar = _scalar("run: vllm serve\n", ("run",))
    assert locate(text, scalar, 4, 4) == Span(1, 10, 1, 10)
    assert locate(text, scalar, 10, 10) == Span(1, 16, 1, 16)  # after the last character
    assert locate(text, scalar, 3, 99) == scalar.span
    assert locate(text, scalar, 5, 2) == scalar.span
    assert locate("", scalar, 0, 1) == scalar.span  # not the text that was parsed


# -- property: every character maps to where it is written ---------------------------------------

_STYLES = {
    "plain": str,
    "single-quoted": SingleQuotedScalarString,
    "double-quoted": DoubleQuotedScalarString,
    "literal": LiteralScalarString,
    "folded": FoldedScalarString,
}
_VALUES = st.text(alphabet=st.sampled_from(list("ab yz\t\n'\"\\#:-,[]é😀")), max_size=40)


def _line_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _written(value: str, style: str, layout: int, width: int) -> str:
    """``value`` written by ruamel's emitter in ``style`` (it may pick another when it must)."""
    node = _STYLES[style](value)
    data = [{"k": node}, {"seq": [node]}, {"deep": {"er": [{"k": node}]}}][layout]
    yaml = YAML()
    yaml.width = width
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


_PATHS: list[Path] = [("k",), ("seq", 0), ("deep", "er", 0, "k")]


@settings(max_examples=400, deadline=None, derandomize=True)
@given(
    value=_VALUES,
    style=st.sampled_from(sorted(_STYLES)),
    layout=st.integers(0, 2),
    width=st.sampled_from([12, 40, 200]),
    crlf=st.booleans(),
)
def test_every_character_maps_to_where_it_is_written(
    value: str, style: str, layout: int, width: int, crlf: bool
) -> None:
    text = _written(value, style, layout, width)
    if crlf:
        text = text.replace("\n", "\r\n")
    loaded = load_text(text)
    assert loaded.problems == []
    document = loaded.documents[0]
    expected = document.data
    for part in _PATHS[layout]:
        expected = expected[part]
    scalar = document.source_map.scalar(_PATHS[layout])
    assert scalar is not None
    decoded = decode(loaded.text, scalar)
    assert decoded is not None
    assert decoded.value == expected
    for index, char in enumerate(decoded.value):
        source = text[decoded.starts[index] : decoded.ends[index]]
        folded = source in ("\n", "\r\n") and char in (" ", "\n")
        escaped = scalar.style == "double-quoted" and source.startswith("\\")
        quoted = scalar.style == "single-quoted" and source == "''" and char == "'"
        assert source == char or folded or escaped or quoted, (index, char, source)
        span = locate(loaded.text, scalar, index, index + 1)
        lf_text = text.replace("\r\n", "\n")
        assert (span.line, span.column) == _line_column(
            lf_text, _lf_offset(text, decoded.starts[index])
        )


def _lf_offset(text: str, offset: int) -> int:
    """The offset in the same text with CRLF line ends written as LF."""
    return offset - text.count("\r\n", 0, offset)
