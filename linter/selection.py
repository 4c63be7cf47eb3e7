"""Which rules run, at which severity and with which options: config plus --select/--ignore."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from linter.config import LoadedConfig
from linter.findings import Severity
from linter.policy.loader import Rulebook
from linter.policy.rule_file import RuleFile


@dataclass(frozen=True)
class RuleSettings:
    """A rule as configured for this run. ``severity`` is the config's override, if any (see
    :func:`resolve_severity`)."""

    severity: Severity | None = None
    options: Mapping[str, Any] = field(default_factory=dict)


_OPTION_TYPES: dict[str, tuple[type, ...]] = {
    "integer": (int,),
    "number": (int, float),
    "string": (str,),
    "boolean": (bool,),
    "list": (list,),
}


def _matches(rule_id: str, patterns: Sequence[str]) -> bool:
    return any(
        rule_id.startswith(pattern.strip().upper()) for pattern in patterns if pattern.strip()
    )


def resolve_severity(
    rule: RuleFile, check_severity: Severity | None, settings: RuleSettings
) -> Severity:
    """The one place a finding's severity is decided: configuration wins over the check's own
    severity, which wins over the rule's default."""
    return settings.severity or check_severity or Severity(rule.severity)


@dataclass(frozen=True)
class Selection:
    """``select`` and ``ignore`` are rule ids or prefixes (``GL2`` selects every GL2xx rule)."""

    config: LoadedConfig
    select: Sequence[str] = ()
    ignore: Sequence[str] = ()

    def settings(self, rulebook: Rulebook) -> dict[str, RuleSettings]:
        """The enabled rules and their settings; raises ConfigError on unknown ids or options."""
        config = self.config.config
        for rule_id in config.rules:
            if rule_id not in rulebook.by_id:
                raise self.config.error(("rules", rule_id), f"unknown rule id {rule_id!r}")
        select = list(self.select) or list(config.select)
        ignore = [*config.ignore, *self.ignore]
        out: dict[str, RuleSettings] = {}
        for rule in rulebook:
            rule_config = config.rules.get(rule.id)
            if select and not _matches(rule.id, select):
                continue
            if _matches(rule.id, ignore) or (
                rule_config is not None and rule_config.enabled is False
            ):
                continue
            severity = (
                Severity(rule_config.severity) if rule_config and rule_config.severity else None
            )
            options = self._options(rule.id, rulebook, rule_config.options if rule_config else {})
            out[rule.id] = RuleSettings(severity, options)
        return out

    def _options(self, rule_id: str, rulebook: Rulebook, given: dict[str, Any]) -> dict[str, Any]:
        declared = rulebook.by_id[rule_id].meta.options
        options = {name: spec.default for name, spec in declared.items()}
        for name, value in given.items():
            spec = declared.get(name)
            where = ("rules", rule_id, "options", name)
            if spec is None:
                known = ", ".join(sorted(declared)) or "none"
                raise self.config.error(
                    where, f"rule {rule_id} has no option {name!r} (options: {known})"
                )
            allowed = _OPTION_TYPES[spec.type]
            if not isinstance(value, allowed) or (
                spec.type != "boolean" and isinstance(value, bool)
            ):
                raise self.config.error(
                    where, f"option {name!r} of {rule_id} must be a {spec.type}"
                )
            options[name] = value
        return options
