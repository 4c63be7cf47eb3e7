"""SARIF 2.1.0 for GitHub code scanning, built with sarif-om and serialised by our own walker.

Why not jschema_to_python: it drops explicitly set values that equal the schema default (a
result's ``level: warning`` disappears) and cannot carry ``security-severity``. The walker below
reads each attrs field's ``schema_property_name`` and writes every value that is not None; plain
dicts (property bags) pass through as they are.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import chain
from typing import Any, NamedTuple

import attr
import sarif_om as om

from linter import version
from linter.findings import Finding, Location
from linter.load.positions import format_path
from linter.policy import docs
from linter.report.pieces import joined
from linter.report.record import Rendered, RenderOptions, Report, RuleInfo
from linter.report.summary import in_baseline, reported
from linter.report.uris import artifact_uri

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/gpulint/gpulint"
DEFAULT_CATEGORY = "gpulint"
SECURITY_SEVERITY = {"error": "8.0", "warning": "5.0", "note": "2.0"}
# GitHub code scanning: more results or related locations than this and the upload is rejected;
# of more tags than this only the first ones are kept.
MAX_RESULTS = 25_000
MAX_LOCATIONS = 1_000
MAX_TAGS = 10


class Sarif(NamedTuple):
    document: dict[str, Any]  # the log, its run's results left empty
    results: Iterator[dict[str, Any]]  # the run's results, each made as it is read
    warnings: list[str]  # what had to be cut to stay within GitHub's limits


def to_jsonable(value: Any) -> Any:
    if attr.has(type(value)):
        out = {}
        for field in attr.fields(type(value)):
            item = getattr(value, field.name)
            # sarif-om marks "not set" integers (index, offsets, rank) with a -1 default
            if item is not None and not (item == -1 and field.default == -1):
                out[field.metadata.get("schema_property_name", field.name)] = to_jsonable(item)
        return out
    if isinstance(value, dict):
        return {key: to_jsonable(item) for key, item in value.items() if item is not None}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(item) for item in value]
    return value


def _descriptor(rule: RuleInfo) -> om.ReportingDescriptor:
    meta = rule.meta
    tags = ["security", *(t for t in meta.tags if t != "security")] if meta.security else meta.tags
    properties: dict[str, Any] = {"tags": list(tags)[:MAX_TAGS], "precision": "high"}
    if meta.security:
        properties["security-severity"] = SECURITY_SEVERITY[meta.severity]
    return om.ReportingDescriptor(
        id=meta.id,
        name=meta.name,
        short_description=om.MultiformatMessageString(text=meta.summary),
        full_description=om.MultiformatMessageString(text=" ".join(meta.docs.what_it_does.split())),
        help=om.MultiformatMessageString(
            text=" ".join(meta.docs.why_is_this_bad.split()), markdown=docs.markdown(meta)
        ),
        help_uri=docs.help_uri(meta),
        default_configuration=om.ReportingConfiguration(level=rule.severity.value),
        properties=properties,
    )


def _artifact(file: str, places: RenderOptions) -> om.ArtifactLocation:
    uri, base_id = artifact_uri(file, places.base, places.root)
    return om.ArtifactLocation(uri=uri, uri_base_id=base_id)


def _physical(location: Location, places: RenderOptions) -> om.PhysicalLocation:
    span = location.span
    return om.PhysicalLocation(
        artifact_location=_artifact(location.file, places),
        region=om.Region(
            start_line=span.line,
            start_column=span.column,
            end_line=span.end_line,
            end_column=span.end_column,
        ),
    )


def _result(
    finding: Finding,
    index: dict[str, int],
    places: RenderOptions,
    fingerprint: Callable[[Location], str | None],
) -> om.Result:
    related = [
        om.Location(
            id=number,
            physical_location=_physical(r, places),
            message=om.Message(text=r.message or "related location"),
        )
        for number, r in enumerate(finding.related[:MAX_LOCATIONS], start=1)
    ]
    line_hash = fingerprint(finding.location)
    return om.Result(
        rule_id=finding.rule_id,
        rule_index=index[finding.rule_id],
        level=finding.level.value,
        message=_message(finding),
        locations=[om.Location(physical_location=_physical(finding.location, places))],
        related_locations=related or None,
        partial_fingerprints={"primaryLocationLineHash": line_hash} if line_hash else None,
        properties=_properties(finding),
        suppressions=[om.Suppression(kind="external", justification=finding.suppressed_reason)]
        if finding.baseline
        else None,
    )


_MARKDOWN_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]<>#|"})


def _message(finding: Finding) -> om.Message:
    """The one-line verdict as the text (what code scanning lists); the fix, with the reasoning
    and arithmetic behind the verdict, follows it in the Markdown form."""
    if not finding.fix:
        return om.Message(text=finding.message)
    markdown = (
        f"{finding.message.translate(_MARKDOWN_SPECIAL)}\n\n"
        f"**Fix:** {finding.fix.translate(_MARKDOWN_SPECIAL)}"
    )
    return om.Message(text=finding.message, markdown=markdown)


def _properties(finding: Finding) -> dict[str, Any] | None:
    """The fix, the manifest paths (normalised, and as written when adapted) and the figures
    the rule names (its ``properties:``), for scripts."""
    location = finding.location
    properties = {
        **dict(finding.properties),
        "fix": finding.fix,
        "path": format_path(location.path) if location.path else None,
        "sourcePath": format_path(location.source_path) if location.source_path else None,
    }
    kept = {key: value for key, value in properties.items() if value is not None}
    return kept or None


def _fingerprints(
    lines: Mapping[str, Mapping[int, tuple[str | None, str]]],
) -> Callable[[Location], str | None]:
    """A location's line fingerprint, as the run computed it while the file was read; None
    where it is unknown (unreadable, not UTF-8): upload-sarif computes it from the checkout."""

    def lookup(location: Location) -> str | None:
        info = lines.get(location.file, {}).get(location.span.line)
        return info[0] if info else None

    return lookup


def _within_limits(findings: Sequence[Finding]) -> tuple[list[Finding], list[str]]:
    """At most MAX_RESULTS results, the most severe kept, in report order."""
    warnings = []
    kept = list(findings)
    if len(kept) > MAX_RESULTS:
        ranked = sorted(range(len(kept)), key=lambda i: -kept[i].level.rank)
        chosen = set(ranked[:MAX_RESULTS])
        kept = [f for i, f in enumerate(kept) if i in chosen]
        warnings.append(
            f"{len(findings):,} results are more than GitHub code scanning accepts in "
            f"one run; the SARIF holds the {MAX_RESULTS:,} most severe"
        )
    crowded = sum(1 for f in kept if len(f.related) > MAX_LOCATIONS)
    if crowded:
        warnings.append(
            f"{crowded} results have more than {MAX_LOCATIONS:,} related locations; "
            f"the SARIF holds the first {MAX_LOCATIONS:,} of each"
        )
    return kept, warnings


def build(report: Report, options: RenderOptions | None = None) -> Sarif:
    places = options or RenderOptions()
    category = places.category
    rules = list(report.rules)
    index = {rule.id: number for number, rule in enumerate(rules)}
    findings, warnings = _within_limits(reported(report.findings))
    # matched the baseline: kept as suppressed results, so code scanning closes their alerts
    # rather than seeing them vanish (within the results' limit, after the others)
    findings += in_baseline(report.findings)[: max(MAX_RESULTS - len(findings), 0)]
    fingerprint = _fingerprints(report.lines)
    run = om.Run(
        tool=om.Tool(
            driver=om.ToolComponent(
                name="gpulint",
                version=version(),
                semantic_version=version(),
                information_uri=INFORMATION_URI,
                rules=[_descriptor(rule) for rule in rules],
            )
        ),
        automation_details=om.RunAutomationDetails(id=f"{category.rstrip('/')}/"),
        column_kind="unicodeCodePoints",
        results=[],
        invocations=[_invocation(report, places)],
    )
    log = om.SarifLog(version="2.1.0", schema_uri=SCHEMA_URI, runs=[run])
    results = (to_jsonable(_result(f, index, places, fingerprint)) for f in findings)
    return Sarif(to_jsonable(log), results, warnings)


def _invocation(report: Report, places: RenderOptions) -> om.Invocation:
    """The run itself: the files it did not lint, and why, as notifications at their files;
    what the configuration changed (rules turned off or lowered, ``failOn``, files excluded)
    as configuration notifications."""
    skipped = [
        om.Notification(
            level="note",
            message=om.Message(text=f"not linted: {s.reason}"),
            locations=[
                om.Location(
                    physical_location=om.PhysicalLocation(
                        artifact_location=_artifact(s.file, places)
                    )
                )
            ],
        )
        for s in report.skipped
    ]
    configured = [
        om.Notification(level="note", message=om.Message(text=notice)) for notice in report.notices
    ]
    return om.Invocation(
        execution_successful=True,
        tool_execution_notifications=skipped or None,
        tool_configuration_notifications=configured or None,
    )


#: Compact: Python's indenting encoder is pure Python, 20x slower on a large log.
_ENCODE = json.JSONEncoder(separators=(",", ":")).encode


def render(report: Report, options: RenderOptions) -> Rendered:
    """The text ``json.dumps`` would give the whole log, compact, its results encoded one at a
    time as they are written (linter/report/pieces.py): a large log is never held whole."""
    document, results, warnings = build(report, options)
    (run,) = document["runs"]
    listed = chain(("[",), joined(map(_ENCODE, results), ","), ("]",))
    runs = chain(("[",), _members(run, "results", listed), ("]",))
    return Rendered(chain(_members(document, "runs", runs), ("\n",)), tuple(warnings))


def _members(data: dict[str, Any], key: str, value: Iterable[str]) -> Iterator[str]:
    """``data`` as its compact encoding, in pieces: the value of ``key`` is given as pieces."""
    yield "{"
    for number, (name, item) in enumerate(data.items()):
        comma = "," if number else ""
        if name == key:
            yield f"{comma}{_ENCODE(name)}:"
            yield from value
        else:
            yield f"{comma}{_ENCODE(name)}:{_ENCODE(item)}"
    yield "}"
