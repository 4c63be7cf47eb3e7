"""A YAML stream with one broken document: the others are still read, at their own positions."""

from __future__ import annotations

from linter.load import Limits, load_text
from linter.load.positions import Span

STREAM = """\
kind: first
name: a
---
kind: broken
list: [unclosed
---
kind: third
value: "café"
---
kind: fourth
token: {{HF_TOKEN}}
---
kind: fifth
"""


def test_the_other_documents_are_read_with_their_positions() -> None:
    loaded = load_text(STREAM)
    assert [d.data["kind"] for d in loaded.documents] == ["first", "third", "fifth"]
    assert [d.index for d in loaded.documents] == [0, 1, 2]
    third = loaded.documents[1]
    assert third.source_map.locate(("value",)) == Span(8, 1, 8, 6)
    scalar = third.source_map.scalar(("value",))
    assert scalar is not None
    assert STREAM[scalar.start : scalar.end] == '"café"'
    assert [(p.span.line, p.span.column) for p in loaded.problems] == [(6, 1), (11, 9)]
    assert loaded.problems[0].message.startswith("YAML syntax error")
    assert loaded.problems[1].message == (
        "a mapping or sequence used as a key is not supported (the line holds the template "
        "placeholder {{HF_TOKEN}}: lint the rendered output, e.g. helm template ... | gpulint "
        "check -)"
    )


def test_a_crossed_limit_still_stops_the_file() -> None:
    deep = "kind: one\n---\n" + "a: " + "[" * 50 + "]" * 50 + "\n---\nkind: three\n"
    loaded = load_text(deep, Limits(max_depth=20))
    assert [d.data for d in loaded.documents] == [{"kind": "one"}]
    assert len(loaded.problems) == 1
    assert "nesting is deeper than 20 levels" in loaded.problems[0].message


def test_a_stream_without_problems_is_read_once_as_before() -> None:
    loaded = load_text("a: 1\n---\nb: 2\n")
    assert [d.data for d in loaded.documents] == [{"a": 1}, {"b": 2}]
    assert loaded.problems == []


def test_json_is_one_document() -> None:
    loaded = load_text('{"a": [1,', json=True)
    assert loaded.documents == []
    assert len(loaded.problems) == 1
