"""Standard input as files: ``helm template ... | gpulint check -``.

Helm writes each rendered document after a ``# Source: chart/templates/file.yaml`` comment.
Those documents are linted as the template file they came from, so a finding names the chart's
template; lines count from the first line after the comment, which is the template's own line as
long as the template adds no lines above it (the usual case: templating inside values). Input
without such comments is one file, named by ``--stdin-filename``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from linter.load.discovery import Candidate

STDIN_NAME = "<stdin>"
_SOURCE = re.compile(r"#\s*Source:\s*(\S.*?)\s*\Z")
_SEPARATOR = re.compile(r"---\s*(?:#.*)?\Z")


@dataclass(frozen=True)
class TemplateOutput:
    """One template's documents from a rendered stream, joined in their order."""

    source: str
    text: str


def split_rendered(text: str) -> list[TemplateOutput]:
    """The documents of a rendered stream grouped by their ``# Source:`` template; empty when
    the stream has no such comments (then it is one plain file)."""
    groups: dict[str, list[str]] = {}
    for chunk in _documents(text):
        lines = chunk.splitlines(keepends=True)
        first = next((i for i, line in enumerate(lines) if line.strip()), 0)
        match = _SOURCE.match(lines[first].strip()) if lines else None
        if match is None:
            continue
        body = "".join(lines[first + 1 :])
        groups.setdefault(match.group(1), []).append(body)
    return [TemplateOutput(source, "---\n".join(bodies)) for source, bodies in groups.items()]


def _documents(text: str) -> list[str]:
    chunks: list[list[str]] = [[]]
    for line in text.splitlines(keepends=True):
        if _SEPARATOR.match(line.rstrip("\r\n")):
            chunks.append([])
        else:
            chunks[-1].append(line)
    return ["".join(chunk) for chunk in chunks if "".join(chunk).strip()]


def stdin_candidates(raw: bytes, name: str | None, boundary: Path) -> list[Candidate]:
    """Candidates for what was read from standard input: one per rendered template, else one
    named ``name`` (``<stdin>`` by default)."""
    try:
        templates = split_rendered(raw.decode("utf-8"))
    except UnicodeDecodeError:
        templates = []  # not UTF-8: linted as one file, which reports the encoding problem
    if not templates:
        display = name or STDIN_NAME
        return [Candidate(display, display, True, boundary, raw)]
    # A chart renders many objects gpulint has nothing to say about: not named one by one,
    # they are skipped silently like a directory's other YAML.
    return [
        Candidate(t.source, t.source, False, boundary, t.text.encode("utf-8")) for t in templates
    ]
