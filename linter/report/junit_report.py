"""``check --format junit``: findings as JUnit XML, the test report most CI systems show
(GitLab's ``artifacts:reports:junit``, Jenkins, Azure Pipelines, CircleCI).

One test suite per file with findings and one failed test case per finding, named by its rule
and line; a run without findings is one suite with one passed case, so a CI page shows the check
ran. Written by :func:`linter.report.junit.render`, the writer ``gpulint test`` uses.
"""

from __future__ import annotations

from pathlib import Path

from linter.records import datarecord
from linter.report import junit
from linter.report.record import Rendered, RenderOptions, Report
from linter.report.summary import reported, with_fix
from linter.wording import plural


@datarecord
class _Failure:
    file: Path
    line: int
    message: str


@datarecord
class _Case:
    rule_id: str
    name: str
    failures: tuple[_Failure, ...]

    @property
    def passed(self) -> bool:
        return not self.failures


def render(report: Report, options: RenderOptions) -> Rendered:
    names = report.rule_names()
    suites: dict[str, list[_Case]] = {}
    for finding in reported(report.findings):
        line = finding.location.span.line
        title = f"{finding.rule_id} {names.get(finding.rule_id, '')}".strip()
        failure = _Failure(
            Path(finding.location.file), line, f"[{finding.level.value}] {with_fix(finding)}"
        )
        suites.setdefault(finding.location.file, []).append(
            _Case(finding.rule_id, f"{title} (line {line})", (failure,))
        )
    if not suites:
        files = plural(report.files_checked, "file")
        suites["gpulint"] = [_Case("gpulint", f"gpulint check: no problems in {files}", ())]
    return Rendered((junit.render(suites, "gpulint check"),))
