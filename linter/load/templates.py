"""Template actions that break YAML: a file meant to be rendered first.

A Helm chart's templates, a Jinja or Go template, hold actions such as ``{{ .Values.x }}``,
``{{- if .Values.gpu }}`` or ``{% for %}`` that only the renderer understands; most of them are
not YAML until rendered. When such a file fails to parse, the action on a line (outside its
comments) says why, and what to lint instead. The decision is made on the lines the parser could
not read, never on the whole file's text: an action in a comment or in a string value of a file
that parses does not make that file a template.

Scanning is linear in the line's length (:class:`~linter.load.scanning.Scanner`, no
backtracking), so a line of a few hundred kilobytes costs one pass.
"""

from __future__ import annotations

from linter.load.scanning import Scanner
from linter.records import datarecord

_OPENERS = ("{{", "{%")
_CLOSERS = {"{{": "}}", "{%": "%}"}
#: How much of an action a message shows.
_SHOWN = 60


@datarecord
class TemplateAction:
    """An action on a line: its 1-based column and its text (shortened for messages)."""

    column: int
    text: str


def action_on_line(line: str | Scanner) -> TemplateAction | None:
    """The first template action on ``line`` before its comment, if any."""
    scanner = line if isinstance(line, Scanner) else Scanner(line)
    code = _comment_start(scanner)
    found = (scanner.find(opener, 0) for opener in _OPENERS)
    starts = [start for start in found if 0 <= start < code]
    if not starts:
        return None
    start = min(starts)
    closer = _CLOSERS[scanner.text[start : start + 2]]
    end = scanner.find(closer, start + 2)
    if end < 0 or end + 2 > code:
        return None
    text = scanner.text[start : end + 2]
    if len(text) > _SHOWN:
        text = text[: _SHOWN - 5] + " ... " + closer
    return TemplateAction(start + 1, text)


def without_action_lines(text: str) -> str:
    """``text`` as YAML that keeps every line number: each line that holds nothing but one
    template action (``{{- if .Values.x }}``, ``{{- include "labels" . | nindent 4 }}``, ``{% for
    %}``) emptied, and a value that is one action (``image: {{ include "image" . }}``) quoted, so
    it reads as the placeholder it is (an unknown value), not as a YAML flow mapping. A line
    holding anything else is left as it is."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        body = line.strip()
        if _one_action(body):
            lines[index] = ""
            continue
        key, separator, value = line.partition(": ")
        if not separator:
            key, separator, value = line.partition("- ")
            if key.strip():
                continue
        value = value.strip()
        if value.startswith("{{") and _one_action(value) and "'" not in value:
            lines[index] = f"{key}{separator}'{value}'"
    return "\n".join(lines)


def _one_action(body: str) -> bool:
    """Whether ``body`` is exactly one action, from its opener to the closer that ends it."""
    opener = body[:2]
    return opener in _CLOSERS and body.find(_CLOSERS[opener], 2) == len(body) - 2


def _comment_start(scanner: Scanner) -> int:
    """Where a YAML comment starts on the line (``#`` at its start or after a blank, outside
    quotes), else the line's length."""
    line, quote = scanner.text, ""
    for index, character in enumerate(line):
        if quote:
            if character == quote:
                quote = ""
        elif character in "\"'" and (index == 0 or line[index - 1] in " \t[{,:-"):
            quote = character
        elif character == "#" and (index == 0 or line[index - 1] in " \t"):
            scanner.steps += index + 1
            return index
    scanner.steps += len(line) + 1
    return len(line)
