"""Text for people: ``path:line:col: GL202 [error] message``, then a summary line."""

from __future__ import annotations

from linter.findings import Severity
from linter.printable import printable
from linter.report.summary import configuration_note, counts, plural, reported
from linter.runner import RunResult

_COLOURS = {Severity.ERROR: "\033[31m", Severity.WARNING: "\033[33m", Severity.NOTE: "\033[36m"}
_BOLD, _DIM, _RESET = "\033[1m", "\033[2m", "\033[0m"


def render(result: RunResult, color: bool = False) -> str:
    lines = []
    for finding in reported(result.findings):
        span = finding.location.span
        where = f"{printable(finding.location.file)}:{span.line}:{span.column}:"
        level = f"[{finding.severity.value}]"
        if color:
            where = f"{_BOLD}{where}{_RESET}"
            level = f"{_COLOURS[finding.severity]}{level}{_RESET}"
        lines.append(f"{where} {finding.rule_id} {level} {printable(finding.message)}")
        for related in finding.related:
            where = f"{related.file}:{related.span.line}:{related.span.column}"
            note = printable(f"    {where}: {related.message or 'related'}")
            lines.append(f"{_DIM}{note}{_RESET}" if color else note)
    lines.append(_summary(result))
    configured = configuration_note(result)
    if configured:
        lines.append(configured)
    return "\n".join(lines) + "\n"


def _summary(result: RunResult) -> str:
    c = counts(result.findings)
    files = plural(result.files_checked, "file")
    if not any(c[k] for k in ("errors", "warnings", "notes")):
        head = f"No problems found in {files}"
    else:
        head = (
            f"Found {plural(c['errors'], 'error')}, {plural(c['warnings'], 'warning')} and "
            f"{plural(c['notes'], 'note')} in {files}"
        )
    tail = f" ({c['suppressed']} suppressed)" if c["suppressed"] else ""
    return f"{head}{tail}."
