"""Inline suppressions: ``# gpulint: ignore[GL202] reason`` on the offending line or the one above.

A suppression needs a reason; one without a reason, naming an unknown rule, or matching nothing is
itself reported, so suppressions cannot silently rot.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from linter.findings import Finding, Location
from linter.load.positions import Span

INVALID_RULE = "GL004"
UNUSED_RULE = "GL005"
_MARKER = "gpulint:"
_DIRECTIVE = re.compile(r"#\s*gpulint:\s*ignore\[(?P<ids>[^\]]*)\](?P<reason>[^\n]*)")


@dataclass(frozen=True)
class Suppression:
    line: int
    column: int
    end_column: int
    rule_ids: tuple[str, ...]
    reason: str


def parse(text: str) -> list[Suppression]:
    """Every suppression comment in a file's text (cheap when there is none)."""
    if _MARKER not in text:
        return []
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = _DIRECTIVE.search(line) if _MARKER in line else None
        if match:
            ids = tuple(part.strip() for part in match["ids"].split(",") if part.strip())
            found.append(
                Suppression(
                    number, match.start() + 1, match.end() + 1, ids, match["reason"].strip()
                )
            )
    return found


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
