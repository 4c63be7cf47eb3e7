"""Text for people: the findings grouped by file (a blank line between files), each as
``path:line:col: GL202 [error] message`` with its fix after ``help:``, then a summary line.

``statistics`` prints a count per rule instead of the findings; ``quiet`` prints the findings
alone (no related places, no summary, no configuration notices).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from linter.findings import Finding, Severity
from linter.printable import printable
from linter.report.pieces import lines
from linter.report.record import Rendered, RenderOptions, Report
from linter.report.summary import reported, summary_line

_COLOURS = {Severity.ERROR: "\033[31m", Severity.WARNING: "\033[33m", Severity.NOTE: "\033[36m"}
_BOLD, _DIM, _RESET = "\033[1m", "\033[2m", "\033[0m"


def _finding_lines(finding: Finding, options: RenderOptions) -> list[str]:
    color = options.color
    span = finding.location.span
    where = f"{printable(finding.location.file, line_start=True)}:{span.line}:{span.column}:"
    level = f"[{finding.level.value}]"
    if color:
        where = f"{_BOLD}{where}{_RESET}"
        level = f"{_COLOURS[finding.level]}{level}{_RESET}"
    lines = [f"{where} {finding.rule_id} {level} {printable(finding.message)}"]
    if finding.fix:
        help_line = f"    help: {printable(finding.fix)}"
        lines.append(f"{_DIM}{help_line}{_RESET}" if color else help_line)
    if options.quiet:
        return lines
    for related in finding.related:
        where = f"{related.file}:{related.span.line}:{related.span.column}"
        note = printable(f"    {where}: {related.message or 'related'}", line_start=True)
        lines.append(f"{_DIM}{note}{_RESET}" if color else note)
    return lines


def _statistics(report: Report) -> list[str]:
    """``   2  GL301  error    missing-accelerator-quota``: most frequent first."""
    findings = reported(report.findings)
    counts = Counter(f.rule_id for f in findings)
    levels: dict[str, Severity] = {}
    for finding in findings:
        worst = levels.get(finding.rule_id)
        if worst is None or finding.level.rank > worst.rank:
            levels[finding.rule_id] = finding.level
    names = report.rule_names()
    width = len(str(max(counts.values(), default=0)))
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [
        f"{count:>{width}}  {rule}  {levels[rule].value:<7}  {names.get(rule, '')}".rstrip()
        for rule, count in ranked
    ]


def render(report: Report, options: RenderOptions) -> Rendered:
    return Rendered(lines(_lines(report, options)))


def _lines(report: Report, options: RenderOptions) -> Iterator[str]:
    if options.statistics:
        yield from _statistics(report)
    else:
        previous: str | None = None
        for finding in reported(report.findings):
            if previous is not None and finding.location.file != previous:
                yield ""
            previous = finding.location.file
            yield from _finding_lines(finding, options)
    if not options.quiet:
        yield summary_line(report)
        yield from report.notices
