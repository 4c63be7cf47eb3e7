"""Template actions that break YAML: a file meant to be rendered first.

A Helm chart's templates, a Jinja or Go template, hold actions such as ``{{ .Values.x }}``,
``{{- if .Values.gpu }}`` or ``{% for %}`` that only the renderer understands; most of them are
not YAML until rendered. When such a file fails to parse, the action on a line (outside its
comments) says why, and what to lint instead. The decision is made on the lines the parser could
not read, never on the whole file's text: an action in a comment or in a string value of a file
that parses does not make that file a template.

Scanning is linear in the line's length (``str.find``, no backtracking), so a line of a few
hundred kilobytes costs one pass.
"""

from __future__ import annotations

from dataclasses import dataclass

_OPENERS = ("{{", "{%")
_CLOSERS = {"{{": "}}", "{%": "%}"}
#: How much of an action a message shows.
_SHOWN = 60


@dataclass(frozen=True)
class TemplateAction:
    """An action on a line: its 1-based column and its text (shortened for messages)."""

    column: int
    text: str


def action_on_line(line: str) -> TemplateAction | None:
    """The first template action on ``line`` before its comment, if any."""
    code = _without_comment(line)
    starts = [found for found in (code.find(opener) for opener in _OPENERS) if found >= 0]
    if not starts:
        return None
    start = min(starts)
    closer = _CLOSERS[code[start : start + 2]]
    end = code.find(closer, start + 2)
    if end < 0:
        return None
    text = code[start : end + 2]
    if len(text) > _SHOWN:
        text = text[: _SHOWN - 5] + " ... " + closer
    return TemplateAction(start + 1, text)


def _without_comment(line: str) -> str:
    """``line`` up to a YAML comment: ``#`` at its start or after a blank, outside quotes."""
    quote = ""
    for index, character in enumerate(line):
        if quote:
            if character == quote:
                quote = ""
        elif character in "\"'" and (index == 0 or line[index - 1] in " \t[{,:-"):
            quote = character
        elif character == "#" and (index == 0 or line[index - 1] in " \t"):
            return line[:index]
    return line
