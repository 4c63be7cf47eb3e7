"""Run compiled rules over validated manifests and their facts.

Rules that read only a workload's own facts run while its file is read (pass 1, on the
manifest); rules that read a run-wide fact (``facts.pool``, ``facts.quota``) run once every
file has been read (pass 2, on the manifest's :class:`~linter.deferred.Deferred` part). Both
go through :class:`Evaluator`, which sees a :class:`Target`: where a finding can point, and what
configuration assumed of it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from linter import cel
from linter.facts import PROVIDERS, RUN_WIDE, Facts
from linter.findings import Finding, Location, Severity
from linter.formats.manifest import Manifest
from linter.load.positions import Path as ManifestPath
from linter.load.positions import format_path, parse_path
from linter.policy.budget import CostModel, document_sizes, over_budget
from linter.policy.flatten import MISSING, SEPARATOR, kind_variable, resolve
from linter.policy.loader import CompiledCheck, CompiledRule
from linter.selection import RuleSettings, resolve_severity

EVALUATION_RULE = "GL006"
Rules = Sequence[tuple[CompiledRule, RuleSettings]]


class Target(Protocol):
    """What a rule is evaluated on, as findings need it."""

    @property
    def file(self) -> str: ...

    @property
    def index(self) -> int: ...

    @property
    def kind(self) -> str: ...

    def location(self, path: ManifestPath, message: str | None = None) -> Location: ...

    def present(self, path: ManifestPath) -> bool: ...

    def assumed(self) -> Sequence[tuple[ManifestPath, str]]: ...


#: The target at (file, document, part), for related locations; None when not in the run.
Find = Callable[[str, int, int], Target | None]


def is_run_wide(rule: CompiledRule) -> bool:
    """Whether a rule reads a run-wide fact, so it runs once every file has been read."""
    return bool(rule.fact_providers & RUN_WIDE)


class Evaluator:
    """Enabled rules ready to run: grouped by kind, with the names each kind's rules read and
    each rule's cost budget (options filled in) computed once per run."""

    def __init__(self, rules: Rules) -> None:
        self.by_kind: dict[str, list[tuple[CompiledRule, RuleSettings]]] = {}
        for rule, settings in rules:
            if not rule.meta.engine:
                for kind in rule.meta.scope.kinds:
                    self.by_kind.setdefault(kind, []).append((rule, settings))
        self.names = {
            kind: frozenset(name for rule, _ in applicable for name in rule.reads)
            for kind, applicable in self.by_kind.items()
        }
        self.budgets = {rule.id: _budget(rule, settings) for rule, settings in rules}

    def __bool__(self) -> bool:
        return bool(self.by_kind)

    def evaluate(
        self,
        target: Target,
        activation: Mapping[str, Any],
        profile: str | None,
        find: Find,
    ) -> Iterator[Finding]:
        """Findings of the rules for the target's kind. ``activation`` holds the variables
        (``document``, the kind's name, ``facts``), nested, or already flattened names."""
        applicable = self.by_kind.get(target.kind)
        if not applicable:
            return
        # Rule expressions are flattened (linter.policy.flatten) so that each reads only the
        # values at the paths it names; the context holds exactly those names. What changes
        # from rule to rule (options) or item to item (item, index) is served by a resolver:
        # adding a variable would make the backend convert the whole context again.
        prepared = {}
        for name in self.names[target.kind]:
            value = activation[name] if name in activation else resolve(activation, name)
            if isinstance(value, Facts):  # a rule reading all of ``facts`` at once
                value = dict(value)
            if value is not MISSING:
                prepared[name] = value
        context = cel.new_context(prepared)
        varying: dict[str, Any] = {}
        context.set_variable_resolver(varying.get)
        size_of = document_sizes(nested(activation))
        for rule, settings in applicable:
            profiles = rule.meta.scope.profiles
            if profiles and profile not in profiles:
                continue
            varying.clear()
            varying["options"] = settings.options
            try:
                refused = over_budget(self.budgets[rule.id], size_of)
                if refused:
                    raise cel.CelError(f"not run: {refused}")
                yield from _evaluate_rule(rule, target, context, varying, find, activation)
            except cel.CelError as err:
                # Fail closed: a policy that cannot be checked (or would cost too much to check
                # on this document) is reported at the policy's own severity, so an error-level
                # rule still fails the run.
                yield Finding(
                    EVALUATION_RULE,
                    resolve_severity(rule.meta, None, settings),
                    f"rule {rule.id} ({rule.meta.name}) could not be evaluated here: "
                    f"{explain(err)}",
                    target.location(("kind",)),
                )


def nested(activation: Mapping[str, Any]) -> Mapping[str, Any]:
    """Flattened names (``workload__spec__profile``) back into nested mappings, for sizes."""
    if not any(SEPARATOR in name for name in activation):
        return activation
    out: dict[str, Any] = {}
    for name, value in activation.items():
        parts = name.split(SEPARATOR)
        node = out
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return out


_UNDEFINED = re.compile(r"Undefined variable or function: '(\w+)'")


def explain(error: cel.CelError) -> str:
    """The backend's message in manifest terms: a flattened name that is not defined is a path
    the document does not have."""
    message = str(error)
    match = _UNDEFINED.search(message)
    if match and SEPARATOR in match.group(1):
        return f"no such field: {match.group(1).replace(SEPARATOR, '.')}"
    return message


def activation(
    manifest: Manifest, default_residency: Sequence[str] = (), run: Any = None
) -> dict[str, Any]:
    """The variables a rule sees: the document under its kind's name and as ``document``, and
    ``facts``. Built once per manifest and shared by every rule."""
    document = manifest.model.model_dump(mode="json", by_alias=True)
    return {
        "document": document,
        kind_variable(manifest.kind): document,
        "facts": Facts(manifest, run, default_residency),
    }


def profile_of(manifest: Manifest) -> str | None:
    spec = manifest.data.get("spec")
    return spec.get("profile") if isinstance(spec, dict) else None


def _budget(rule: CompiledRule, settings: RuleSettings) -> CostModel:
    """What evaluating a rule may cost, with its options' sizes filled in: checked on each
    document before anything runs (the CEL backend has no budget of its own)."""
    once, per_item = rule.costs
    options = document_sizes({"options": dict(settings.options)})
    return (once + per_item).specialise("options", options)


def _evaluate_rule(
    rule: CompiledRule,
    target: Target,
    context: Any,
    varying: dict[str, Any],
    find: Find,
    activation: Mapping[str, Any],
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
                {**nested(activation), "variables": values, "options": varying["options"]}
            )
            refused = over_budget(rule.costs[1], sizes)
            if refused:
                raise cel.CelError(f"not run: {refused}")
        for check in rule.checks:
            if _truth(check.violation, context, "violation"):
                yield _finding(rule, check, target, context, find)


def _truth(program: Any, context: Any, what: str) -> bool:
    value = cel.evaluate(program, context)
    if not isinstance(value, bool):
        raise cel.CelError(f"`{what}` must be true or false, got {value!r}")
    return value


def _finding(
    rule: CompiledRule,
    check: CompiledCheck,
    target: Target,
    context: Any,
    find: Find,
) -> Finding:
    path = pick_path(target, check.path.render(context))
    related: tuple[Location, ...] = ()
    if check.related is not None:
        related = tuple(_related(cel.evaluate(check.related, context), find))
    message = check.message.render(context)
    assumed = relied_assumptions(rule, target)
    if assumed:
        message = f"{message} ({assumed})"
    return Finding(
        rule.id,
        Severity(check.severity) if check.severity else None,
        message,
        target.location(path),
        related,
        fix=check.fix.render(context) if check.fix else None,
    )


def relied_assumptions(rule: CompiledRule, target: Target) -> str | None:
    """The configuration's assumptions a finding of ``rule`` relies on, named for its message:
    those at a document path the rule reads, or read by a fact provider the rule reads."""
    notes = []
    for path, note in target.assumed():
        dotted = format_path(path)
        direct = any(_overlap(path, read) for read in rule.document_paths)
        via_fact = any(
            dotted.startswith(prefix) or prefix.startswith(dotted)
            for provider in rule.fact_providers
            for prefix in PROVIDERS[provider].reads
        )
        if direct or via_fact:
            notes.append(f"{dotted.removeprefix('spec.')} {note}")
    return "; ".join(notes) or None


def _overlap(a: ManifestPath, b: tuple[str, ...]) -> bool:
    shorter = min(len(a), len(b))
    return a[:shorter] == b[:shorter]


def pick_path(target: Target, spec: str) -> ManifestPath:
    """``spec.lifecycle | spec.resources``: the first alternative present in the normalised
    document, else the first one (which then resolves to its nearest present ancestor)."""
    alternatives = [parse_path(part.strip()) for part in spec.split("|")]
    for path in alternatives:
        if target.present(path):
            return path
    return alternatives[0]


def _related(entries: Any, find: Find) -> Iterator[Location]:
    if not isinstance(entries, list):
        raise cel.CelError("`related` must evaluate to a list of maps")
    for entry in entries:
        if not isinstance(entry, dict):
            raise cel.CelError("`related` entries must be maps with file, document and path")
        document, part = entry.get("document"), entry.get("part", 0)
        if not isinstance(document, int) or not isinstance(part, int):
            continue
        target = find(str(entry.get("file")), document, part)
        if target is not None:
            path = parse_path(str(entry.get("path") or "kind"))
            yield target.location(path, entry.get("message"))
