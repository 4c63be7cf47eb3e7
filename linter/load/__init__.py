"""Read manifest files into documents with source maps; every failure becomes a LoadProblem."""

from __future__ import annotations

import codecs
import itertools
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import field
from pathlib import Path as FsPath
from typing import Any, Literal

from linter.load.composer import Composer, Document, Limits, LoadProblem
from linter.load.positions import Span
from linter.load.reader import Refusal, read_bounded
from linter.load.templates import TemplateAction, action_on_line, without_action_lines
from linter.records import datarecord

__all__ = [
    "Document",
    "Limits",
    "LoadProblem",
    "LoadedFile",
    "Refusal",
    "Syntax",
    "is_json",
    "lacks_marker",
    "load_bytes",
    "load_source",
    "load_text",
    "read",
    "read_bounded",
    "syntax_of",
]

DEFAULT_MAX_BYTES = 10 * 1024 * 1024

_UTF_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_FILE_START = Span(1, 1, 1, 2)
# Files in these encodings hold the marker in other bytes: they are decoded before it is sought.
_WIDE_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


@datarecord(frozen=False)
class LoadedFile:
    """What one file yielded: documents, problems, and its text (for suppression comments)."""

    documents: list[Document] = field(default_factory=list)
    problems: list[LoadProblem] = field(default_factory=list)
    text: str = ""
    unrelated: bool = False  # the marker was absent: not one of our files, not parsed
    refused: bool = False  # not read at all (too large, not a regular file, unreadable)


def _position_of_offset(raw: bytes, offset: int) -> Span:
    line = raw.count(b"\n", 0, offset) + 1
    column = offset - (raw.rfind(b"\n", 0, offset) + 1) + 1
    return Span(line, column, line, column + 1)


def decode(raw: bytes) -> tuple[str | None, LoadProblem | None]:
    """Decode file bytes as YAML allows (UTF-8, or UTF-16/32 with a BOM)."""
    for bom, encoding in _UTF_BOMS:
        if raw.startswith(bom):
            try:
                return raw.decode(encoding), None
            except UnicodeDecodeError:
                return None, LoadProblem(f"not valid {encoding.upper()} text", _FILE_START)
    if b"\x00" in raw[:8192]:
        return None, LoadProblem("binary content (NUL bytes); not a YAML or JSON file", _FILE_START)
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as err:
        span = _position_of_offset(raw, err.start)
        return None, LoadProblem(
            f"not valid UTF-8: byte 0x{raw[err.start]:02x} at line {span.line}, "
            f"column {span.column}",
            span,
        )


# JSON writes a character beyond U+FFFF as a UTF-16 surrogate pair ("\\ud83d\\ude00"), which
# YAML's escapes do not accept; YAML's 8-digit escape says the same (later columns on that line
# move two to the left).
_SURROGATE_PAIR = re.compile(
    r"(?<!\\)((?:\\\\)*)\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})"
)


def _astral_escape(match: re.Match[str]) -> str:
    high, low = int(match.group(2), 16), int(match.group(3), 16)
    code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
    return f"{match.group(1)}\\U{code:08x}"


def _reader_problem(text: str, error: Any) -> LoadProblem:
    """A character YAML does not allow, at its line and column."""
    offset = getattr(error, "position", 0) or 0
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    character = getattr(error, "character", None)
    if isinstance(character, str) and character:
        character = ord(character[0])
    what = f"U+{character:04X}" if isinstance(character, int) else "a character"
    return LoadProblem(
        f"{what} is not allowed in YAML (a control character?)",
        Span(line, column, line, column + 1),
    )


def load_text(text: str, limits: Limits | None = None, json: bool = False) -> LoadedFile:
    """Parse YAML (or JSON) text into documents.

    libyaml's C parser (fast) follows YAML 1.1, which refuses some valid YAML 1.2, such as a
    plain scalar with a colon in flow style (``{model: anthropic.claude-v1:0}``). When it reports
    a syntax error the text is parsed again with ruamel's pure-Python YAML 1.2 parser; the error
    is reported only if that fails too.

    In a YAML stream of several documents, one broken document (a syntax error, a structure that
    cannot be represented) does not hide the others: the stream is read again one document at a
    time (:func:`_each_document`). A crossed limit still stops the whole file.
    """
    if json:
        # JSON allows tabs as whitespace where YAML indentation does not; a raw tab can only sit
        # between tokens in valid JSON, so a space in its place keeps every column the same.
        text = _SURROGATE_PAIR.sub(_astral_escape, text.replace("\t", " "))
    composer, error = _parse(text, limits)
    if error is not None:
        composer.problems.append(_syntax_problem(text, error))
    loaded = LoadedFile(composer.documents, composer.problems, text)
    if (error is not None or composer.stopped) and not composer.limited and not json:
        starts = [match.start() for match in _DOCUMENT_START.finditer(text)]
        if len(starts) > 1 or (starts and text[: starts[0]].strip()):
            loaded = _each_document(text, starts, limits)
    if loaded.problems:
        # split and scanned once: a file may have thousands of problems, on one long line too
        lines = text.splitlines()
        actions: dict[int, TemplateAction | None] = {}
        loaded.problems = [_placeholder_hint(lines, actions, p) for p in loaded.problems]
        if not json and all(problem.template for problem in loaded.problems):
            return _read_around_actions(loaded, limits)
    return loaded


def _read_around_actions(template: LoadedFile, limits: Limits | None) -> LoadedFile:
    """A template that breaks YAML only with lines of actions (a Helm file's ``{{- with ... }}``
    and ``{{- include ... | nindent 4 }}`` lines; a Kubeflow runtime in a chart's ``files/``):
    its documents are what is left without those lines, when that is YAML with no problem of its
    own, so the model and GPUs it names are checked; the template problems stay (one GL010 note).
    Anything else (an action inside a value, branches that collide) is the template alone."""
    text = without_action_lines(template.text)
    if text == template.text:
        return template
    rest = load_text(text, limits)
    if rest.problems or not rest.documents:
        return template
    return LoadedFile(rest.documents, template.problems, template.text)


def _placeholder_hint(
    lines: list[str], actions: dict[int, TemplateAction | None], problem: LoadProblem
) -> LoadProblem:
    """A problem on a line holding a template action (``{{HF_TOKEN}}``, ``{{ .Values.x }}``)
    says so: the file is a template, and only its rendered output is YAML. ``actions``
    remembers each line's action."""
    number = problem.span.line
    if number not in actions:
        actions[number] = action_on_line(lines[number - 1]) if 0 < number <= len(lines) else None
    action = actions[number]
    if action is None:
        return problem
    hint = (
        f"{problem.message} (the line holds the template placeholder {action.text}: lint "
        "the rendered output, e.g. helm template ... | gpulint check -)"
    )
    return LoadProblem(hint, problem.span, action)


# A document start marker: "---" at the start of a line, then a space or the line's end. No
# line inside a document can start so (YAML 1.2, 9.1.4: c-forbidden), so each one starts one.
_DOCUMENT_START = re.compile(r"^---(?=[ \t\r\n]|$)", re.MULTILINE)
# Line breaks as the parsers count them (the line numbers of a part of the text).
_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


def _parse(
    text: str, limits: Limits | None, lines: int = 0, offset: int = 0
) -> tuple[Composer, Exception | None]:
    """Compose ``text`` (libyaml, then ruamel's YAML 1.2 parser after a syntax error)."""
    from ruamel.yaml.error import MarkedYAMLError

    composer, error = _compose(text, limits, False, lines, offset)
    if isinstance(error, MarkedYAMLError):
        retry, retry_error = _compose(text, limits, True, lines, offset)
        if retry_error is None:
            composer, error = retry, None
    return composer, error


def _each_document(text: str, starts: list[int], limits: Limits | None) -> LoadedFile:
    """Parse each document of a stream on its own, so one broken document does not hide the
    others; positions stay those of the whole text."""
    bounds = ([0] if starts[0] else []) + starts + [len(text)]
    documents: list[Document] = []
    problems: list[LoadProblem] = []
    lines = 0
    for start, end in itertools.pairwise(bounds):
        part = text[start:end]
        composer, error = _parse(part, limits, lines, start)
        for document in composer.documents:
            documents.append(Document(len(documents), document.data, document.source_map))
        problems.extend(composer.problems)
        if error is not None:
            problems.append(_shifted(_syntax_problem(part, error), lines))
        if composer.limited:
            break
        lines += len(_LINE_BREAK.findall(part))
    return LoadedFile(documents, problems, text)


def _shifted(problem: LoadProblem, lines: int) -> LoadProblem:
    span = problem.span
    moved = Span(span.line + lines, span.column, span.end_line + lines, span.end_column)
    return LoadProblem(problem.message, moved)


def _compose(
    text: str, limits: Limits | None, pure: bool, lines: int = 0, offset: int = 0
) -> tuple[Composer, Exception | None]:
    from ruamel.yaml.error import YAMLError

    composer = Composer(limits or Limits(), lines, offset)
    try:
        composer.feed(_events(text, pure))
    except YAMLError as err:
        return composer, err
    except (ValueError, OverflowError) as err:
        if not pure:
            raise
        # ruamel's pure scanner calls chr() on a "\UXXXXXXXX" escape beyond U+10FFFF; the C
        # parser's error about the same text is the one reported
        return composer, err
    return composer, None


def _events(text: str, pure: bool) -> Iterator[Any]:
    """The parse events of ``text``.

    libyaml's parser is made straight from the text: a ``YAML()`` object would cost more than
    parsing a small manifest (it looks for plug-ins and builds a loader class on every parse)
    and, kept between files, would grow with every file it parsed. So nothing is shared between
    files and a hostile file cannot leave state behind for the next. ruamel's pure-Python parser
    (YAML 1.2; also where the C extension is not installed) goes through ``YAML()``.
    """
    from ruamel.yaml import main

    c_parser = getattr(main, "CParser", None)  # None without ruamel.yaml.clib
    if pure or c_parser is None:
        events: Iterator[Any] = main.YAML(typ="safe", pure=True).parse(text)
        return events
    return iter(c_parser(text).get_event, None)


def _syntax_problem(text: str, error: Exception) -> LoadProblem:
    from ruamel.yaml.error import MarkedYAMLError
    from ruamel.yaml.reader import ReaderError

    if isinstance(error, ReaderError):
        return _reader_problem(text, error)
    if isinstance(error, MarkedYAMLError):
        mark = error.problem_mark or error.context_mark
        span = (
            Span(mark.line + 1, mark.column + 1, mark.line + 1, mark.column + 2)
            if mark
            else _FILE_START
        )
        problem = " ".join(part for part in (error.context, error.problem) if part)
        return LoadProblem(f"YAML syntax error: {problem}", span)
    return LoadProblem(f"cannot parse: {str(error).splitlines()[0]}", _FILE_START)


def load_bytes(raw: bytes, limits: Limits | None = None, json: bool = False) -> LoadedFile:
    text, problem = decode(raw)
    if text is None:
        assert problem is not None
        return LoadedFile(problems=[problem])
    return load_text(text, limits, json)


def lacks_markers(raw: bytes, markers: Sequence[bytes]) -> bool:
    """The byte pre-filter: ``raw`` cannot hold a document of any format, because it holds none
    of their ``markers`` and no backslash (the start of every escape sequence, through which a
    marker could be spelt in other bytes). Files in an encoding that spells a marker in other
    bytes (UTF-16/32) are tested after decoding instead."""
    return not raw.startswith(_WIDE_BOMS) and not _mentions(raw, markers)


def _mentions(raw: bytes, markers: Sequence[bytes]) -> bool:
    return b"\\" in raw or any(marker in raw for marker in markers)


SIZE_ADVICE = "raise maxFileSize in .gpulint.yaml"


Syntax = Literal["yaml", "json", "hcl", "shell"]
#: File name endings read as something other than YAML (lower case).
_SYNTAXES: dict[str, Syntax] = {
    ".json": "json",
    ".tf": "hcl",
    ".tfvars": "hcl",
    ".sbatch": "shell",
    ".slurm": "shell",
    ".sh": "shell",
}


#: What starts a Slurm batch script's directive line (linter/load/sbatch.py reads them); here so
#: that the byte markers (linter/formats/markers.py) need not import the script reader.
SLURM_MAGIC = ("#SBATCH", "#SLURM")


def syntax_of(path: str | FsPath) -> Syntax:
    """How a file is parsed, by its name: JSON, HCL (Terraform), a shell script (Slurm batch
    scripts), else YAML."""
    return _SYNTAXES.get(os.path.splitext(path)[1].lower(), "yaml")


def load_source(
    content: bytes | Refusal,
    limits: Limits | None = None,
    json: bool = False,
    markers: Sequence[bytes] | None = None,
    *,
    syntax: Syntax | None = None,
    name: str = "",
    companions: Sequence[tuple[str, bytes]] = (),
) -> LoadedFile:
    """Parse what :func:`read_bounded` returned for a file; a refusal becomes its problem.

    With ``markers``, content that cannot hold a document of ours (:func:`lacks_markers`) is
    returned unparsed as ``unrelated``: a repository's other YAML and JSON (and any binary file
    named .yaml) costs one read. ``syntax`` chooses the parser (``json`` says JSON when it is
    not given): an HCL file ``name`` is read with the other files of its Terraform module
    (``companions``) and its markers are the resource types read; a shell script is read only
    when a line starts with a directive (:func:`linter.load.sbatch.has_directives`).
    """
    if isinstance(content, Refusal):
        refusal = LoadProblem(content.message(SIZE_ADVICE), _FILE_START)
        return LoadedFile(problems=[refusal], refused=True)
    syntax = syntax or ("json" if json else "yaml")
    if syntax == "shell":
        from linter.load import sbatch

        if not sbatch.has_directives(content):
            return LoadedFile(unrelated=True)
    elif markers is not None and lacks_markers(content, markers):
        return LoadedFile(unrelated=True)
    text, problem = decode(content)
    if text is None:
        assert problem is not None
        return LoadedFile(problems=[problem])
    if syntax == "hcl":
        return _load_module_file(name, text, companions, markers or ())
    if syntax == "shell":
        from linter.load import sbatch

        return LoadedFile([sbatch.read_script(text)], [], text)
    if (
        markers is not None
        and content.startswith(_WIDE_BOMS)
        and not _mentions(text.encode("utf-8", "surrogatepass"), markers)
    ):
        return LoadedFile(unrelated=True)
    return load_text(text, limits, json)


def _load_module_file(
    name: str, text: str, companions: Sequence[tuple[str, bytes]], wanted: Sequence[bytes]
) -> LoadedFile:
    """A Terraform file's resources of the ``wanted`` types, read with its module's other
    files (one that is not text is left out)."""
    from linter.load import terraform

    others = {}
    for other, raw in companions:
        decoded, _ = decode(raw)
        if decoded is not None:
            others[other] = decoded
    types = {marker.decode("utf-8", "replace") for marker in wanted}
    loaded = terraform.load_file(name, text, others, types)
    return LoadedFile(list(loaded.documents), loaded.problems, text)


def is_json(path: str | FsPath) -> bool:
    """JSON files are read as JSON (tabs allowed between tokens, no comments)."""
    return os.path.splitext(path)[1].lower() == ".json"


def read(
    path: FsPath,
    limits: Limits | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    markers: Sequence[bytes] | None = None,
    root: FsPath | None = None,
) -> LoadedFile:
    """Read (bounded: see :func:`read_bounded`) and parse one file; unreadable, special or
    oversized files become a problem, not an error."""
    return load_source(read_bounded(path, max_bytes, root), limits, is_json(path), markers)
