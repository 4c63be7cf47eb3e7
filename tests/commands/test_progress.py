"""The progress line: on a terminal only, after DELAY seconds, rewritten in place and erased at
the end; driven here by an injected clock (no sleeping, no thread)."""

from __future__ import annotations

import io

from conftest import REPO, run_cli

from linter.commands.progress import DELAY, ProgressLine


class _Terminal(io.StringIO):
    def __init__(self, terminal: bool = True) -> None:
        super().__init__()
        self.terminal = terminal

    def isatty(self) -> bool:
        return self.terminal


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_line_appears_after_the_delay_is_rewritten_and_erased() -> None:
    stream, clock = _Terminal(), _Clock()
    line = ProgressLine(stream, "linting 3 files", clock=clock)
    clock.now += DELAY - 0.5
    line.tick()
    assert stream.getvalue() == ""  # a quick run shows nothing
    clock.now += 0.5
    line.tick()
    clock.now += 1.0
    line.tick()
    line.finish()
    assert stream.getvalue() == (
        "\r\033[Kgpulint: linting 3 files (2s)\r\033[Kgpulint: linting 3 files (3s)\r\033[K"
    )


def test_nothing_is_written_when_not_a_terminal_or_quiet() -> None:
    for stream, enabled in ((_Terminal(terminal=False), True), (_Terminal(), False)):
        clock = _Clock()
        line = ProgressLine(stream, "linting 3 files", enabled=enabled, clock=clock)
        clock.now += 60
        line.tick()
        line.finish()
        assert stream.getvalue() == ""


def test_a_quick_run_erases_nothing() -> None:
    stream = _Terminal()
    with ProgressLine(stream, "linting 1 file", clock=_Clock()):
        pass
    assert stream.getvalue() == ""


def test_a_piped_run_has_no_progress_on_stderr() -> None:
    result = run_cli("check", "--no-cache", "--format", "json", str(REPO / "examples" / "memory"))
    assert "\r" not in result.err and "linting" not in result.err
