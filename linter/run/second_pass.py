"""Pass 2: what depends on more than one file, once every file has been read.

The run-wide facts' indices are built from every file's records (linearly: a pool or a quota
shared by thousands of workloads is summed once), the run-wide rules run on each manifest's
wide part, and then every finding of the run gets its file's suppressions and its final
severity.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from linter.findings import Finding
from linter.policy.loader import Rulebook
from linter.policy.selection import RuleSettings, resolve_severity
from linter.run import suppressions
from linter.run.failures import contained
from linter.run.file_result import FileResult, WideChunk
from linter.run.wide_parts import WidePart
from linter.run.workers import fork_map

if TYPE_CHECKING:  # imported when the run-wide rules run: a run answered from the cache does not
    from linter.facts.run import RunIndex, RunInputs
    from linter.policy.evaluator import Evaluator


#: Files whose wide parts related locations keep unpacked (least recently used dropped).
RELATED_FILES_KEPT = 256


def run_wide_findings(
    results: Sequence[FileResult],
    evaluators: Sequence[Evaluator],
    inputs: RunInputs,
    jobs: int = 1,
) -> list[Finding]:
    """The run-wide rules' findings, from the results of every file and the run's other
    inputs (budgets, the cost base); each file's manifests are judged by its own evaluator
    (its configuration's rules) against indices of every file. The indices are built once,
    before the files are evaluated in forked workers for large runs (each finding depends only
    on its manifest and the indices, so the order and the findings are those of one process).
    Each file's parts are unpacked while it is read (linter/cache/packed.py): nothing holds
    every file's at once."""
    from linter.facts import run_sides
    from linter.facts.run import RunIndex

    if not any(evaluators):
        return []
    run = RunIndex(run_sides(), inputs)
    _add_records(run, results)
    run.prepare()
    find = _Finder(results)

    def evaluate(start: int, stop: int) -> list[Finding]:
        found: list[Finding] = []
        for index in range(start, stop):
            found.extend(_evaluate_file(results[index], evaluators[index], run, find))
        return found

    chunks = fork_map(evaluate, len(results), jobs)
    if chunks is None:
        return evaluate(0, len(results))
    return [finding for chunk in chunks for finding in chunk]


def _add_records(run: RunIndex, results: Sequence[FileResult]) -> None:
    """Every file's records, in run order: a :class:`WideChunk`'s whole where its files come
    one after another here as they were packed, the others file by file."""
    index = 0
    while index < len(results):
        chunk = _whole_chunk(results, index)
        if chunk is not None:
            run.add_packed(chunk.provider_records)
            index += chunk.files
            continue
        for target, records in results[index].wide_parts().records:
            run.add(target, records)
        index += 1


def _whole_chunk(results: Sequence[FileResult], index: int) -> WideChunk | None:
    """The WideChunk packed of ``results[index:]``'s first files, in their order, if any."""
    wide = results[index].wide
    if not isinstance(wide, tuple) or wide[1] != 0 or not isinstance(wide[0], WideChunk):
        return None
    chunk = wide[0]
    following = results[index : index + chunk.files]
    if len(following) == chunk.files and all(
        result.wide == (chunk, number) for number, result in enumerate(following)
    ):
        return chunk
    return None


def _evaluate_file(
    result: FileResult, evaluator: Evaluator, run: RunIndex, elsewhere: _Finder
) -> list[Finding]:
    """The run-wide findings of one file's manifests."""
    from linter.facts import RUN_WIDE
    from linter.policy.evaluator import Values, nested

    parts = result.wide_parts()

    def find(file: str, document: int, part: int) -> WidePart | None:
        if file != result.display:
            return elsewhere(file, document, part)
        return _part_of(parts.deferred, document, part)

    own = dict(parts.records)

    def evaluate(part: WidePart) -> list[Finding]:
        records = own.get((part.file, part.index, part.part), {})
        variables: dict[str, Any] = dict(nested(part.values))
        facts = dict(variables.get("facts", {}))
        for provider in evaluator.providers(part.kind, part.profile) & RUN_WIDE:
            facts[provider] = run.fact(provider, records.get(provider)).as_data()
        variables["facts"] = facts
        return list(evaluator.evaluate(part, Values(variables), part.profile, find))

    found: list[Finding] = []
    for part in parts.deferred:
        outcome = contained(partial(evaluate, part), partial(part.location, ()))
        found.extend([outcome] if isinstance(outcome, Finding) else outcome)
    return found


def _part_of(deferred: Sequence[WidePart], document: int, part: int) -> WidePart | None:
    return next((d for d in deferred if (d.index, d.part) == (document, part)), None)


class _Finder:
    """Another manifest's wide part, for the related locations of a finding. The files are
    looked up by name only once a finding asks (most runs never do), and the parts of the last
    files asked for are kept unpacked: findings point again and again at the same few (a quota
    ledger, the first workloads of a shared pool), while their chunks are anywhere in the run."""

    def __init__(self, results: Sequence[FileResult]) -> None:
        self._results = results
        self._by_file: dict[str, FileResult] | None = None
        self._parts: dict[str, list[WidePart]] = {}

    def __call__(self, file: str, document: int, part: int) -> WidePart | None:
        return _part_of(self._deferred(file), document, part)

    def _deferred(self, file: str) -> list[WidePart]:
        found = self._parts.pop(file, None)
        if found is None:
            if self._by_file is None:
                self._by_file = {result.display: result for result in self._results}
            result = self._by_file.get(file)
            found = result.wide_parts().deferred if result is not None else []
            if len(self._parts) >= RELATED_FILES_KEPT:
                del self._parts[next(iter(self._parts))]
        self._parts[file] = found  # most recently used last
        return found


def finalise(
    results: Sequence[FileResult],
    run_wide: list[Finding],
    rulebook: Rulebook,
    settings_of: Sequence[dict[str, RuleSettings]],
) -> list[Finding]:
    """Apply each file's suppressions, then its configuration's selection and severities
    (``settings_of``: one per result). The findings are moved out of each result as it is done
    and out of ``run_wide`` (those lists left empty): every finding is copied with its severity,
    and a 10,000-file run would otherwise hold both copies until the report is written (about
    5 MiB of first-pass findings and as much of run-wide ones at 44,000 findings)."""
    by_file: dict[str, list[Finding]] = {}
    for finding in run_wide:
        by_file.setdefault(finding.location.file, []).append(finding)
    run_wide.clear()
    known = set(rulebook.by_id)
    final = []
    for result, settings in zip(results, settings_of, strict=True):
        ran = set(settings)
        findings = [*result.findings, *by_file.pop(result.display, [])]
        result.findings = ()
        if not findings and not result.suppressions:
            continue
        applied = suppressions.apply(result.display, findings, result.suppressions, known, ran)
        for finding in applied:
            rule_settings = settings.get(finding.rule_id)
            if rule_settings is not None:
                rule = rulebook.by_id[finding.rule_id]
                severity = resolve_severity(rule.meta, finding.severity, rule_settings)
                final.append(finding.with_severity(severity))
    return sorted(final, key=lambda f: f.sort_key)
