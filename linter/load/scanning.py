"""Linear scanning of untrusted text, with the work counted.

A regular expression such as ``\\{\\{.*?\\}\\}`` is quadratic on a long line that almost
matches at every position (``{{{{{{...`` without a closer): each start scans to the line's end
again. The scanners here never look at a character twice for the same purpose:
:meth:`Scanner.find` remembers, for each needle, where it was last found, so a search from any
point before that answer returns it without scanning again. Each call counts the
characters it passes over in :attr:`Scanner.steps`, so a test can bound the work on a hostile
line without timing it.

:func:`first_placeholder` is the one definition of a template placeholder left in a value:
``{{ ... }}`` on one line (Helm, Jinja, Go templates), ``${...}`` (envsubst, Terraform, shell)
and, where asked, a bare ``$NAME``.
"""

from __future__ import annotations

from dataclasses import field

from linter.records import datarecord

_NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_NAME_PART = _NAME_START | frozenset("0123456789")


@datarecord(frozen=False, slots=True)
class Scanner:
    """One text, searched left to right."""

    text: str
    steps: int = 0
    #: needle -> (the start of the last search, where it found the needle: -1 for nowhere).
    _found: dict[str, tuple[int, int]] = field(default_factory=dict)

    def find(self, needle: str, start: int) -> int:
        """The first index at or after ``start`` where ``needle`` is, or -1. A search from
        inside the span an earlier search of the same needle passed over is answered from it."""
        known = self._found.get(needle)
        if known is not None:
            searched_from, at = known
            if searched_from <= start and (at < 0 or start <= at):
                self.steps += 1
                return at
        at = self.text.find(needle, start)
        self.steps += (len(self.text) if at < 0 else at + len(needle)) - start + 1
        self._found[needle] = (start, at)
        return at

    def skip(self, characters: frozenset[str], start: int) -> int:
        """The first index at or after ``start`` whose character is not in ``characters``."""
        end = start
        while end < len(self.text) and self.text[end] in characters:
            end += 1
        self.steps += end - start + 1
        return end

    def stripped(self, start: int) -> str:
        """The text from ``start`` without surrounding whitespace."""
        self.steps += len(self.text) - start + 1
        return self.text[start:].strip()

    def at(self, needle: str, index: int) -> bool:
        """Whether ``needle`` is written at ``index``."""
        self.steps += len(needle)
        return self.text.startswith(needle, index)


@datarecord(slots=True)
class TemplatePlaceholder:
    """A placeholder in a text: its 0-based offset and what is written."""

    offset: int
    text: str


def first_placeholder(text: str | Scanner, bare_names: bool = False) -> TemplatePlaceholder | None:
    """The first template placeholder in ``text``: ``{{ ... }}`` (closed on its line) or
    ``${...}``, and with ``bare_names`` also ``$NAME``; None when it holds none."""
    scanner = text if isinstance(text, Scanner) else Scanner(text)
    source = scanner.text
    braces, dollar = scanner.find("{{", 0), scanner.find("$", 0)
    while braces >= 0 or dollar >= 0:
        if braces >= 0 and (dollar < 0 or braces < dollar):
            close, line_end = scanner.find("}}", braces + 2), scanner.find("\n", braces + 2)
            if close >= 0 and (line_end < 0 or close < line_end):
                return TemplatePlaceholder(braces, source[braces : close + 2])
            braces = scanner.find("{{", braces + 1)
            continue
        if scanner.at("{", dollar + 1):
            close = scanner.find("}", dollar + 2)
            if close >= 0:
                return TemplatePlaceholder(dollar, source[dollar : close + 1])
        elif bare_names and dollar + 1 < len(source) and source[dollar + 1] in _NAME_START:
            end = scanner.skip(_NAME_PART, dollar + 1)
            return TemplatePlaceholder(dollar, source[dollar:end])
        dollar = scanner.find("$", dollar + 1)
    return None
