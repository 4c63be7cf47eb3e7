"""Positions inside a long string, recomputed for every finding.

A finding inside a YAML string (a KubeRay ``serveConfigV2``, a ``run:`` script) is placed by
re-reading the string and walking from its start to the offset, once per located word: a
``serveConfigV2`` of 110 KB with 4,000 ``engine_kwargs`` took 15 seconds, and the cost grew
with findings x length. Now the string's line starts are found once per string
(``linter.load.scalar_offsets``) and each position is a bisection: the test counts the
characters scanned for line breaks, it does not time the run.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import REPO, run_cli

from linter.load import scalar_offsets
from linter.load.positions import ScalarSpan, Span

FIXTURE = (REPO / "tests/formats/kubernetes/bad/rayservice-long-context.yaml").read_text()
KWARG = "                max_model_len: 131072  # expect: GL102\n"


def _hostile(keys: int) -> str:
    """The fixture's LLM config with ``keys`` engine_kwargs before its max_model_len."""
    padding = "".join(f"                k{i}: {i}\n" for i in range(keys))
    return FIXTURE.replace(KWARG, padding + KWARG)


def test_a_long_embedded_config_is_scanned_for_lines_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scanned: list[int] = []
    scan = scalar_offsets.breaks_after

    def counted(text: str, start: int, end: int) -> tuple[int, ...]:
        scanned.append(end - start)
        return scan(text, start, end)

    monkeypatch.setattr(scalar_offsets, "breaks_after", counted)
    scalar_offsets._line_starts.cache_clear()
    text = _hostile(11_000)
    assert len(text) > 300_000
    (tmp_path / "ray.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    report = json.loads(run_cli("check", "--format", "json", "ray.yaml").out)
    line = text.splitlines().index(KWARG.rstrip("\n")) + 1
    gl102 = [(f["line"], f["column"]) for f in report["findings"] if f["ruleId"] == "GL102"]
    assert gl102 == [(line, 17)]
    assert sum(scanned) <= len(text)


def _walked(text: str, scalar: ScalarSpan, target: int) -> tuple[int, int]:
    """The position of ``target`` the way it was computed before: walking from the start."""
    line, column = scalar.span.line, scalar.span.column
    for offset in range(scalar.start, target):
        ch = text[offset]
        if ch in "\r\n\x85\u2028\u2029" and not (
            ch == "\r" and text[offset + 1 : offset + 2] == "\n"
        ):
            line, column = line + 1, 1
        elif ch != "\r":
            column += 1
    return line, column


def test_bisection_gives_the_positions_the_walk_gave() -> None:
    generator = random.Random(25)
    for _ in range(200):
        text = "".join(generator.choice("ab \r\n\x85\u2028") for _ in range(60))
        start = generator.randrange(0, 20)
        end = generator.randrange(start, len(text) + 1)
        scalar = ScalarSpan(Span(3, 5, 3, 6), start, end, "plain")
        for target in range(start, end + 1):
            first, last = scalar_offsets._positions(text, scalar, target, target)
            assert first == last == _walked(text, scalar, target)
