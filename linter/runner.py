"""One lint run: rules and config in, findings out. The CLI and the tests both call this."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from linter import suppress
from linter.config import LoadedConfig
from linter.discover import Candidate, discover
from linter.documents import Manifest, classify, is_ours
from linter.engine import RuleSettings, evaluate
from linter.facts import RunIndex
from linter.findings import Finding, Location, Severity
from linter.load import DEFAULT_MAX_BYTES, Limits, read
from linter.model import API_GROUP
from linter.policy.loader import Rulebook
from linter.selection import Selection

PARSE_RULE = "GL002"


@dataclass
class RunResult:
    findings: list[Finding]
    rulebook: Rulebook
    settings: dict[str, RuleSettings]
    files_checked: int = 0
    skipped: list[str] = field(default_factory=list)  # explicit files holding nothing of ours
    texts: dict[str, str] = field(default_factory=dict)  # display path -> text, for fingerprints


def lint_paths(
    paths: Sequence[str],
    rulebook: Rulebook,
    config: LoadedConfig,
    selection: Selection,
    root: Path | None = None,
) -> RunResult:
    """Lint files and directories: load, validate, evaluate rules, apply suppressions."""
    candidates = discover(paths, config.config.exclude, root)
    return lint_candidates(candidates, rulebook, config, selection)


@dataclass
class Collected:
    """Every file read and classified: valid manifests, and findings about the input itself."""

    manifests: list[Manifest] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)
    files_checked: int = 0
    skipped: list[str] = field(default_factory=list)


def collect(candidates: Sequence[Candidate], max_bytes: int = DEFAULT_MAX_BYTES) -> Collected:
    """Read, parse and validate each candidate file (GL001/GL002 findings for what fails)."""
    out = Collected()
    limits = Limits()
    for candidate in candidates:
        loaded = read(candidate.path, limits, max_bytes, marker=API_GROUP.encode())
        if loaded.unrelated:
            if candidate.explicit:
                out.skipped.append(candidate.display)
            continue
        out.files_checked += 1
        out.texts[candidate.display] = loaded.text
        for problem in loaded.problems:
            location = Location(candidate.display, problem.span)
            out.findings.append(Finding(PARSE_RULE, Severity.ERROR, problem.message, location))
        ours = [document for document in loaded.documents if is_ours(document.data)]
        for document in ours:
            manifest, findings = classify(candidate.display, candidate.path, document)
            out.findings.extend(findings)
            if manifest is not None:
                out.manifests.append(manifest)
        if not ours and not loaded.problems and candidate.explicit:
            out.skipped.append(candidate.display)
    return out


def lint_candidates(
    candidates: Sequence[Candidate],
    rulebook: Rulebook,
    config: LoadedConfig,
    selection: Selection,
) -> RunResult:
    settings = selection.settings(rulebook)
    collected = collect(candidates, config.config.max_file_size or DEFAULT_MAX_BYTES)
    run = RunIndex(collected.manifests, config.config.residency)
    enabled = [(rule, settings[rule.id]) for rule in rulebook if rule.id in settings]
    findings = [*collected.findings, *evaluate(enabled, collected.manifests, run)]
    return RunResult(
        _finalise(findings, collected.texts, rulebook, settings),
        rulebook,
        settings,
        collected.files_checked,
        collected.skipped,
        collected.texts,
    )


def _finalise(
    findings: list[Finding],
    texts: dict[str, str],
    rulebook: Rulebook,
    settings: dict[str, RuleSettings],
) -> list[Finding]:
    """Apply suppressions per file, then the configured selection and severities."""
    by_file: dict[str, list[Finding]] = {}
    for finding in findings:
        by_file.setdefault(finding.location.file, []).append(finding)
    known = set(rulebook.by_id)
    out: list[Finding] = []
    for file in sorted(set(by_file) | set(texts)):
        suppressions = suppress.parse(texts.get(file, ""))
        out.extend(suppress.apply(file, by_file.get(file, []), suppressions, known, set(settings)))
    final = []
    for finding in out:
        rule_settings = settings.get(finding.rule_id)
        if rule_settings is not None:
            severity = rule_settings.severity or finding.severity
            final.append(dataclasses.replace(finding, severity=severity))
    return sorted(final, key=lambda f: f.sort_key)
