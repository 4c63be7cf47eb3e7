"""One lint run: rules and config in, findings out. The CLI and the tests both call this."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from linter import suppress
from linter.cache import ResultCache
from linter.config import LoadedConfig
from linter.costs.budgets import CostBase, CostInputs
from linter.discover import Candidate, find_candidates
from linter.facts.run import RunIndex
from linter.findings import Finding, Location
from linter.formats import MARKERS, Format, InputFile, claimed, recognise
from linter.formats.manifest import Manifest
from linter.load import DEFAULT_MAX_BYTES, Document, Limits, LoadedFile, is_json, load_source
from linter.parallel import fork_map
from linter.policy.loader import CompiledRule, Rulebook
from linter.report.record import Report, RuleInfo
from linter.run_record import from_entry, run_key, to_entry
from linter.selection import RuleSettings, Selection, resolve_severity
from linter.sources import Source, read_sources
from linter.wording import plural

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
    # What the configuration left out, for the run summary (never cached: recomputed per run).
    excluded: list[str] = field(default_factory=list)  # files matched by ``exclude``
    too_deep: list[str] = field(default_factory=list)  # folders too deep to search
    disabled_rules: list[str] = field(default_factory=list)  # ids turned off by the config

    def report(self) -> Report:
        """The record renderers take: findings, and every rule with this run's severity."""
        rules = [
            RuleInfo(
                rule.meta,
                resolve_severity(rule.meta, None, self.settings.get(rule.id, RuleSettings())),
            )
            for rule in self.rulebook
        ]
        note = self.configuration_note()
        notices = (note,) if note else ()
        return Report(self.findings, rules, self.files_checked, self.texts, notices)

    def configuration_note(self) -> str | None:
        """What the configuration file left out of the run, so that a repository cannot switch
        rules or files off without it showing: ``Configuration turned off 2 rules (GL202,
        GL206) and excluded 3 files.``; None when it left out nothing."""
        parts = []
        if self.disabled_rules:
            rules = plural(len(self.disabled_rules), "rule")
            parts.append(f"turned off {rules} ({', '.join(self.disabled_rules)})")
        if self.excluded:
            parts.append(f"excluded {plural(len(self.excluded), 'file')}")
        return f"Configuration {' and '.join(parts)}." if parts else None


def lint_paths(
    paths: Sequence[str],
    rulebook: Rulebook,
    config: LoadedConfig,
    selection: Selection,
    root: Path | None = None,
    jobs: int = 1,
    cache: ResultCache | None = None,
    cost_base: CostBase | None = None,
) -> RunResult:
    """Lint files and directories: load, validate, evaluate rules, apply suppressions. With
    ``cache``, an unchanged run (same bytes, rules, config, version) is answered from it;
    ``cost_base`` (budgets' increase limits) is not part of its key, so pass one or the other."""
    discovery = find_candidates(paths, config.config.exclude, root)
    sources = read_sources(discovery.candidates, _max_bytes(config))
    result, key = None, ""
    if cache is not None:
        key = _key(sources, rulebook, config, selection)
        result = _restore(cache.get(key), sources, rulebook, selection)
    if result is None:
        result = lint_sources(sources, rulebook, config, selection, jobs, cost_base)
        if cache is not None and not result.reads_other_files:
            entry = to_entry(result.findings, result.files_checked, result.skipped, result.texts)
            cache.put(key, entry)
    result.excluded = discovery.excluded
    result.too_deep = discovery.too_deep
    result.disabled_rules = selection.disabled_by_config(rulebook)
    return result


def _key(
    sources: Sequence[Source], rulebook: Rulebook, config: LoadedConfig, selection: Selection
) -> str:
    """The result cache's key for this run (linter/run_record.py says what it covers)."""
    inputs = [config.config.model_dump_json(), repr(selection.select), repr(selection.ignore)]
    rules = (f"{rule.source}\0{rule.meta.model_dump_json()}" for rule in rulebook)
    return run_key((source.state for source in sources), inputs, rules)


def _restore(
    entry: dict[str, Any] | None,
    sources: Sequence[Source],
    rulebook: Rulebook,
    selection: Selection,
) -> RunResult | None:
    """The cached run, if the entry checks out against this run."""
    run = None if entry is None else from_entry(entry, [s.state for s in sources], rulebook.by_id)
    if run is None:
        return None
    settings = selection.settings(rulebook)
    return RunResult(run.findings, rulebook, settings, run.files_checked, run.skipped, run.texts)


def _max_bytes(config: LoadedConfig) -> int:
    return config.config.max_file_size or DEFAULT_MAX_BYTES


@dataclass
class Collected:
    """Every file read and classified: valid manifests, and findings about the input itself."""

    manifests: list[Manifest] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)
    files_checked: int = 0
    skipped: list[str] = field(default_factory=list)


def parse_all(sources: Sequence[Source], jobs: int = 1) -> list[LoadedFile]:
    """Parse every source (in worker processes for large runs), in order."""
    limits = Limits()

    def parse_slice(start: int, stop: int) -> list[LoadedFile]:
        return [
            LoadedFile(unrelated=True)
            if s.content is None
            else load_source(s.content, limits, is_json(s.candidate.path), MARKERS)
            for s in sources[start:stop]
        ]

    parts = fork_map(parse_slice, len(sources), jobs) if _worth_it(len(sources), jobs) else None
    if parts is None:
        return parse_slice(0, len(sources))
    return [loaded for part in parts for loaded in part]


def collect(
    candidates: Sequence[Candidate], max_bytes: int = DEFAULT_MAX_BYTES, jobs: int = 1
) -> Collected:
    """Read, parse and validate each candidate file (GL001/GL002 findings for what fails)."""
    return collect_sources(read_sources(candidates, max_bytes), jobs)


def collect_sources(sources: Sequence[Source], jobs: int = 1) -> Collected:
    """Parse and validate what was read (GL001/GL002 findings for what fails)."""
    out = Collected()
    for source, loaded in zip(sources, parse_all(sources, jobs), strict=True):
        candidate = source.candidate
        file = InputFile(candidate.display, candidate.path, loaded.text)
        recognised = [] if loaded.unrelated else _recognised(loaded, file)
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
            adapted = input_format.adapt(document, file)
            out.findings.extend(adapted.findings)
            out.manifests.extend(adapted.manifests)
    return out


def _recognised(loaded: LoadedFile, file: InputFile) -> list[tuple[Document, Format]]:
    """The documents of a file that some input format recognises, with that format."""
    out = []
    for document in loaded.documents:
        input_format = recognise(document.data, file)
        if input_format is not None:
            out.append((document, input_format))
    return out


def lint_sources(
    sources: Sequence[Source],
    rulebook: Rulebook,
    config: LoadedConfig,
    selection: Selection,
    jobs: int = 1,
    cost_base: CostBase | None = None,
) -> RunResult:
    """Lint what was read; with ``jobs`` > 1 large runs use that many worker processes."""
    settings = selection.settings(rulebook)
    collected = collect_sources(sources, jobs)
    costs = CostInputs(tuple(config.config.budgets), cost_base)
    run = RunIndex(collected.manifests, config.config.residency, costs)
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
        suppressions = suppress.parse(texts.get(file, ""), json=is_json(Path(file)))
        out.extend(suppress.apply(file, by_file.get(file, []), suppressions, known, set(settings)))
    final = []
    for finding in out:
        rule_settings = settings.get(finding.rule_id)
        if rule_settings is not None:
            rule = rulebook.by_id[finding.rule_id]
            severity = resolve_severity(rule.meta, finding.severity, rule_settings)
            final.append(dataclasses.replace(finding, severity=severity))
    return sorted(final, key=lambda f: f.sort_key)
