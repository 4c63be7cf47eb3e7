"""What renderers are given: a run's report, independent of how the run was made.

The runner (or a cached answer, or a baseline filter) produces findings; renderers only need
them, the rules that took part with the severity each had in this run, and how many files were
read. Keeping this record small and separate keeps ``linter.report`` free of the runner.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from pathlib import Path

from linter.findings import Finding, Severity, Skipped
from linter.policy.rule_file import RuleFile
from linter.records import datarecord


@datarecord
class RuleInfo:
    meta: RuleFile
    severity: Severity  # this run's default for the rule: configuration over the rule file

    @property
    def id(self) -> str:
        return self.meta.id


@datarecord
class Report:
    findings: Sequence[Finding]
    rules: Sequence[RuleInfo]  # every rule loaded, in id order
    files_checked: int
    # display path -> line -> (SARIF fingerprint, text) of the lines findings point at
    lines: Mapping[str, Mapping[int, tuple[str | None, str]]] = field(default_factory=dict)
    notices: Sequence[str] = ()  # what configuration switched off, for the summary
    skipped: Sequence[Skipped] = ()

    def rule_names(self) -> dict[str, str]:
        return {rule.id: rule.meta.name for rule in self.rules}


@datarecord
class RenderOptions:
    """Settings some formats use: colour, statistics and quiet for text, URI roots and a
    category for SARIF."""

    color: bool = False
    statistics: bool = False  # text: a count per rule instead of the findings
    quiet: bool = False  # text: the findings alone
    base: Path = field(default_factory=Path.cwd)  # where display paths start
    root: Path = field(default_factory=Path.cwd)  # what SARIF URIs are relative to
    category: str = "gpulint"


@datarecord
class Rendered:
    """A report's text as the pieces to write in order (linter/report/pieces.py), made as they
    are read, once; and the warnings, known before the first piece."""

    pieces: Iterable[str]
    warnings: tuple[str, ...] = ()  # what had to be left out (SARIF upload limits)

    @property
    def text(self) -> str:
        """The whole text (reading the pieces)."""
        return "".join(self.pieces)
