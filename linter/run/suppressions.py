"""Inline suppressions: ``# gpulint: ignore[GL202] reason`` on the offending line or the one above.

A suppression needs a reason; one without a reason, naming an unknown rule, or matching nothing is
itself reported, so suppressions cannot silently rot.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from linter.findings import Finding, Location
from linter.load import Syntax
from linter.load.positions import Span

INVALID_RULE = "GL004"
UNUSED_RULE = "GL005"
_MARKER = "gpulint:"
_HASH = re.compile("#")
_DIRECTIVE = re.compile(r"#\s*gpulint:\s*ignore\[(?P<ids>[^\]]*)\](?P<reason>[^\n]*)")


@dataclass(frozen=True)
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
        hashes = (m.start() for m in _HASH.finditer(line)) if _MARKER in line else ()
        for column in hashes:
            match = _DIRECTIVE.match(line, column)
            if match and not inside_token(offset + column):
                ids = tuple(part.strip() for part in match["ids"].split(",") if part.strip())
                found.append(
                    Suppression(
                        number, match.start() + 1, match.end() + 1, ids, match["reason"].strip()
                    )
                )
                break
        offset += len(with_end)
    return found


def _outside_comments(text: str, syntax: Syntax) -> Callable[[int], bool]:
    """Whether a ``#`` at a character offset of an HCL or shell text is not a comment's start.
    HCL: every comment the tokenizer keeps (a file it cannot read has none). Shell: a ``#`` that
    starts a word outside quotes on its line (an approximation: quotes spanning lines are not
    followed)."""
    if syntax == "hcl":
        from linter.load import hcl

        starts = frozenset(hcl.comment_starts(text))
        return lambda offset: offset not in starts
    line_starts = [0, *(m.end() for m in re.finditer("\n", text))]

    def inside(offset: int) -> bool:
        start = line_starts[bisect.bisect_right(line_starts, offset) - 1]
        quote = ""
        for position in range(start, offset):
            ch = text[position]
            if quote:
                quote = "" if ch == quote else quote
            elif ch in "\"'":
                quote = ch
        before = text[offset - 1] if offset > start else " "
        return bool(quote) or not before.isspace()

    return inside


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
    suppressions: list[Suppression],
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
    for finding in findings:
        line = finding.location.span.line
        for number, (s, _) in enumerate(valid):
            if finding.rule_id in s.rule_ids and s.line in (line, line - 1):
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
