"""GitHub Actions workflow commands, for annotations without code scanning.

A workflow command is a line of the job's log that starts with ``::``. Every value is made
printable first (CR, LF and every other control character become visible escapes, so no value
can start a new line, and with it a command of its own), then escaped as the runner expects:
``%`` everywhere, and ``:`` and ``,`` in the properties, so a file name or title cannot end the
property list early. The last line is the summary the text format ends with, which the log
shows as it is.
"""

from __future__ import annotations

from collections.abc import Iterator

from linter.findings import Severity
from linter.printable import printable
from linter.report.pieces import lines
from linter.report.record import Rendered, RenderOptions, Report
from linter.report.summary import reported, summary_line, with_fix

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def _escape_data(text: str) -> str:
    return printable(text).replace("%", "%25")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(report: Report, options: RenderOptions) -> Rendered:
    return Rendered(lines(_lines(report)))


def _lines(report: Report) -> Iterator[str]:
    names = report.rule_names()
    for finding in reported(report.findings):
        span = finding.location.span
        title = f"{finding.rule_id} {names.get(finding.rule_id, '')}".strip()
        properties = ",".join(
            f"{key}={_escape_property(str(value))}"
            for key, value in (
                ("file", finding.location.file),
                ("line", span.line),
                ("col", span.column),
                ("endLine", span.end_line),
                ("endColumn", span.end_column),
                ("title", title),
            )
        )
        yield f"::{_COMMAND[finding.level]} {properties}::{_escape_data(with_fix(finding))}"
    # a plain line of the log after the annotations: what the step found, in one line
    yield summary_line(report)
