"""The loader: values, positions (YAML and JSON), multi-document files and every kind of bad input."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from linter.load import Limits, LoadProblem, load_bytes, load_text, read
from linter.load.positions import Span, format_path, parse_path

MANIFEST = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata:
  name: chat
spec:
  profile: inference
  endpoints:
    - provider: bedrock
      region: eu-central-1
---
kind: QuotaLedger
"""


def test_values_and_key_positions() -> None:
    loaded = load_text(MANIFEST)
    assert loaded.problems == []
    assert [d.data.get("kind") for d in loaded.documents] == ["Workload", "QuotaLedger"]
    first = loaded.documents[0]
    assert first.data["spec"]["endpoints"][0] == {"provider": "bedrock", "region": "eu-central-1"}
    where = first.source_map.locate
    assert where(("spec", "profile")) == Span(6, 3, 6, 10)
    assert where(("spec", "endpoints", 0)) == Span(8, 7, 8, 8)
    assert where(("spec", "endpoints", 0, "region")) == Span(9, 7, 9, 13)
    # a missing path resolves to its nearest recorded ancestor
    assert where(("spec", "checkpointing", "enabled")) == Span(5, 1, 5, 5)
    second = loaded.documents[1]
    assert second.index == 1
    assert second.source_map.locate(("kind",)) == Span(11, 1, 11, 5)


def test_json_positions_use_the_same_mechanism() -> None:
    text = '{\n\t"kind": "Workload",\n\t"spec": {"profile": "training",\n\t\t"nodes": [1, 2]}\n}\n'
    loaded = load_text(text, json=True)
    assert loaded.problems == []
    document = loaded.documents[0]
    assert document.data == {"kind": "Workload", "spec": {"profile": "training", "nodes": [1, 2]}}
    assert document.source_map.locate(("spec", "profile")) == Span(3, 11, 3, 20)
    assert document.source_map.locate(("spec", "nodes", 1)) == Span(4, 16, 4, 17)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("a: 70B", "70B"),
        ("a: 7.2e9", 7.2e9),
        ("a: 0x10", 16),
        ("a: 0o17", 15),
        ("a: ~", None),
        ("a: yes", "yes"),  # YAML 1.2: only true/false are booleans
        ("a: True", True),
        ("a: '8'", "8"),
        ("a: !!str 8", "8"),
        ("a: !!float 8", 8.0),
        ("a: -.inf", float("-inf")),
        ("a: +12", 12),
        ("a: .5", 0.5),
        ("a: -3", -3),
        ("a: 1.5GiB", "1.5GiB"),
        ("a: e5", "e5"),
        ("a: !!int '12'", 12),
    ],
)
def test_scalars_follow_the_yaml_1_2_core_schema(text: str, value: object) -> None:
    assert load_text(text).documents[0].data == {"a": value}


def test_duplicate_keys_are_reported_with_both_lines() -> None:
    loaded = load_text("spec:\n  profile: inference\n  profile: training\n")
    (problem,) = loaded.problems
    assert problem.message == "duplicate key 'profile' (first defined on line 2)"
    assert problem.span == Span(3, 3, 3, 10)
    assert loaded.documents[0].data == {"spec": {"profile": "training"}}


def test_syntax_error_has_a_position_and_keeps_earlier_documents() -> None:
    loaded = load_text("a: 1\n---\nb: [1, 2\nc: 3\n")
    assert [d.data for d in loaded.documents] == [{"a": 1}]
    (problem,) = loaded.problems
    assert problem.message.startswith("YAML syntax error:")
    assert problem.span.line == 4


def test_tags_never_construct_objects() -> None:
    loaded = load_text("x: !!python/object/apply:os.system ['echo pwned']\n")
    assert loaded.problems == []
    assert loaded.documents[0].data == {"x": ["echo pwned"]}


def test_merge_keys_apply_with_explicit_keys_winning() -> None:
    text = "base: &b {nodes: 1, capacity: spot}\njob:\n  <<: *b\n  capacity: on-demand\n"
    assert load_text(text).documents[0].data["job"] == {"nodes": 1, "capacity": "on-demand"}


def test_alias_bomb_is_refused_quickly() -> None:
    lines = ["a: &a [" + ", ".join(['"lol"'] * 10) + "]"]
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 10) + "]")
    loaded = load_text("\n".join(lines) + "\n")
    (problem,) = loaded.problems
    assert "expands to more than 1,000,000 nodes" in problem.message
    assert loaded.documents == []


def test_recursive_alias_is_a_problem_not_a_hang() -> None:
    (problem,) = load_text("a: &x [1, *x]\n").problems
    assert problem.message == "alias *x refers to itself (a cycle)"
    assert problem.span == Span(1, 11, 1, 13)


@pytest.mark.parametrize("depth", [10_000, 200_000])
def test_deep_nesting_is_refused_at_the_limit(depth: int) -> None:
    loaded = load_text("a: " + "[" * depth + "]" * depth + "\n")
    (problem,) = loaded.problems
    assert problem.message.startswith("nesting is deeper than 200 levels")
    assert problem.span.line == 1


def test_block_nesting_limit_is_configurable() -> None:
    text = "".join(f"{'  ' * i}k{i}:\n" for i in range(6)) + "  " * 6 + "v: 1\n"
    assert load_text(text, Limits(max_depth=10)).problems == []
    assert load_text(text, Limits(max_depth=3)).problems[0].span == Span(4, 7, 4, 8)


def test_empty_and_comment_only_files_have_no_documents() -> None:
    assert load_text("").documents == []
    assert [d.data for d in load_text("# nothing here\n").documents] == []


def test_encodings() -> None:
    assert load_bytes(codecs.BOM_UTF8 + b"a: 1\n").documents[0].data == {"a": 1}
    utf16 = codecs.BOM_UTF16_LE + "a: ü\n".encode("utf-16-le")
    assert load_bytes(utf16).documents[0].data == {"a": "ü"}
    (problem,) = load_bytes(b"a: 1\nb: \xff\n").problems
    assert problem.message == "not valid UTF-8: byte 0xff at line 2, column 4"
    assert problem.span == Span(2, 4, 2, 5)
    (problem,) = load_bytes(b"\x7fELF\x02\x01\x00\x00").problems
    assert problem.message.startswith("binary content")


def test_crlf_line_endings_keep_line_numbers() -> None:
    loaded = load_text("a: 1\r\nb:\r\n  c: 2\r\n")
    assert loaded.documents[0].source_map.locate(("b", "c")) == Span(3, 3, 3, 4)


def test_tabs_in_yaml_indentation_are_a_syntax_error() -> None:
    (problem,) = load_text("a:\n\tb: 1\n").problems
    assert problem.span.line == 2


def test_read_refuses_oversized_and_unreadable_files(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("a: " + "x" * 100 + "\n")
    (problem,) = read(big, max_bytes=50).problems
    assert "above the 50-byte limit" in problem.message
    (problem,) = read(tmp_path / "missing.yaml").problems
    assert problem.message.startswith("cannot read file:")


def test_read_skips_files_without_a_marker(tmp_path: Path) -> None:
    other = tmp_path / "workflow.yaml"
    other.write_text("on: push\njobs: {}\n")
    assert read(other, markers=[b"gpulint.dev", b"kind"]).unrelated


@pytest.mark.parametrize(
    "text",
    [
        "apiVersion: gpulint.dev/v1alpha1\n",
        'apiVersion: "gpulint\\x2Edev/v1alpha1"\n',  # an escape can spell the marker in other bytes
        '{"apiVersion": "gpulint.d\\u0065v/v1alpha1"}',
    ],
)
def test_read_parses_files_that_may_hold_a_marker(tmp_path: Path, text: str) -> None:
    path = tmp_path / "x.yaml"
    path.write_text(text)
    loaded = read(path, markers=[b"gpulint.dev"])
    assert not loaded.unrelated
    assert loaded.documents[0].data["apiVersion"] == "gpulint.dev/v1alpha1"


def test_paths_round_trip() -> None:
    path = ("spec", "endpoints", 0, "region")
    assert format_path(path) == "spec.endpoints[0].region"
    assert parse_path("spec.endpoints[0].region") == path
    with pytest.raises(ValueError):
        parse_path("spec..x")


def test_json_surrogate_pair_escapes_are_read() -> None:
    # JSON escapes a character beyond U+FFFF as a UTF-16 pair; YAML's escapes do not allow that
    text = '{"a": "x\\ud83d\\ude00y", "b": "\\\\ud83d", "c": 1}'
    loaded = load_text(text, json=True)
    assert loaded.problems == []
    assert loaded.documents[0].data == {"a": "x\U0001f600y", "b": "\\ud83d", "c": 1}


def test_keys_with_dots_are_quoted_in_paths() -> None:
    path = ("metadata", "labels", "kueue.x-k8s.io/queue-name")
    assert format_path(path) == "metadata.labels['kueue.x-k8s.io/queue-name']"
    assert parse_path(format_path(path)) == path
    assert parse_path("x['a\\'b'][0]") == ("x", "a'b", 0)
    for bad in ("", "a.", ".a", "a[0]x", "a[x]", "a['x]"):
        with pytest.raises(ValueError):
            parse_path(bad)


@pytest.mark.parametrize("escape", ["\\UFFFFFFFF", "\\U00110000"])
def test_an_escape_beyond_unicode_is_a_syntax_error(escape: str) -> None:
    loaded = load_text(f'a: "{escape}"\n')
    assert loaded.documents == []
    [problem] = loaded.problems
    assert problem.message.startswith("YAML syntax error")


# Every way a node is written (block and flow, scalar styles, tags, anchors, aliases, merges,
# a duplicate key, a bad tag, an empty document) with the positions each one records.
EVERY_NODE = """\
base: &b {nodes: 1, capacity: spot}
job:
  <<: *b
  name: 'it''s'
  run: |
    python train.py
  fold: >-
    a
    b
  quoted: "x\\ty"
  items: [1, two, {k: v}, *b]
  tagged: !!int "3"
  bad: !!int three
  name: again
  ? complex
  : value
---
- plain
- &s shared
- *s
---
"""


def _everything(text: str) -> tuple[list[tuple[object, ...]], list[LoadProblem]]:
    loaded = load_text(text)
    return (
        [
            (d.index, d.data, d.source_map.document, d.source_map._spans, d.source_map._scalars)
            for d in loaded.documents
        ],
        loaded.problems,
    )


def test_the_pure_parser_reads_what_the_c_parser_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ruamel.yaml.clib (PyPy) events come from ruamel's pure-Python parser: same
    documents, positions and problems."""
    from ruamel.yaml import main

    with_c = _everything(EVERY_NODE)
    assert with_c[1] != []  # the duplicate key and the bad tag
    monkeypatch.setattr(main, "CParser", None)
    assert _everything(EVERY_NODE) == with_c


@pytest.mark.parametrize(
    "hostile",
    [
        "a: " + "[" * 300 + "]" * 300 + "\n",  # deeper than the limit: the file stops
        "a: &x [*x]\n",  # a cycle
        "a: [1, 2\nb: 3\n",  # a syntax error
        "a: *nowhere\n",
        "x: " + "\\" * 5 + "\n\x00",
    ],
)
def test_a_file_that_stops_early_leaves_nothing_behind(hostile: str) -> None:
    """Nothing is shared between files: what a hostile file did to the parser or the composer
    cannot change how the next file reads."""
    fresh = _everything(EVERY_NODE)
    load_text(hostile)
    assert _everything(EVERY_NODE) == fresh
