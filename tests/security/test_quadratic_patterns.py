"""Regular expressions that go quadratic on long lines.

Six patterns read text from the repository and backtracked over a long line that almost matched
at every position: the template-placeholder hint on a line that does not parse, suppression
comments (``# gpulint: ignore[`` repeated without a ``]``), standard input's ``# Source:``
lines (a path with a long run of blanks), Kubernetes placeholders and launcher templates
(``{{`` repeated without ``}}``), and parameter counts (``70B``) and durations with long
padding. A file of a few hundred kilobytes took minutes. Now each is a scanner that counts the
characters it passes over (``linter.load.scanning.Scanner``), or a pattern that sees a bounded,
stripped value; each test below gives a 300 KB line and counts the work, it does not time it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from linter import load as loading
from linter.formats.builder import Unrendered, unrendered
from linter.formats.cmdline import durations
from linter.load.scanning import Scanner, TemplatePlaceholder, first_placeholder
from linter.load.stdin import source_of
from linter.load.templates import action_on_line
from linter.model import base
from linter.run.suppressions import directive, parse

SIZE = 300_000
#: Characters a scanner may pass over per character of its line.
STEPS_PER_CHARACTER = 8


def _line(piece: str, tail: str = "") -> str:
    return piece * (SIZE // len(piece)) + tail


def _bounded(scanner: Scanner) -> bool:
    return scanner.steps <= STEPS_PER_CHARACTER * len(scanner.text) + 100


HINT_LINES = {
    "openers": _line("{{"),
    "statement-openers": _line("{%"),
    "openers-then-comment": _line("{{") + " # }}",
    "quotes": _line("'{{"),
}


@pytest.mark.parametrize("line", HINT_LINES.values(), ids=HINT_LINES.keys())
def test_the_template_hint_scans_a_line_once(line: str) -> None:
    scanner = Scanner(line)
    action_on_line(scanner)
    assert _bounded(scanner)


def test_the_template_hint_is_computed_once_per_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Thousands of problems on one long line (duplicate keys) scan it once, not each."""
    scanned: list[int] = []

    def counted(line: str) -> object:
        scanned.append(len(line))
        return action_on_line(line)

    monkeypatch.setattr(loading, "action_on_line", counted)
    text = "{" + ", ".join(["a: 1"] * 20_000) + "}\n"
    assert len(loading.load_text(text).problems) == 19_999
    assert scanned == [len(text) - 1]


SUPPRESSION_LINES = {
    "unclosed": _line("# gpulint: ignore["),
    "unclosed-after-blanks": _line("#  \t gpulint:   ignore["),
    "hashes-and-blanks": _line("# " + " " * 40),
    "closed-at-the-end": _line("# gpulint: ignore[", "GL202] reason"),
}


@pytest.mark.parametrize("line", SUPPRESSION_LINES.values(), ids=SUPPRESSION_LINES.keys())
def test_a_suppression_comment_is_scanned_once(line: str) -> None:
    scanner = Scanner(line)
    directive(scanner, 1, 0, lambda offset: False)
    assert _bounded(scanner)


def test_suppressions_still_read_as_written() -> None:
    text = "a: 1  # note # gpulint:  ignore[GL202, GL101] long run\nb: 2 # gpulint: ignore[\n"
    (found,) = parse(text)
    assert (found.line, found.column, found.end_column) == (1, 14, 55)
    assert (found.rule_ids, found.reason) == (("GL202", "GL101"), "long run")


SOURCE_LINES = {
    "blanks-inside": "# Source: a" + " " * SIZE + "b",
    "blanks-around": " " * SIZE + "# Source:" + " " * SIZE,
    "hashes": _line("#"),
}


@pytest.mark.parametrize("line", SOURCE_LINES.values(), ids=SOURCE_LINES.keys())
def test_a_source_line_is_scanned_once(line: str) -> None:
    scanner = Scanner(line)
    source_of(scanner)
    assert _bounded(scanner)


def test_source_lines_still_read_as_written() -> None:
    assert source_of("#Source:  chart/templates/a b.yaml \n") == "chart/templates/a b.yaml"
    assert source_of("# Sources: x") is None
    assert source_of("# Source:   ") is None


PLACEHOLDER_LINES = {
    "braces": _line("{{"),
    "braces-across-lines": _line("{{\n}}"),
    "dollar-braces": _line("${"),
    "dollars": _line("$"),
    "mixed": _line("{{$"),
}


@pytest.mark.parametrize("bare_names", [False, True], ids=["kubernetes", "launcher"])
@pytest.mark.parametrize("line", PLACEHOLDER_LINES.values(), ids=PLACEHOLDER_LINES.keys())
def test_a_placeholder_is_sought_in_one_pass(line: str, bare_names: bool) -> None:
    scanner = Scanner(line)
    assert first_placeholder(scanner, bare_names) is None
    assert _bounded(scanner)


#: What the replaced regular expressions found, for the scanner to agree with.
_KUBERNETES = re.compile(r"\{\{.*?\}\}|\$\{[^}]*\}")
_LAUNCHER = re.compile(r"\{\{.*?\}\}|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*")
SAMPLES = [
    "{{ .Values.gpu }}",
    "a {{{ x }}} b",
    "{{ x\n}} ${Y}",
    "x ${A}${B}",
    "$$ ${ {{}} ",
    "cost: $5 or $HOME_DIR/x",
    "${unclosed and {{ unclosed",
    "$1 $_a1",
    "{{}}",
]


@pytest.mark.parametrize("text", SAMPLES)
def test_the_placeholder_scanner_finds_what_the_expressions_found(text: str) -> None:
    for pattern, bare in ((_KUBERNETES, False), (_LAUNCHER, True)):
        match = pattern.search(text)
        expected = None if match is None else TemplatePlaceholder(match.start(), match.group(0))
        assert first_placeholder(text, bare) == expected


def test_every_placeholder_check_uses_the_scanner() -> None:
    hostile = _line("{{")
    # one placeholder check serves every adapter (Kubernetes, SkyPilot, dstack)
    assert unrendered("image", hostile) is None
    assert unrendered("image", "x{{ .Values.tag }}") is not None
    assert unrendered("gpu", "$GPU") == Unrendered("gpu", "$GPU")


class _Seen:
    """A compiled expression that records the length of every string it is given."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.lengths: list[int] = []

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self.pattern, name)

        def call(text: str, *args: Any) -> Any:
            self.lengths.append(len(text))
            return method(text, *args)

        return call


PADDED = {
    "inside": "1" + " " * SIZE + "B",
    "around": " " * SIZE + "70B" + " " * SIZE,
    "digits": "7" * SIZE + "x",
}


def test_a_padded_parameter_count_is_read_from_a_bounded_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = _Seen(base._COUNT)
    monkeypatch.setattr(base, "_COUNT", seen)
    assert base.parse_count(PADDED["inside"]) == PADDED["inside"]  # left to the type check
    assert base.parse_count(PADDED["around"]) == 70e9
    assert base.parse_count(PADDED["digits"]) == PADDED["digits"]
    assert base.parse_count(" 1.5 T ") == 1.5e12
    assert max(seen.lengths) <= base.MAX_COUNT_TEXT


def test_a_padded_duration_is_read_from_a_bounded_value(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _Seen(durations._WRITTEN)
    monkeypatch.setattr(durations, "_WRITTEN", seen)
    with pytest.raises(durations.DurationProblem):
        durations.seconds(PADDED["inside"].replace("B", "h"), "s", "smh")
    assert durations.seconds(" " * SIZE + "2 h" + " " * SIZE, "s", "smh") == 7200
    assert durations.seconds("30", "m", "smh") == 1800
    assert max(seen.lengths) <= durations.MAX_DURATION_TEXT


def test_the_published_count_pattern_does_not_backtrack_over_blanks() -> None:
    """The pattern in schemas/ has the suffix's blanks inside its optional group: one blank run
    next to the number, not two around an optional suffix."""
    assert r"\s*([KkMmBbTt]?)\s*" not in base._COUNT.pattern
    assert base._COUNT.match("70 B") and base._COUNT.match(" 7.2e9 ") and base._COUNT.match("1k")
