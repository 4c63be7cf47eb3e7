"""Text for people: ``path:line:col: GL202 [error] message``, then a summary line."""

from __future__ import annotations

from linter.findings import Severity
from linter.printable import printable
from linter.report.record import Rendered, RenderOptions, Report
from linter.report.summary import reported, summary_line

_COLOURS = {Severity.ERROR: "\033[31m", Severity.WARNING: "\033[33m", Severity.NOTE: "\033[36m"}
_BOLD, _DIM, _RESET = "\033[1m", "\033[2m", "\033[0m"


def render(report: Report, options: RenderOptions) -> Rendered:
    color = options.color
    lines = []
    for finding in reported(report.findings):
        span = finding.location.span
        where = f"{printable(finding.location.file, line_start=True)}:{span.line}:{span.column}:"
        level = f"[{finding.level.value}]"
        if color:
            where = f"{_BOLD}{where}{_RESET}"
            level = f"{_COLOURS[finding.level]}{level}{_RESET}"
        lines.append(f"{where} {finding.rule_id} {level} {printable(finding.message)}")
        if finding.fix:
            help_line = f"    help: {printable(finding.fix)}"
            lines.append(f"{_DIM}{help_line}{_RESET}" if color else help_line)
        for related in finding.related:
            where = f"{related.file}:{related.span.line}:{related.span.column}"
            note = printable(f"    {where}: {related.message or 'related'}", line_start=True)
            lines.append(f"{_DIM}{note}{_RESET}" if color else note)
    lines.append(summary_line(report))
    lines.extend(report.notices)
    return Rendered("\n".join(lines) + "\n")
