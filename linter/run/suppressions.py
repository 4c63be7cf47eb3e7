"""Inline suppressions: ``# gpulint: ignore[GL202] reason`` on the offending line or the one above.

A suppression needs a reason; one without a reason, naming an unknown rule, or matching nothing is
itself reported, so suppressions cannot silently rot.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Callable, Iterable, Iterator, Sequence

from linter.findings import Finding, Location
from linter.load import Syntax
from linter.load.positions import Span
from linter.load.scanning import Scanner
from linter.records import datarecord

INVALID_RULE = "GL004"
UNUSED_RULE = "GL005"
_MARKER = "gpulint:"
_IGNORE = "ignore["
_BLANKS = frozenset(" \t\f\v")


@datarecord
class Suppression:
    line: int
    column: int
    end_column: int
    rule_ids: tuple[str, ...]
    reason: str


def parse(text: str, syntax: Syntax = "yaml") -> list[Suppression]:
    """Every suppression comment in a file's text (cheap when there is none).

    Only a real comment counts: a ``# gpulint:`` inside a quoted or block string is data, and a
    JSON file has no comments at all. YAML and HCL comments are found by their scanners; in a
    shell script a ``#`` is a comment at the start of a word outside quotes.
    """
    if syntax == "json" or _MARKER not in text:
        return []
    inside_token = _token_spans(text) if syntax == "yaml" else _outside_comments(text, syntax)
    found = []
    offset = 0
    lines = zip(text.splitlines(), text.splitlines(keepends=True), strict=True)
    for number, (line, with_end) in enumerate(lines, start=1):
        if _MARKER in line:
            suppression = directive(Scanner(line), number, offset, inside_token)
            if suppression is not None:
                found.append(suppression)
        offset += len(with_end)
    return found


def directive(
    line: Scanner, number: int, offset: int, inside_token: Callable[[int], bool]
) -> Suppression | None:
    """The first ``# gpulint: ignore[IDS] reason`` comment on line ``number`` (at ``offset``
    in the file's text) that is not inside a YAML token. A scanner, not a regular expression:
    each ``#`` costs the blanks after it, and the closing ``]`` is sought once however many
    ``#`` precede it (a regular expression scanned to the line's end from each of them)."""
    text = line.text
    hash_at = line.find("#", 0)
    while hash_at >= 0:
        marker = line.skip(_BLANKS, hash_at + 1)
        if line.at(_MARKER, marker):
            ignore = line.skip(_BLANKS, marker + len(_MARKER))
            if line.at(_IGNORE, ignore):
                close = line.find("]", ignore + len(_IGNORE))
                if close < 0:
                    return None  # no "]" after this "#", nor after any later one
                if not inside_token(offset + hash_at):
                    ids = text[ignore + len(_IGNORE) : close].split(",")
                    rule_ids = tuple(part.strip() for part in ids if part.strip())
                    reason = text[close + 1 :].strip()
                    return Suppression(number, hash_at + 1, len(text) + 1, rule_ids, reason)
        hash_at = line.find("#", hash_at + 1)
    return None


def _outside_comments(text: str, syntax: Syntax) -> Callable[[int], bool]:
    """Whether a ``#`` at a character offset of an HCL or shell text is outside every comment.
    HCL: the comments the tokenizer keeps (a file it cannot read has none). Shell: a line's
    comment starts at its first ``#`` that begins a word outside quotes (an approximation:
    quotes spanning lines are not followed); each line is walked once."""
    if syntax == "hcl":
        from linter.load import hcl

        starts = frozenset(hcl.comment_starts(text))
        return lambda offset: offset not in starts
    line_starts: list[int] = []
    comment_starts: list[int] = []  # per line: where its comment starts (len(text) for none)
    offset = 0
    for line in text.splitlines(keepends=True):
        line_starts.append(offset)
        comment_starts.append(offset + _shell_comment(line))
        offset += len(line)

    def outside(at: int) -> bool:
        number = bisect.bisect_right(line_starts, at) - 1
        return number < 0 or at < comment_starts[number]

    return outside


def _shell_comment(line: str) -> int:
    """Where a shell line's comment starts: its first ``#`` at a word's start outside quotes
    (the line's length when it has none)."""
    quote = ""
    for position, ch in enumerate(line):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (position == 0 or line[position - 1].isspace()):
            return position
    return len(line)


def _token_spans(text: str) -> Callable[[int], bool]:
    """Whether a character offset of ``text`` lies inside a YAML token (a scalar, anchor, tag,
    directive): a ``#`` there is not a comment. Text after a point the scanners cannot get past
    counts as inside a token, so a suppression there is not applied (its findings stay)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    starts: list[int] = []
    ends: list[int] = []
    for pure in (False, True):  # libyaml first (fast); ruamel's YAML 1.2 scanner if it refuses
        starts, ends = [], []
        try:
            for token in YAML(typ="safe", pure=pure).scan(text):
                start, end = token.start_mark.index, token.end_mark.index
                if end > start:
                    starts.append(start)
                    ends.append(end)
        except YAMLError:
            starts.append(ends[-1] if ends else 0)
            ends.append(len(text) + 1)
            continue
        break

    def inside(offset: int) -> bool:
        at = bisect.bisect_right(starts, offset) - 1
        return at >= 0 and offset < ends[at]

    return inside


def apply(
    file: str,
    findings: Iterable[Finding],
    suppressions: Sequence[Suppression],
    known_rules: set[str],
    reported_rules: set[str],
) -> Iterator[Finding]:
    """Mark suppressed findings and add findings about the suppressions themselves.

    ``reported_rules`` are the rules that ran in this run: a suppression of a rule that was not
    run (deselected) is not called unused.
    """
    valid = []
    for s in suppressions:
        location = Location(file, Span(s.line, s.column, s.line, s.end_column))
        unknown = [rule_id for rule_id in s.rule_ids if rule_id not in known_rules]
        if not s.rule_ids or unknown:
            what = ", ".join(unknown) if unknown else "no rule id"
            yield Finding(
                INVALID_RULE,
                None,
                f"suppression names {what}; write # gpulint: ignore[GLxxx] reason",
                location,
            )
        elif not s.reason:
            yield Finding(
                INVALID_RULE,
                None,
                "suppression without a reason is not "
                f"applied; say why {', '.join(s.rule_ids)} does not apply here",
                location,
            )
        else:
            valid.append((s, location))
    used: set[int] = set()
    by_line: dict[int, list[int]] = {}
    for number, (s, _) in enumerate(valid):
        by_line.setdefault(s.line, []).append(number)
    for finding in findings:
        line = finding.location.span.line
        for number in (*by_line.get(line - 1, ()), *by_line.get(line, ())):
            s = valid[number][0]
            if finding.rule_id in s.rule_ids:
                used.add(number)
                finding = dataclasses.replace(finding, suppressed_reason=s.reason)
                break
        yield finding
    for number, (s, location) in enumerate(valid):
        if number not in used and any(rule_id in reported_rules for rule_id in s.rule_ids):
            yield Finding(
                UNUSED_RULE,
                None,
                f"unused suppression of {', '.join(s.rule_ids)}: nothing to suppress "
                "on this line or the next",
                location,
            )
