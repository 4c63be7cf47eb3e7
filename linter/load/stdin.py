"""Standard input as files: ``helm template ... | gpulint check -``.

Helm writes each rendered document after a ``# Source: chart/templates/file.yaml`` comment.
Those documents are reported as the template file they came from, so a finding names the chart's
template; lines count from the first line after the comment, which is the template's own line as
long as the template adds no lines above it (the usual case: templating inside values).
Documents without such a comment belong to standard input itself, named by
``--stdin-filename`` (``<stdin>`` by default), at their lines in it: one ``# Source:`` comment
does not make the others disappear.

A ``# Source:`` path is text from the stream, as untrusted as the documents: it is a name for
reports only. Every candidate made here is located at standard input's own name (what a
``model.config`` is read relative to, and whether the text is JSON), never at a Source path, so
``# Source: /elsewhere/x.yaml`` or ``../../x.yaml`` cannot make gpulint read beside it.
"""

from __future__ import annotations

from pathlib import Path

from linter.load.discovery import PathCandidate
from linter.load.scanning import Scanner
from linter.records import datarecord

STDIN_NAME = "<stdin>"
_SOURCE = "Source:"
_BLANKS = frozenset(" \t\r\n\f\v")


@datarecord
class TemplateOutput:
    """One template's documents from a rendered stream, joined in their order; ``source`` is
    None for the documents without a ``# Source:`` comment, whose text is the whole stream with
    every other document's lines left blank (so their lines are the stream's)."""

    source: str | None
    text: str


def split_rendered(text: str) -> list[TemplateOutput]:
    """The documents of a rendered stream grouped by their ``# Source:`` template, then those
    without one; empty when the stream has no such comments (then it is one plain file)."""
    groups: dict[str, list[str]] = {}
    lines = text.splitlines(keepends=True)
    blank = list(lines)
    unsourced = False
    for start, end in _documents(lines):
        first = next((i for i in range(start, end) if lines[i].strip()), start)
        source = source_of(lines[first])
        if source is None:
            unsourced = unsourced or _has_content(lines[start:end])
            continue
        groups.setdefault(source, []).append("".join(lines[first + 1 : end]))
        for i in range(start, end):
            blank[i] = _line_end(lines[i])
    if not groups:
        return []
    out = [TemplateOutput(source, "---\n".join(bodies)) for source, bodies in groups.items()]
    if unsourced:
        out.append(TemplateOutput(None, "".join(blank)))
    return out


def source_of(line: str | Scanner) -> str | None:
    """The template a ``# Source: PATH`` comment line names, or None. A scanner, not a regular
    expression (which went back over the path's blanks from each of its characters): each
    character of the line is looked at once or twice, however long."""
    scanner = line if isinstance(line, Scanner) else Scanner(line)
    start = scanner.skip(_BLANKS, 0)
    if not scanner.at("#", start):
        return None
    name = scanner.skip(_BLANKS, start + 1)
    if not scanner.at(_SOURCE, name):
        return None
    return scanner.stripped(name + len(_SOURCE)) or None


def _documents(lines: list[str]) -> list[tuple[int, int]]:
    """The ``[start, end)`` line ranges of the documents between ``---`` lines that hold more
    than blank lines."""
    out: list[tuple[int, int]] = []
    start = 0
    for i, line in enumerate([*lines, "---"]):
        if _is_separator(line):
            if any(lines[j].strip() for j in range(start, i)):
                out.append((start, i))
            start = i + 1
    return out


def _is_separator(line: str) -> bool:
    """``---`` alone on its line, perhaps with a comment after it."""
    if not line.startswith("---"):
        return False
    rest = line[3:].strip()
    return not rest or (rest.startswith("#") and line[3:4].isspace())


def _has_content(lines: list[str]) -> bool:
    """Whether lines hold more than comments and blank lines."""
    return any(line.strip() and not line.lstrip().startswith("#") for line in lines)


def _line_end(line: str) -> str:
    return line[len(line.rstrip("\r\n")) :]


def stdin_candidates(raw: bytes, name: str | None, boundary: Path) -> list[PathCandidate]:
    """Candidates for what was read from standard input: one per rendered template and one for
    the documents without a template, else one; all located at ``name`` (``<stdin>`` by
    default), the rendered ones displayed as their template."""
    location = name or STDIN_NAME
    try:
        templates = split_rendered(raw.decode("utf-8"))
    except UnicodeDecodeError:
        templates = []  # not UTF-8: linted as one file, which reports the encoding problem
    if not templates:
        return [PathCandidate(location, location, True, boundary, raw)]
    # A chart renders many objects gpulint has nothing to say about: not named one by one,
    # they are skipped silently like a directory's other YAML.
    return [
        PathCandidate(
            location,
            location if t.source is None else t.source,
            t.source is None,
            boundary,
            t.text.encode("utf-8"),
        )
        for t in templates
    ]
