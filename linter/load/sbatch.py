"""A Slurm batch script read as ``sbatch`` reads it: the ``#SBATCH`` directives' arguments with
their positions, the directives ``sbatch`` never reads, and where the commands begin.

The reading follows SchedMD/slurm ``src/sbatch/opt.c`` (``_opt_batch_script`` and
``_get_argument``, at 284c3b95): a directive line starts with ``#SBATCH`` at its first character
(``#SLURM`` is read too, and deprecated; an indented ``#SBATCH`` or ``##SBATCH`` is a comment);
reading stops at the first line whose first non-blank character is not ``#``, so a directive
after the first command is silently ignored by sbatch (kept here, to be reported: a common
mistake); a line's arguments are split at blanks, single and double quotes group, a backslash
escapes the next character, and an unquoted ``#`` starts a comment. What the arguments mean
(``getopt_long`` over sbatch's option table) is the Slurm format's vocabulary
(``linter.formats.slurm``).

A script is text, not data, so its document is small: ``{"#SBATCH": [argument, ...]}`` with the
span of each argument in the source map, and the commands from ``body_line`` on for the command
readers. ``# gpulint.dev/<field>: <value>`` comment lines before the first command say what the
script cannot (the GPU type a partition has, a region). Bounds: at most ``MAX_ARGUMENTS``
arguments are read; each line is scanned once.
"""

from __future__ import annotations

import re
from dataclasses import field

from linter.load import SLURM_MAGIC as MAGIC
from linter.load.composer import Document
from linter.load.positions import Path, SourceMap, Span
from linter.records import datarecord

#: Most directive arguments read; beyond them the rest is a problem, not read.
MAX_ARGUMENTS = 1000
#: The path of the arguments in a document's data, and of a comment annotation's span.
DIRECTIVES: Path = ("#SBATCH",)
ANNOTATIONS: Path = ("#",)
#: Where the commands begin (a finding about the whole script points there).
SCRIPT: Path = ("script",)
_ANNOTATION = re.compile(r"#\s*gpulint\.dev/([a-z0-9-]+)\s*:\s*(.*?)\s*\Z")


@datarecord(slots=True)
class Argument:
    text: str  # quotes and escapes removed
    span: Span  # as written on its line


@datarecord(frozen=False)
class ScriptDocument(Document):
    """The directives and commands of one batch script."""

    arguments: list[Argument] = field(default_factory=list)
    #: ``#SBATCH`` lines after the first command: sbatch never reads them.
    ignored: list[Span] = field(default_factory=list)
    #: Problems with a directive line itself (an unmatched quote, ``#SLURM``), for GL001.
    problems: list[tuple[Span, str]] = field(default_factory=list)
    #: Where the commands begin: 1-based line, and character offset into the text.
    body_line: int = 1
    body_offset: int = 0
    #: ``gpulint.dev/`` comment annotations before the first command: suffix -> value.
    annotations: dict[str, str] = field(default_factory=dict)


def has_directives(raw: bytes) -> bool:
    """Whether a file can be a batch script (a directive starts a line): the cheap test that
    keeps a repository's other shell scripts unread."""
    return any(raw.startswith(magic.encode()) or b"\n" + magic.encode() in raw for magic in MAGIC)


def read_script(text: str) -> ScriptDocument:
    lines = text.split("\n")
    document = ScriptDocument(0, {"#SBATCH": []}, SourceMap(Span(1, 1, 1, 2)))
    offset, body_at = 0, len(lines) + 1
    for number, line in enumerate(lines, start=1):
        magic = next((m for m in MAGIC if line.startswith(m)), None)
        if magic is None:
            stripped = line.lstrip()
            if stripped and not stripped.startswith("#"):
                body_at = number
                break
            _annotation(document, line, number)
        else:
            _directive(document, line, number, magic)
        offset += len(line) + 1
    document.body_line, document.body_offset = body_at, min(offset, len(text))
    document.source_map.record(SCRIPT, Span(body_at, 1, body_at, 2))
    if document.arguments:  # the job as a whole: its first directive
        first = document.arguments[0].span
        document.source_map.document = Span(first.line, 1, first.line, first.end_column)
    for number in range(body_at + 1, len(lines) + 1):
        line = lines[number - 1]
        if line.startswith(MAGIC):
            document.ignored.append(Span(number, 1, number, len(line) + 1))
    return document


def _directive(document: ScriptDocument, line: str, number: int, magic: str) -> None:
    if magic == "#SLURM":
        document.problems.append((Span(number, 1, number, 7), "#SLURM is deprecated: use #SBATCH"))
    arguments, error = split_arguments(line, len(magic))
    if error is not None:
        document.problems.append((Span(number, 1, number, len(line) + 1), error))
    for text, begin, end in arguments:
        if len(document.arguments) >= MAX_ARGUMENTS:
            message = f"more than {MAX_ARGUMENTS} directive arguments: the rest is not read"
            document.problems.append((Span(number, begin + 1, number, end + 1), message))
            return
        span = Span(number, begin + 1, number, end + 1)
        document.source_map.record((*DIRECTIVES, len(document.arguments)), span)
        document.data["#SBATCH"].append(text)
        document.arguments.append(Argument(text, span))


def _annotation(document: ScriptDocument, line: str, number: int) -> None:
    match = _ANNOTATION.match(line.strip())
    if match is None or match.group(1) in document.annotations:
        return
    value = match.group(2)
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    document.annotations[match.group(1)] = value
    span = Span(number, 1, number, len(line) + 1)
    document.source_map.record((*ANNOTATIONS, f"gpulint.dev/{match.group(1)}"), span)


def split_arguments(line: str, start: int) -> tuple[list[tuple[str, int, int]], str | None]:
    """sbatch's ``_get_argument`` repeated over a line from ``start``: (argument, start column,
    end column), 0-based; and the error for an unmatched quote."""
    found: list[tuple[str, int, int]] = []
    pos, n = start, len(line)
    while True:
        while pos < n and line[pos].isspace():
            pos += 1
        if pos >= n:
            return found, None
        begin, chars, quote = pos, [], ""
        while pos < n and (quote or not line[pos].isspace()):
            ch = line[pos]
            if ch == "\\" and pos + 1 < n:
                chars.append(line[pos + 1])
                pos += 2
            elif quote:
                if ch == quote:
                    quote = ""
                else:
                    chars.append(ch)
                pos += 1
            elif ch in "\"'":
                quote = ch
                pos += 1
            elif ch == "#":
                if chars:
                    found.append(("".join(chars), begin, pos))
                return found, None
            else:
                chars.append(ch)
                pos += 1
        if quote:
            return found, f"unmatched {quote} in the directive"
        found.append(("".join(chars), begin, pos))
