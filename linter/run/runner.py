"""One lint run: rules and config in, findings out. The CLI and the tests both call this.

Two passes (docs/architecture.md): every file on its own, in worker processes for large runs
(linter/run/first_pass.py), then what depends on more than one file (linter/run/second_pass.py). An
unchanged file's first-pass result comes from the result cache (linter/run/reuse.py), and the
second pass's too when no file changed.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING

from linter.cache.compact_json import compact_json
from linter.cache.packed import CHUNK_ITEMS
from linter.config import ConfigFinder, LoadedConfig
from linter.declared import data_of
from linter.findings import Finding, Skipped
from linter.load import DEFAULT_MAX_BYTES
from linter.load.discovery import Discovery, PathCandidate, chart_templates_reason, find_candidates
from linter.load.reader import forget_resolved
from linter.load.sources import FileRead, Hashed, Source, read_source
from linter.policy.loader import CompiledRule, Rulebook
from linter.policy.selection import RuleSettings, Selection, resolve_severity
from linter.records import datarecord
from linter.report.record import Report, RuleInfo
from linter.run import garbage_collection
from linter.run.file_configs import ConfigGroup, group_by_config
from linter.run.file_result import FileResult, LineInfo, pack_wide
from linter.run.result_cache import ResultCache
from linter.run.result_key import run_key
from linter.run.reuse import RunCache, files_digest
from linter.run.second_pass import finalise, run_wide_findings
from linter.run.workers import fork_map
from linter.wording import plural

if TYPE_CHECKING:  # the engine, facts and formats are imported only when something is linted
    from linter.memory.calibration import Calibration
    from linter.model.manifest import Manifest
    from linter.pricing.budgets import CostBase
    from linter.run.first_pass import FirstPass


@datarecord(frozen=False)
class RunResult:
    findings: list[Finding]
    rulebook: Rulebook
    settings: dict[str, RuleSettings]
    files_checked: int = 0
    skipped: list[Skipped] = field(default_factory=list)  # (file, why): not linted
    # display path -> line -> (fingerprint, text) of lines findings point at (SARIF, baseline)
    lines: dict[str, dict[int, LineInfo]] = field(default_factory=dict)
    # What the configuration left out, for the run summary (never cached: recomputed per run).
    excluded: list[str] = field(default_factory=list)  # files matched by ``exclude``
    too_deep: list[str] = field(default_factory=list)  # folders too deep to search
    disabled_rules: list[str] = field(default_factory=list)  # ids turned off by the config
    # "GL101 from error to warning" for each severity the config changed
    severities: list[str] = field(default_factory=list)
    # the config's failOn when it decides the exit status (the command line gives none)
    fail_on: str | None = None
    # With a result cache: the key of the run's inputs and the digest of its files as linted,
    # what a report printed for this run may be kept under (linter/commands/kept_report.py).
    run_key: str = ""
    files_key: str = ""
    # The other files the results read (a model.config), with the digest of each as read: a
    # report kept for this run is used only while they are unchanged.
    reads: list[tuple[FileRead, str]] = field(default_factory=list)

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
        return Report(
            self.findings, rules, self.files_checked, self.lines, notices, tuple(self.skipped)
        )

    def configuration_note(self) -> str | None:
        """What the configuration file changed in the run, so that a repository cannot switch
        rules or files off, lower a rule or stop findings failing the run without it showing:
        ``Configuration turned off 2 rules (GL202, GL206), changed the severity of 1 rule
        (GL101 from error to warning), set failOn: never and excluded 3 files.``; None when it
        changed nothing."""
        parts = []
        if self.disabled_rules:
            rules = plural(len(self.disabled_rules), "rule")
            parts.append(f"turned off {rules} ({', '.join(self.disabled_rules)})")
        if self.severities:
            rules = plural(len(self.severities), "rule")
            parts.append(f"changed the severity of {rules} ({', '.join(self.severities)})")
        if self.fail_on is not None:
            parts.append(f"set failOn: {self.fail_on}")
        if self.excluded:
            parts.append(f"excluded {plural(len(self.excluded), 'file')}")
        if not parts:
            return None
        listed = ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]
        return f"Configuration {listed}."


def lint_paths(
    paths: Sequence[str],
    rulebook: Rulebook,
    config: LoadedConfig,
    selection: Selection,
    root: Path | None = None,
    jobs: int = 1,
    cache: ResultCache | None = None,
    extra: Sequence[PathCandidate] = (),
    want_lines: bool = False,
    cost_base: CostBase | None = None,
    finder: ConfigFinder | None = None,
    calibration: Calibration | None = None,
) -> RunResult:
    """Lint files and directories (and ``extra`` candidates already read: standard input); see
    :func:`prepare` and :meth:`Prepared.run`."""
    prepared = prepare(
        paths,
        rulebook,
        config,
        selection,
        root,
        jobs,
        cache,
        extra,
        want_lines,
        finder,
        calibration,
    )
    return prepared.run(cost_base)


def prepare(
    paths: Sequence[str],
    rulebook: Rulebook,
    config: LoadedConfig,
    selection: Selection,
    root: Path | None = None,
    jobs: int = 1,
    cache: ResultCache | None = None,
    extra: Sequence[PathCandidate] = (),
    want_lines: bool = False,
    finder: ConfigFinder | None = None,
    calibration: Calibration | None = None,
) -> Prepared:
    """A run up to its first file linted: the files it lints and, with ``cache``, the key of
    its inputs and each file read and hashed, so that an unchanged run can be answered before
    anything is linted. With ``want_lines``, the result keeps the fingerprint and text of every
    line a finding points at. With ``finder``, each file is linted with the configuration
    nearest to it (linter/run/file_configs.py); without, with ``config``. A ``calibration``
    corrects the memory estimates (``check --calibration``)."""
    forget_resolved()
    discovery = find_candidates(paths, config.config.exclude, root)
    candidates = [*discovery.candidates, *extra]
    groups = group_by_config(candidates, selection, rulebook, finder)
    run_key = _key(rulebook, groups, selection, want_lines, calibration) if cache else ""
    hashed = None
    if cache is not None:
        max_bytes = _max_bytes(config)
        hashed = [Hashed.of(read_source(candidate, max_bytes)) for candidate in candidates]
    return Prepared(
        discovery,
        candidates,
        rulebook,
        groups[0].settings,
        config,
        selection,
        jobs,
        cache,
        run_key,
        hashed,
        want_lines,
        groups,
        calibration,
    )


@datarecord(frozen=False)
class Prepared:
    """What :func:`prepare` found; :meth:`run` lints it."""

    discovery: Discovery
    candidates: list[PathCandidate]
    rulebook: Rulebook
    settings: dict[str, RuleSettings]
    config: LoadedConfig
    selection: Selection
    jobs: int
    cache: ResultCache | None
    run_key: str
    hashed: list[Hashed] | None
    want_lines: bool
    groups: list[ConfigGroup]  # the run's configuration first (linter/run/file_configs.py)
    calibration: Calibration | None = None

    @property
    def files_key(self) -> str:
        """The digest of every file's path and hash as read now, and of what discovery left out
        ("" without a cache)."""
        if self.hashed is None:
            return ""
        return self._with_discovery(files_digest(file.key for file in self.hashed))

    def _with_discovery(self, files: str) -> str:
        """``files`` (the digest of the file keys) with what discovery left out: the report
        names the excluded files, the folders too deep and the charts' templates, so one kept
        for other such files must not be used (an excluded file added since)."""
        discovery = self.discovery
        left_out = (discovery.excluded, discovery.too_deep, discovery.chart_templates)
        return files_digest([files, *(f"{len(names)}\0" + "\0".join(names) for names in left_out)])

    def answered(self, files_checked: int, skipped: Sequence[Skipped]) -> RunResult:
        """The run as a report kept for these same files describes it: nothing linted, so no
        findings here (the report holds them)."""
        return self._result([], files_checked, list(skipped), {}, self.files_key)

    def run(self, cost_base: CostBase | None = None) -> RunResult:
        """Both passes. With the result cache an unchanged file's first-pass result is reused,
        and the second pass's when no file changed. ``cost_base`` is what the budgets'
        increase limits compare with (read in the second pass only, so cached results stay
        valid)."""
        plans = self._plans()
        max_bytes = _max_bytes(self.config)
        stored = RunCache(self.cache, self.run_key)
        results = _first_pass(self.candidates, self.hashed, plans, stored, max_bytes, self.jobs)
        digest = files_digest([result.key for result in results])
        unchanged = all(result.cached for result in results)
        run_wide = stored.run_wide(digest, results) if unchanged and cost_base is None else None
        if run_wide is None:
            for index in stored.restore_wide(results):  # a damaged entry: lint the file again
                source = read_source(self.candidates[index], max_bytes)
                results[index] = lint_file(source, plans[index]())
            pack_wide([result for result in results if result.cached])
            from linter.facts.run import RunInputs

            config = self.config.config
            inputs = RunInputs(tuple(config.budgets), cost_base, config.cluster)
            evaluators = [plan().run_wide for plan in plans]
            run_wide = run_wide_findings(results, evaluators, inputs, self.jobs)
            stored.store(results, run_wide if cost_base is None else None, digest)
        settings = [self.groups[0].settings] * len(results)
        for group in self.groups[1:]:
            for index in group.members:
                settings[index] = group.settings
        findings = finalise(results, run_wide, self.rulebook, settings)
        skipped = [
            *(Skipped(t, chart_templates_reason(t)) for t in self.discovery.chart_templates),
            *(Skipped(result.display, result.skipped) for result in results if result.skipped),
        ]
        checked = sum(1 for result in results if result.checked)
        lines = {result.display: dict(result.lines) for result in results if result.lines}
        reads = dict(read for result in results for read in result.reads)
        # keyed by the files as linted (one edited since it was hashed is linted as it is now)
        files_key = self._with_discovery(digest) if self.cache else ""
        return self._result(findings, checked, skipped, lines, files_key, list(reads.items()))

    def _changed_by_configs(self) -> tuple[list[str], list[str]]:
        """The rules the configurations turned off and the severities they changed, for the
        run summary; a file's configuration below the run's says where (``GL202 under ml/``),
        so that no folder turns a rule off without it showing."""
        disabled = self.selection.disabled_by_config(self.rulebook)
        severities = self.selection.severities_by_config(self.rulebook)
        for group in self.groups[1:]:
            folder = os.path.relpath(group.config.base) + "/"
            selection = group.selection
            disabled += [f"{i} under {folder}" for i in selection.disabled_by_config(self.rulebook)]
            changed = selection.severities_by_config(self.rulebook)
            severities += [f"{change} under {folder}" for change in changed]
        return disabled, severities

    def _plans(self) -> list[_Plan]:
        """Each file's first-pass plan: one per configuration, shared by its files."""
        plans: list[_Plan] = [None] * len(self.candidates)  # type: ignore[list-item]
        for group in self.groups:
            settings = group.settings
            enabled = [(rule, settings[rule.id]) for rule in self.rulebook if rule.id in settings]
            plan = _Plan(enabled, group.config, self.want_lines, self.calibration)
            for index in group.members:
                plans[index] = plan
        return plans

    def _result(
        self,
        findings: list[Finding],
        checked: int,
        skipped: list[Skipped],
        lines: dict[str, dict[int, LineInfo]],
        files_key: str,
        reads: list[tuple[FileRead, str]] | None = None,
    ) -> RunResult:
        return RunResult(
            findings,
            self.rulebook,
            self.settings,
            checked,
            skipped,
            lines,
            self.discovery.excluded,
            self.discovery.too_deep,
            *self._changed_by_configs(),
            run_key=self.run_key,
            files_key=files_key,
            reads=reads or [],
        )


class _Plan:
    """The first pass's plan, made on first use: a run answered from the cache never imports
    the engine, facts or formats."""

    def __init__(
        self,
        enabled: Sequence[tuple[CompiledRule, RuleSettings]],
        config: LoadedConfig,
        lines: bool,
        calibration: Calibration | None,
    ) -> None:
        self._arguments = (enabled, config, lines, calibration)
        self._made: FirstPass | None = None

    def __call__(self) -> FirstPass:
        if self._made is None:
            from linter.run.first_pass import FirstPass

            self._made = FirstPass.plan(*self._arguments)
        return self._made


def _key(
    rulebook: Rulebook,
    groups: Sequence[ConfigGroup],
    selection: Selection,
    lines: bool,
    calibration: Calibration | None,
) -> str:
    """The result cache's key for this run's inputs (linter/run/result_key.py says what it
    covers); each file's result is stored under it by the file's path and content hash. Every
    configuration of the run is in it by where it is: which applies to a file follows from the
    file's path and where they are, so the files themselves stay out (a file added does not
    change the key of the others)."""
    configs = sorted(
        f"config {group.config.path} {group.config.digest}\0"
        + compact_json(data_of(group.config.config))
        for group in groups
    )
    inputs = [
        *configs,
        repr(selection.select),
        repr(selection.ignore),
        f"lines {lines}",
        f"calibration {calibration!r}",
    ]
    rules = (f"{rule.source}\0{compact_json(data_of(rule.meta))}" for rule in rulebook)
    return run_key(inputs, rules)


def _first_pass(
    candidates: Sequence[PathCandidate],
    hashed: Sequence[Hashed] | None,
    plans: Sequence[_Plan],
    stored: RunCache,
    max_bytes: int,
    jobs: int,
) -> list[FileResult]:
    """Every file's result, in order: from the cache when it has the file as read now, else
    linted, in forked workers for large runs, each of which reads its own files.

    With a cache the parent has read and hashed every file (``hashed``) and restores what it
    can; only the files left are forked out: sending a restored result back from a worker
    costs more than restoring it."""
    if hashed is None:
        return _lint_all(candidates, plans, max_bytes, jobs)
    outcomes: list[FileResult | None] = []
    left: list[PathCandidate] = []
    left_plans: list[_Plan] = []
    for file, plan in zip(hashed, plans, strict=True):
        candidate = file.candidate
        restored = stored.restore(
            candidate.display, candidate.explicit, file.digest, file.line_count
        )
        outcomes.append(restored)
        if restored is None:
            left.append(candidate)
            left_plans.append(plan)
    linted = iter(_lint_all(left, left_plans, max_bytes, jobs))
    return [outcome if outcome is not None else next(linted) for outcome in outcomes]


def _lint_all(
    candidates: Sequence[PathCandidate], plans: Sequence[_Plan], max_bytes: int, jobs: int
) -> list[FileResult]:
    """Read and lint ``candidates``, in order; their wide parts packed (linter/cache/packed.py), so
    that they also travel back from workers in a few bytes."""

    def chunk(start: int, stop: int) -> list[FileResult]:
        results: list[FileResult] = []
        for first in range(start, stop, CHUNK_ITEMS):
            last = min(stop, first + CHUNK_ITEMS)
            done = [
                lint_file(read_source(candidates[index], max_bytes), plans[index]())
                for index in range(first, last)
            ]
            pack_wide(done, consecutive=True)
            results.extend(done)
            garbage_collection.results_live_on(last - first)
        return results

    if candidates:
        for plan in {id(plan): plan for plan in plans}.values():
            plan()  # before forking, so that every worker has it
        garbage_collection.lives_on()
    parts = fork_map(chunk, len(candidates), jobs)
    if parts is None:
        return chunk(0, len(candidates))
    results = [result for part in parts for result in part]
    for result, candidate in zip(results, candidates, strict=True):
        result.display = candidate.display  # the same text, one string where a worker made two
    return results


def lint_file(source: Source, plan: FirstPass) -> FileResult:
    """The first pass on one file (linter/run/first_pass.py, imported on first use)."""
    from linter.run.first_pass import lint_file as first_pass

    return first_pass(source, plan)


def _max_bytes(config: LoadedConfig | None) -> int:
    return (config.config.max_file_size if config else None) or DEFAULT_MAX_BYTES


@datarecord(frozen=False)
class Collected:
    """The manifests of some files, read without running any rule (``facts``, ``convert``,
    ``memory``), and the findings about the input itself."""

    manifests: list[Manifest] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


def collect(candidates: Sequence[PathCandidate], config: LoadedConfig | None = None) -> Collected:
    """Read, recognise and adapt each candidate (GL001/GL002 findings for what fails)."""
    from linter.config import load_config

    config = config or load_config(None)
    max_bytes = _max_bytes(config)
    return collect_sources((read_source(c, max_bytes) for c in candidates), config)


def collect_sources(sources: Iterable[Source], config: LoadedConfig) -> Collected:
    """Recognise and adapt what was read, however it was read (from disk, or at a git
    revision by ``linter.costs.git_tree``)."""
    from linter.load import Limits
    from linter.run.first_pass import read_file

    out = Collected()
    for source in sources:
        result, manifests, _ = read_file(source, config, Limits())
        out.findings.extend(result.findings)
        out.manifests.extend(manifests)
    return out
