"""A progress line on stderr while a long run lints (issue 30): only on a terminal, only after
the run has taken ``DELAY`` seconds (a quick run shows nothing), rewritten in place each
``INTERVAL`` and erased when the run ends, so neither a piped stderr nor the report on stdout
ever holds it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from types import TracebackType
from typing import TextIO

#: Seconds a run takes before the line appears, and between its updates.
DELAY = 2.0
INTERVAL = 1.0
_ERASE = "\r\033[K"


class ProgressLine:
    """``with ProgressLine(sys.stderr, "linting 1,204 files"):`` shows
    ``gpulint: linting 1,204 files (5s)`` while the block runs past ``DELAY`` seconds.
    ``clock`` is injectable so that :meth:`tick` can be driven without sleeping."""

    def __init__(
        self,
        stream: TextIO,
        text: str,
        *,
        enabled: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._stream = stream
        self._text = text
        self._enabled = enabled and _is_terminal(stream)
        self._clock = clock
        self._started = clock()
        self._shown = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def tick(self) -> None:
        """Rewrite the line if the run has taken ``DELAY`` seconds or more."""
        elapsed = self._clock() - self._started
        if not self._enabled or elapsed < DELAY:
            return
        self._stream.write(f"{_ERASE}gpulint: {self._text} ({elapsed:.0f}s)")
        self._stream.flush()
        self._shown = True

    def finish(self) -> None:
        """Stop updating and erase the line, if it was shown."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._shown:
            self._stream.write(_ERASE)
            self._stream.flush()
            self._shown = False

    def _run(self) -> None:
        if self._stop.wait(DELAY):
            return
        while not self._stop.is_set():
            self.tick()
            self._stop.wait(INTERVAL)

    def __enter__(self) -> ProgressLine:
        self._started = self._clock()
        if self._enabled:
            self._thread = threading.Thread(target=self._run, name="gpulint-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.finish()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
