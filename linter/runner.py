"""One lint run: rules and config in, findings out. The CLI and the tests both call this."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from linter import cache, suppress
from linter.config import LoadedConfig
from linter.discover import Candidate, discover
from linter.facts.run import RunIndex
from linter.findings import Finding, Location
from linter.formats import MARKERS, Format, Source, claimed, recognise
from linter.formats.manifest import Manifest
from linter.load import DEFAULT_MAX_BYTES, Document, Limits, LoadedFile, read
from linter.parallel import fork_map
from linter.policy.loader import CompiledRule, Rulebook
from linter.report.record import Report, RuleInfo
from linter.selection import RuleSettings, Selection, resolve_severity

PARSE_RULE = "GL002"
# Below this many files (or manifests) starting worker processes costs more than it saves.
PARALLEL_THRESHOLD = 200


@dataclass
class RunResult:
    findings: list[Finding]
    rulebook: Rulebook
    settings: dict[str, RuleSettings]
    files_checked: int = 0
    skipped: list[str] = field(default_factory=list)  # explicit files holding nothing of ours
    texts: dict[str, str] = field(default_factory=dict)  # display path -> text, for fingerprints
    # Some manifest read another file (model.config): the result depends on more than the
    # linted files, so it is not cached.
    reads_other_files: bool = False

    def report(self) -> Report:
        """The record renderers take: findings, and every rule with this run's severity."""
        rules = [
            RuleInfo(
                rule.meta,
                resolve_severity(rule.meta, None, self.settings.get(rule.id, RuleSettings())),
            )
            for rule in self.rulebook
        ]
        return Report(self.findings, rules, self.files_checked, self.texts)


def lint_paths(
    paths: Sequence[str],
    rulebook: Rulebook,
    config: LoadedConfig,
    selection: Selection,
    root: Path | None = None,
    jobs: int = 1,
    cache_dir: Path | None = None,
) -> RunResult:
    """Lint files and directories: load, validate, evaluate rules, apply suppressions. With
    ``cache_dir``, an unchanged run (same files, rules, config, version) is answered from it."""
    candidates = discover(paths, config.config.exclude, root)
    if cache_dir is None:
        return lint_candidates(candidates, rulebook, config, selection, jobs)
    inputs = [config.config.model_dump_json(), repr(selection.select), repr(selection.ignore)]
    key = cache.run_key(candidates, inputs, (rule.source for rule in rulebook))
    cached = cache.load(cache_dir, key) if key else None
    if cached is not None:
        settings = selection.settings(rulebook)
        return RunResult(
            cached["findings"],
            rulebook,
            settings,
            cached["filesChecked"],
            cached["skipped"],
            cached["texts"],
        )
    result = lint_candidates(candidates, rulebook, config, selection, jobs)
    if key and not result.reads_other_files:
        cache.store(
            cache_dir, key, result.findings, result.files_checked, result.skipped, result.texts
        )
    return result


@dataclass
class Collected:
    """Every file read and classified: valid manifests, and findings about the input itself."""

    manifests: list[Manifest] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)
    files_checked: int = 0
    skipped: list[str] = field(default_factory=list)


def read_all(
    candidates: Sequence[Candidate], max_bytes: int = DEFAULT_MAX_BYTES, jobs: int = 1
) -> list[LoadedFile]:
    """Read and parse every candidate (in worker processes for large runs), in order."""
    limits = Limits()

    def read_slice(start: int, stop: int) -> list[LoadedFile]:
        return [read(c.path, limits, max_bytes, markers=MARKERS) for c in candidates[start:stop]]

    parts = (
        fork_map(read_slice, len(candidates), jobs) if _worth_it(len(candidates), jobs) else None
    )
    if parts is None:
        return read_slice(0, len(candidates))
    return [loaded for part in parts for loaded in part]


def collect(
    candidates: Sequence[Candidate], max_bytes: int = DEFAULT_MAX_BYTES, jobs: int = 1
) -> Collected:
    """Read, parse and validate each candidate file (GL001/GL002 findings for what fails)."""
    out = Collected()
    for candidate, loaded in zip(candidates, read_all(candidates, max_bytes, jobs), strict=True):
        source = Source(candidate.display, candidate.path, loaded.text)
        recognised = [] if loaded.unrelated else _recognised(loaded, source)
        # A file that was not read at all could hold anything, so it is always reported; one
        # that does not parse is reported when it was asked for, holds a document of ours or
        # says it is one; a repository's other broken YAML (Helm templates) is not ours to judge.
        report_problems = bool(loaded.problems) and (
            loaded.refused or candidate.explicit or bool(recognised) or claimed(loaded.text)
        )
        if not recognised and not report_problems:
            if candidate.explicit:
                out.skipped.append(candidate.display)
            continue
        out.files_checked += 1
        out.texts[candidate.display] = loaded.text
        for problem in loaded.problems:
            location = Location(candidate.display, problem.span)
            out.findings.append(Finding(PARSE_RULE, None, problem.message, location))
        for document, input_format in recognised:
            adapted = input_format.adapt(document, source)
            out.findings.extend(adapted.findings)
            out.manifests.extend(adapted.manifests)
    return out


def _recognised(loaded: LoadedFile, source: Source) -> list[tuple[Document, Format]]:
    """The documents of a file that some input format recognises, with that format."""
    out = []
    for document in loaded.documents:
        input_format = recognise(document.data, source)
        if input_format is not None:
            out.append((document, input_format))
    return out


def lint_candidates(
    candidates: Sequence[Candidate],
    rulebook: Rulebook,
    config: LoadedConfig,
    selection: Selection,
    jobs: int = 1,
) -> RunResult:
    """Lint candidate files; with ``jobs`` > 1 large runs use that many worker processes."""
    settings = selection.settings(rulebook)
    max_bytes = config.config.max_file_size or DEFAULT_MAX_BYTES
    collected = collect(candidates, max_bytes, jobs)
    run = RunIndex(collected.manifests, config.config.residency)
    enabled = [(rule, settings[rule.id]) for rule in rulebook if rule.id in settings]
    findings = [*collected.findings, *_evaluate_parallel(enabled, collected.manifests, run, jobs)]
    result = RunResult(
        _finalise(findings, collected.texts, rulebook, settings),
        rulebook,
        settings,
        collected.files_checked,
        collected.skipped,
        collected.texts,
    )
    result.reads_other_files = any(
        isinstance(m.data.get("spec"), dict) and (m.data["spec"].get("model") or {}).get("config")
        for m in collected.manifests
    )
    return result


def _worth_it(count: int, jobs: int) -> bool:
    return jobs > 1 and count >= PARALLEL_THRESHOLD


def _evaluate_parallel(
    rules: list[tuple[CompiledRule, RuleSettings]],
    manifests: list[Manifest],
    run: RunIndex,
    jobs: int,
) -> list[Finding]:
    from linter.engine import evaluate  # not needed when a run is answered from the cache
    from linter.facts import prepare

    if _worth_it(len(manifests), jobs):
        prepare(run)  # build run-wide indices once, before the workers inherit them
        parts = fork_map(
            lambda start, stop: list(evaluate(rules, manifests[start:stop], run)),
            len(manifests),
            jobs,
        )
        if parts is not None:
            return [finding for part in parts for finding in part]
    return list(evaluate(rules, manifests, run))


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
            rule = rulebook.by_id[finding.rule_id]
            severity = resolve_severity(rule.meta, finding.severity, rule_settings)
            final.append(dataclasses.replace(finding, severity=severity))
    return sorted(final, key=lambda f: f.sort_key)
