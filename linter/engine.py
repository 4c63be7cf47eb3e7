"""Run compiled rules over validated manifests and their facts."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from linter import cel
from linter.facts import Facts, RunIndex
from linter.findings import Finding, Location, Severity
from linter.formats.manifest import Manifest
from linter.load.positions import Path as ManifestPath
from linter.load.positions import format_path, parse_path
from linter.policy.budget import CostModel, document_sizes, over_budget
from linter.policy.flatten import MISSING, SEPARATOR, kind_variable, resolve
from linter.policy.loader import CompiledCheck, CompiledRule
from linter.selection import RuleSettings, resolve_severity

EVALUATION_RULE = "GL006"


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
    names_by_kind = {
        kind: frozenset(name for rule, _ in applicable for name in rule.reads)
        for kind, applicable in by_kind.items()
    }
    budgets = {rule.id: _budget(rule, settings) for rule, settings in rules}
    for manifest in manifests:
        applicable = by_kind.get(manifest.kind)
        if applicable:
            yield from _evaluate_manifest(
                manifest, applicable, names_by_kind[manifest.kind], run, budgets
            )


_UNDEFINED = re.compile(r"Undefined variable or function: '(\w+)'")


def explain(error: cel.CelError) -> str:
    """The backend's message in manifest terms: a flattened name that is not defined is a path
    the document does not have."""
    message = str(error)
    match = _UNDEFINED.search(message)
    if match and SEPARATOR in match.group(1):
        return f"no such field: {match.group(1).replace(SEPARATOR, '.')}"
    return message


def activation(manifest: Manifest, run: RunIndex) -> dict[str, Any]:
    """The variables a rule sees: the document under its kind's name and as ``document``, and
    ``facts``. Built once per manifest and shared by every rule."""
    document = manifest.model.model_dump(mode="json", by_alias=True)
    return {
        "document": document,
        kind_variable(manifest.kind): document,
        "facts": Facts(manifest, run),
    }


def _evaluate_manifest(
    manifest: Manifest,
    rules: Sequence[tuple[CompiledRule, RuleSettings]],
    names: frozenset[str],
    run: RunIndex,
    budgets: dict[str, CostModel],
) -> Iterator[Finding]:
    variables = activation(manifest, run)
    # Rule expressions are flattened (linter.policy.flatten) so that each reads only the values
    # at the paths it names; the context holds exactly those names. What changes from
    # rule to rule (options) or item to item (item, index) is served by a resolver: adding a
    # variable would make the backend convert the whole context again on the next evaluation.
    prepared = {}
    for name in names:
        value = resolve(variables, name)
        if isinstance(value, Facts):  # a rule reading all of ``facts`` at once
            value = dict(value)
        if value is not MISSING:
            prepared[name] = value
    context = cel.new_context(prepared)
    varying: dict[str, Any] = {}
    context.set_variable_resolver(varying.get)
    profile = variables["document"].get("spec", {}).get("profile")
    size_of = document_sizes(variables)
    for rule, settings in rules:
        profiles = rule.meta.scope.profiles
        if profiles and profile not in profiles:
            continue
        varying.clear()
        varying["options"] = settings.options
        try:
            refused = over_budget(budgets[rule.id], size_of)
            if refused:
                raise cel.CelError(f"not run: {refused}")
            yield from _evaluate_rule(rule, manifest, context, varying, run, variables)
        except cel.CelError as err:
            # Fail closed: a policy that cannot be checked (or would cost too much to check on
            # this document) is reported at the policy's own severity, so an error-level rule
            # still fails the run.
            yield Finding(
                EVALUATION_RULE,
                resolve_severity(rule.meta, None, settings),
                f"rule {rule.id} ({rule.meta.name}) could not be evaluated here: {explain(err)}",
                manifest.location(("kind",)),
            )


def _budget(rule: CompiledRule, settings: RuleSettings) -> CostModel:
    """What evaluating a rule may cost, with its options' sizes filled in: checked on each
    document before anything runs (the CEL backend has no budget of its own)."""
    once, per_item = rule.costs
    options = document_sizes({"options": dict(settings.options)})
    return (once + per_item).specialise("options", options)


def _evaluate_rule(
    rule: CompiledRule,
    manifest: Manifest,
    context: Any,
    varying: dict[str, Any],
    run: RunIndex,
    activation: dict[str, Any],
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
            varying["item"], varying["index"] = item, index
        if rule.variables:
            values: dict[str, Any] = {}
            varying["variables"] = values
            for name, program in rule.variables:
                values[name] = cel.evaluate(program, context)
            # Only now are the sizes of the variables known: check the rest against them.
            sizes = document_sizes(
                {**activation, "variables": values, "options": varying["options"]}
            )
            refused = over_budget(rule.costs[1], sizes)
            if refused:
                raise cel.CelError(f"not run: {refused}")
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
    message = check.message.render(context)
    assumed = relied_assumptions(rule, manifest)
    if assumed:
        message = f"{message} ({assumed})"
    return Finding(
        rule.id,
        Severity(check.severity) if check.severity else None,
        message,
        manifest.location(path),
        related,
        fix=check.fix.render(context) if check.fix else None,
    )


def relied_assumptions(rule: CompiledRule, manifest: Manifest) -> str | None:
    """The configuration's assumptions a finding of ``rule`` relies on, named for its message:
    those at a document path the rule reads, or read by a fact provider the rule reads."""
    from linter.facts import PROVIDERS

    notes = []
    for path, origin in manifest.provenance.assumed():
        dotted = format_path(path)
        direct = any(_overlap(path, read) for read in rule.document_paths)
        via_fact = any(
            dotted.startswith(prefix) or prefix.startswith(dotted)
            for provider in rule.fact_providers
            for prefix in PROVIDERS[provider].reads
        )
        if (direct or via_fact) and origin.note:
            notes.append(f"{dotted.removeprefix('spec.')} {origin.note}")
    return "; ".join(notes) or None


def _overlap(a: ManifestPath, b: tuple[str, ...]) -> bool:
    shorter = min(len(a), len(b))
    return a[:shorter] == b[:shorter]


def pick_path(manifest: Manifest, spec: str) -> ManifestPath:
    """``spec.lifecycle | spec.resources``: the first alternative present in the normalised
    document, else the first one (which then resolves to its nearest present ancestor)."""
    alternatives = [parse_path(part.strip()) for part in spec.split("|")]
    for path in alternatives:
        if _present(manifest.data, path):
            return path
    return alternatives[0]


def _present(data: Any, path: ManifestPath) -> bool:
    for part in path:
        container = data
        if isinstance(container, dict) and isinstance(part, str):
            if part not in container:
                return False
            data = container[part]
        elif isinstance(container, list) and isinstance(part, int):
            if not 0 <= part < len(container):
                return False
            data = container[part]
        else:
            return False
    return True


def _related(entries: Any, run: RunIndex) -> Iterator[Location]:
    if not isinstance(entries, list):
        raise cel.CelError("`related` must evaluate to a list of maps")
    for entry in entries:
        if not isinstance(entry, dict):
            raise cel.CelError("`related` entries must be maps with file, document and path")
        target = run.find(str(entry.get("file")), entry.get("document"), entry.get("part", 0))
        if target is not None:
            path = parse_path(str(entry.get("path") or "kind"))
            yield target.location(path, entry.get("message"))
