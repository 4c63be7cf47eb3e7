"""SARIF 2.1.0 for GitHub code scanning, built with sarif-om and serialised by our own walker.

Why not jschema_to_python: it drops explicitly set values that equal the schema default (a
result's ``level: warning`` disappears) and cannot carry ``security-severity``. The walker below
reads each attrs field's ``schema_property_name`` and writes every value that is not None; plain
dicts (property bags) pass through as they are.
"""

from __future__ import annotations

import json
from pathlib import PurePosixPath
from typing import Any

import attr
import sarif_om as om

from linter import __version__
from linter.findings import Finding, Location
from linter.policy import docs
from linter.policy.loader import CompiledRule
from linter.report.summary import reported
from linter.runner import RunResult

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/gpulint/gpulint"
DEFAULT_CATEGORY = "gpulint"
SECURITY_SEVERITY = {"error": "8.0", "warning": "5.0", "note": "2.0"}


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


def _descriptor(rule: CompiledRule) -> om.ReportingDescriptor:
    meta = rule.meta
    properties: dict[str, Any] = {"tags": list(meta.tags), "precision": "high"}
    if meta.security:
        properties["security-severity"] = SECURITY_SEVERITY[meta.severity]
        properties["tags"] = [*meta.tags, "security"][:10]
    return om.ReportingDescriptor(
        id=meta.id,
        name=meta.name,
        short_description=om.MultiformatMessageString(text=meta.summary),
        full_description=om.MultiformatMessageString(text=" ".join(meta.docs.what_it_does.split())),
        help=om.MultiformatMessageString(
            text=" ".join(meta.docs.why_is_this_bad.split()), markdown=docs.markdown(meta)
        ),
        help_uri=docs.help_uri(meta),
        default_configuration=om.ReportingConfiguration(level=meta.severity),
        properties=properties,
    )


def _artifact(file: str) -> om.ArtifactLocation:
    """Repository-relative POSIX path against %SRCROOT%; a file outside the root gets a file URI."""
    if file.startswith("/"):
        return om.ArtifactLocation(uri=PurePosixPath(file).as_uri())
    return om.ArtifactLocation(uri=file, uri_base_id="%SRCROOT%")


def _physical(location: Location) -> om.PhysicalLocation:
    span = location.span
    return om.PhysicalLocation(
        artifact_location=_artifact(location.file),
        region=om.Region(
            start_line=span.line,
            start_column=span.column,
            end_line=span.end_line,
            end_column=span.end_column,
        ),
    )


def _result(finding: Finding, index: dict[str, int]) -> om.Result:
    related = [
        om.Location(id=number, physical_location=_physical(r),
                    message=om.Message(text=r.message or "related location"))
        for number, r in enumerate(finding.related, start=1)
    ]
    return om.Result(
        rule_id=finding.rule_id,
        rule_index=index[finding.rule_id],
        level=finding.severity.value,
        message=om.Message(text=finding.message),
        locations=[om.Location(physical_location=_physical(finding.location))],
        related_locations=related or None,
    )


def build(result: RunResult, category: str = DEFAULT_CATEGORY) -> dict[str, Any]:
    rules = list(result.rulebook)
    index = {rule.id: number for number, rule in enumerate(rules)}
    run = om.Run(
        tool=om.Tool(
            driver=om.ToolComponent(
                name="gpulint",
                version=__version__,
                semantic_version=__version__,
                information_uri=INFORMATION_URI,
                rules=[_descriptor(rule) for rule in rules],
            )
        ),
        automation_details=om.RunAutomationDetails(id=f"{category.rstrip('/')}/"),
        column_kind="unicodeCodePoints",
        results=[_result(f, index) for f in reported(result.findings)],
    )
    log = om.SarifLog(version="2.1.0", schema_uri=SCHEMA_URI, runs=[run])
    return to_jsonable(log)  # type: ignore[no-any-return]


def render(result: RunResult) -> str:
    return json.dumps(build(result), indent=2) + "\n"
