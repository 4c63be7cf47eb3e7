"""Run compiled rules over validated manifests and their facts."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from linter import cel
from linter.documents import Manifest
from linter.facts import RunIndex, compute_facts
from linter.findings import Finding, Location, Severity
from linter.load.positions import Path as ManifestPath
from linter.load.positions import parse_path
from linter.policy.loader import CompiledCheck, CompiledRule

EVALUATION_RULE = "GL006"


@dataclass(frozen=True)
class RuleSettings:
    """A rule as configured for this run. ``severity`` is the config's override, if any; without
    one, a finding has its check's severity, else the rule's."""

    severity: Severity | None = None
    options: Mapping[str, Any] = field(default_factory=dict)


def evaluate(
    rules: Sequence[tuple[CompiledRule, RuleSettings]],
    manifests: Sequence[Manifest],
    run: RunIndex,
) -> Iterator[Finding]:
    """Findings of every enabled policy rule on every manifest."""
    by_kind: dict[str, list[tuple[CompiledRule, RuleSettings]]] = {}
    for rule, settings in rules:
        if not rule.meta.engine:
            for kind in rule.meta.scope.kinds:
                by_kind.setdefault(kind, []).append((rule, settings))
    for manifest in manifests:
        applicable = by_kind.get(manifest.kind)
        if applicable:
            yield from _evaluate_manifest(manifest, applicable, run)


def activation(manifest: Manifest, run: RunIndex) -> dict[str, Any]:
    """The variables a rule sees: the document under its kind's name and as ``document``, and
    ``facts``. Built once per manifest and shared by every rule."""
    document = manifest.model.model_dump(mode="json", by_alias=True)
    kind_variable = manifest.kind[0].lower() + manifest.kind[1:]
    return {"document": document, kind_variable: document, "facts": compute_facts(manifest, run)}


def _evaluate_manifest(
    manifest: Manifest, rules: Sequence[tuple[CompiledRule, RuleSettings]], run: RunIndex
) -> Iterator[Finding]:
    variables = activation(manifest, run)
    context = cel.new_context(variables)
    profile = variables["document"].get("spec", {}).get("profile")
    for rule, settings in rules:
        profiles = rule.meta.scope.profiles
        if profiles and profile not in profiles:
            continue
        context.add_variable("options", dict(settings.options))
        try:
            yield from _evaluate_rule(rule, manifest, context, run)
        except cel.CelError as err:
            yield Finding(
                EVALUATION_RULE,
                Severity.WARNING,
                f"rule {rule.id} ({rule.meta.name}) could not be evaluated here: {err}",
                manifest.location(("kind",)),
            )


def _evaluate_rule(
    rule: CompiledRule,
    manifest: Manifest,
    context: Any,
    run: RunIndex,
) -> Iterator[Finding]:
    if rule.applies is not None and not _truth(rule.applies, context, "applies"):
        return
    items: list[Any] = [None]
    if rule.each is not None:
        items = cel.evaluate(rule.each, context)
        if not isinstance(items, list):
            raise cel.CelError("`each` must evaluate to a list")
    for index, item in enumerate(items):
        if rule.each is not None:
            context.add_variable("item", item)
            context.add_variable("index", index)
        for check in rule.checks:
            if _truth(check.violation, context, "violation"):
                yield _finding(rule, check, manifest, context, run)


def _truth(program: Any, context: Any, what: str) -> bool:
    value = cel.evaluate(program, context)
    if not isinstance(value, bool):
        raise cel.CelError(f"`{what}` must be true or false, got {value!r}")
    return value


def _finding(
    rule: CompiledRule,
    check: CompiledCheck,
    manifest: Manifest,
    context: Any,
    run: RunIndex,
) -> Finding:
    path = pick_path(manifest, check.path.render(context))
    related: tuple[Location, ...] = ()
    if check.related is not None:
        related = tuple(_related(cel.evaluate(check.related, context), run))
    return Finding(
        rule.id,
        Severity(check.severity or rule.meta.severity),
        check.message.render(context),
        manifest.location(path),
        related,
    )


def pick_path(manifest: Manifest, spec: str) -> ManifestPath:
    """``spec.lifecycle | spec.resources``: the first alternative present in the document, else
    the first one (which then resolves to its nearest present ancestor)."""
    alternatives = [parse_path(part.strip()) for part in spec.split("|")]
    for path in alternatives:
        if manifest.source_map.exact(path) is not None:
            return path
    return alternatives[0]


def _related(entries: Any, run: RunIndex) -> Iterator[Location]:
    if not isinstance(entries, list):
        raise cel.CelError("`related` must evaluate to a list of maps")
    for entry in entries:
        if not isinstance(entry, dict):
            raise cel.CelError("`related` entries must be maps with file, document and path")
        target = run.find(str(entry.get("file")), entry.get("document"))
        if target is not None:
            path = parse_path(str(entry.get("path") or "kind"))
            yield target.location(path, entry.get("message"))
