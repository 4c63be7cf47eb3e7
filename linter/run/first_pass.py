"""Pass 1: each file on its own, in worker processes for large runs.

Read the file once (the bytes hashed for the result cache are the bytes linted), parse it,
recognise and adapt its documents, compute local facts, run every rule that needs nothing from
other files, and keep a :class:`~linter.run.file_result.FileResult`: local findings, suppressions,
the records run-wide facts are built from, and the wide part the run-wide rules need. The
file's text and parsed documents are dropped when the file is done.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import field
from functools import partial
from typing import TYPE_CHECKING

from linter.cel.flat_names import MISSING
from linter.config import LoadedConfig
from linter.facts import records, run_sides, target
from linter.facts.files_read import files_read
from linter.findings import Finding, Location, first_template_note, template_note
from linter.formats import Format, InputFile, claimed, markers_for, recognise
from linter.load import Document, Limits, LoadedFile, load_source, syntax_of
from linter.load.lists import expand_lists
from linter.load.positions import Path as ManifestPath
from linter.load.positions import Span, parse_path
from linter.load.sources import FileRead, Source, read_digest
from linter.model.manifest import Manifest
from linter.policy.evaluator import Evaluator, Values, activation, is_run_wide, profile_of
from linter.policy.loader import CompiledRule
from linter.policy.selection import RuleSettings
from linter.records import datarecord
from linter.report.fingerprint import line_hashes
from linter.run import suppressions
from linter.run.failures import contained
from linter.run.file_result import A_TEMPLATE, NOTHING_OURS, FileResult, LineInfo
from linter.run.wide_parts import Anchors, WidePart, defer

if TYPE_CHECKING:
    from linter.memory.calibration import Calibration

PARSE_RULE = "GL002"
_PLACEHOLDER = re.compile(r"\{.*")


@datarecord(frozen=False)
class FirstPass:
    """What every file is checked against: built once per run, before workers fork."""

    config: LoadedConfig
    local: Evaluator
    run_wide: Evaluator
    #: Per kind: the paths run-wide findings may point at (and related locations).
    anchors: dict[str, Anchors] = field(default_factory=dict)
    want_lines: bool = False  # keep fingerprints and line texts (SARIF, baselines)
    limits: Limits = field(default_factory=Limits)
    calibration: Calibration | None = None  # ``check --calibration``: memory corrections

    @classmethod
    def plan(
        cls,
        rules: Sequence[tuple[CompiledRule, RuleSettings]],
        config: LoadedConfig,
        want_lines: bool,
        calibration: Calibration | None = None,
    ) -> FirstPass:
        local = [(r, s) for r, s in rules if not is_run_wide(r)]
        wide = [(r, s) for r, s in rules if is_run_wide(r)]
        run_wide = Evaluator(wide)
        exact: dict[str, set[ManifestPath]] = {}
        subtrees: dict[str, set[ManifestPath]] = {}
        for kind, applicable in run_wide.by_kind.items():
            exact.setdefault(kind, {("kind",)})
            for rule, _ in applicable:
                for path, whole in _pointed_at(rule, kind):
                    (subtrees if whole else exact).setdefault(kind, set()).add(path)
        for side in run_sides().values():
            for kind, paths in side.points_at.items():
                subtrees.setdefault(kind, set()).update(parse_path(p) for p in paths)
        anchors = {
            kind: Anchors(frozenset(exact.get(kind, ())), frozenset(subtrees.get(kind, ())))
            for kind in exact.keys() | subtrees.keys()
        }
        return cls(config, Evaluator(local), run_wide, anchors, want_lines, calibration=calibration)


def _pointed_at(rule: CompiledRule, kind: str) -> Iterator[tuple[ManifestPath, bool]]:
    """Where a rule's checks on a manifest of ``kind`` may point: each path alternative written
    out in full, and the static start of each with a placeholder, with everything below it
    (``spec.endpoints[{item.endpoint}].model`` -> ``spec.endpoints``, True). An alternative
    that is all placeholder (``{item.path}``) names a path a run-wide fact gives: those are
    where the rule's providers say their facts point, or anywhere when one does not say."""
    for check in rule.meta.checks:
        for alternative in check.path.split("|"):
            written = alternative.strip()
            static = _PLACEHOLDER.sub("", written).rstrip(".[")
            if static == written:
                yield parse_path(static), False
            elif static:
                yield parse_path(static), True
            else:
                yield from ((path, True) for path in _named_by_facts(rule, kind))


def _named_by_facts(rule: CompiledRule, kind: str) -> Iterator[ManifestPath]:
    """The paths of a manifest of ``kind`` that the run-wide facts a rule reads name; the whole
    manifest, ``()``, unless each of them says."""
    sides = [side for name, side in run_sides().items() if name in rule.fact_providers]
    if not sides or any(kind not in side.points_at for side in sides):
        yield ()
        return
    for side in sides:
        yield from (parse_path(path) for path in side.points_at[kind])


def lint_file(source: Source, plan: FirstPass) -> FileResult:
    """Everything pass 2 needs of one file."""
    result, manifests, text = read_file(source, plan.config, plan.limits)
    if manifests:
        _check_manifests(manifests, plan, result)
    if result.checked:
        result.suppressions = tuple(suppressions.parse(text, syntax_of(source.candidate.location)))
        if plan.want_lines:
            result.lines = _lines(text, result)
    return result


def read_file(
    source: Source, config: LoadedConfig, limits: Limits
) -> tuple[FileResult, list[Manifest], str]:
    """Parse, recognise and adapt one file: its result so far (findings about the input
    itself), its manifests and its text."""
    candidate = source.candidate
    result = FileResult(candidate.display, candidate.explicit, digest=source.digest)
    result.line_count = source.line_count
    syntax = syntax_of(candidate.location)
    loaded = load_source(
        source.content,
        limits,
        markers=markers_for(syntax),
        syntax=syntax,
        name=os.path.basename(candidate.location),
        companions=source.companions,
    )
    # a rendered template on standard input matches as the template it names (a name only: it
    # is never read)
    named = candidate.display if candidate.content is not None else candidate.location
    assumed = config.assumptions(named, candidate.display)
    file = InputFile(candidate.display, candidate.path, loaded.text, assumed)
    recognised = [] if loaded.unrelated else _recognised(loaded, file)
    # A file that was not read at all could hold anything, so it is always reported; one that
    # does not parse is reported when it was asked for, holds a document of ours or says it is
    # one; a repository's other broken YAML (Helm templates) is not ours to judge.
    report_problems = bool(loaded.problems) and (
        loaded.refused or candidate.explicit or bool(recognised) or claimed(loaded.text)
    )
    if not recognised and not report_problems:
        result.skipped = NOTHING_OURS if candidate.explicit else None
        return result, [], ""
    result.checked = True
    findings = list(_load_findings(loaded, candidate.display))
    if not recognised and any(problem.template for problem in loaded.problems):
        result.skipped = A_TEMPLATE
    manifests: list[Manifest] = []
    for document, input_format in recognised:
        adapted = contained(
            partial(input_format.adapt, document, file),
            partial(Location, candidate.display, document.source_map.document, document.index),
        )
        if isinstance(adapted, Finding):
            findings.append(adapted)
            continue
        findings.extend(adapted.findings)
        manifests.extend(adapted.manifests)
    result.findings = tuple(first_template_note(findings))
    return result, manifests, loaded.text


def _load_findings(loaded: LoadedFile, display: str) -> Iterator[Finding]:
    """A GL002 error per problem, except that the lines a template action broke are one GL010
    note at the first action: the file is a template, not broken YAML."""
    template = None
    for problem in loaded.problems:
        if problem.template is None:
            yield Finding(PARSE_RULE, None, problem.message, Location(display, problem.span))
        elif template is None:
            template = problem
    if template is not None and template.template is not None:
        line, action = template.span.line, template.template
        span = Span(line, action.column, line, action.column + len(action.text))
        where = "on this line is not YAML until rendered"
        yield template_note(Location(display, span), action.text, where, parsed=False)


def _check_manifests(manifests: list[Manifest], plan: FirstPass, result: FileResult) -> None:
    here = {target(m): m for m in manifests}
    findings = list(result.findings)
    reads: list[tuple[FileRead, str]] = []
    for manifest in manifests:
        failed = contained(
            partial(_check_manifest, manifest, plan, result, findings, here),
            partial(manifest.location, ()),
        )
        if failed is not None:
            findings.append(failed)
        reads.extend((read, read_digest(read)) for read in files_read(manifest))
    result.findings = tuple(findings)
    result.reads = tuple(reads)


def _check_manifest(
    manifest: Manifest,
    plan: FirstPass,
    result: FileResult,
    found: list[Finding],
    here: dict[tuple[str, int, int], Manifest],
) -> None:
    """The local rules over one manifest (their findings added to ``found``), and what pass 2
    needs of it (in ``result``'s wide parts)."""
    variables = activation(manifest, plan.config.config.residency, calibration=plan.calibration)
    values = Values(variables)
    profile = profile_of(manifest)
    findings = list(
        plan.local.evaluate(manifest, values, profile, lambda f, d, p: here.get((f, d, p)))
    )
    # after the rules: a record reuses a local fact they had computed (the monthly cost)
    made = records(manifest, variables["facts"].computed)
    deferred = _deferred(manifest, values, profile, plan) if manifest.kind in plan.anchors else None
    found.extend(findings)
    wide = result.wide_parts()
    if any(record is not None for record in made):
        wide.records.append((target(manifest), made))
    if deferred is not None:
        wide.deferred.append(deferred)


def _deferred(manifest: Manifest, values: Values, profile: str | None, plan: FirstPass) -> WidePart:
    """What the run-wide rules for the manifest's kind and profile read of it, resolved now
    (run-wide facts excepted: they are known in the second pass)."""
    read = {}
    for name in plan.run_wide.local_names(manifest.kind, profile):
        value = values(name)
        if value is not MISSING:
            read[name] = value
    return defer(manifest, read, plan.anchors[manifest.kind])


def _recognised(loaded: LoadedFile, file: InputFile) -> list[tuple[Document, Format]]:
    """The documents of a file that some input format recognises, with that format (the items
    of a Kubernetes list each on its own)."""
    out = []
    for document in expand_lists(loaded.documents):
        input_format = recognise(document.data, file)
        if input_format is not None:
            out.append((document, input_format))
    return out


def _lines(text: str, result: FileResult) -> tuple[tuple[int, LineInfo], ...]:
    """Fingerprint and text of every line a finding of this file may point at: local findings,
    and the spots of its wide parts."""
    wanted = {f.location.span.line for f in result.findings}
    deferred = result.wide_parts().deferred
    wanted |= {spot[0] for part in deferred for spot in part.spots.values()}
    wanted |= {s.line for s in result.suppressions}
    lines = text.splitlines()
    hashes = line_hashes(text) if text else []
    return tuple(
        (
            line,
            (
                hashes[line - 1] if line <= len(hashes) else None,
                " ".join(lines[line - 1].split()) if line <= len(lines) else "",
            ),
        )
        for line in sorted(wanted)
        if line >= 1
    )
