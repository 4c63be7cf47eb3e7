"""Which rules run, at which severity and with which options: config plus --select/--ignore.

``select`` and ``ignore`` entries are rule ids or prefixes, compared case-sensitively after
surrounding whitespace is stripped. A prefix is a whole namespace (the letters before a rule's
number: ``GL``, ``ACME``) optionally followed by digits (``GL2``, ``GL20``). An entry that names no
loaded rule this way (``g``, ``G``, ``GL999``) is an error: a typo must not switch rules off, or
leave them on, without a word.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import Any

from linter.config import ConfigError, LoadedConfig
from linter.findings import Severity
from linter.policy.loader import Rulebook
from linter.policy.rule_file import RuleFile
from linter.records import datarecord


@datarecord
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
    return any(rule_id.startswith(pattern.strip()) for pattern in patterns if pattern.strip())


def _names_a_rule(entry: str, rulebook: Rulebook) -> bool:
    """``entry`` is a loaded rule's id, or a prefix of one at least as long as its namespace."""
    entry = entry.strip()
    return any(
        rule_id.startswith(entry) and len(entry) >= len(rule_id.rstrip("0123456789"))
        for rule_id in rulebook.by_id
    )


def resolve_severity(
    rule: RuleFile, check_severity: Severity | None, settings: RuleSettings
) -> Severity:
    """The one place a finding's severity is decided: configuration wins over the check's own
    severity, which wins over the rule's default."""
    return settings.severity or check_severity or Severity(rule.severity)


_ENTRY_HELP = (
    "matches no rule id or prefix (ids are upper case, e.g. GL202; a prefix is a whole "
    "namespace, optionally with digits: GL, GL2)"
)


@datarecord
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
        for key, entries in (("select", config.select), ("ignore", config.ignore)):
            for index, entry in enumerate(entries):
                if not _names_a_rule(entry, rulebook):
                    raise self.config.error((key, index), f"{key}: {entry!r} {_ENTRY_HELP}")
        for option, given in (("--select", self.select), ("--ignore", self.ignore)):
            for entry in given:
                if not _names_a_rule(entry, rulebook):
                    raise ConfigError(f"{option} {entry!r} {_ENTRY_HELP}")
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

    def severities_by_config(self, rulebook: Rulebook) -> list[str]:
        """The rules whose severity the configuration file changed, as ``GL101 from error to
        warning``, for the run summary: a repository that lowers a rule says so where it runs."""
        rules = self.config.config.rules
        return [
            f"{rule.id} from {rule.meta.severity} to {rules[rule.id].severity}"
            for rule in rulebook
            if rule.id in rules
            and rules[rule.id].severity not in (None, rule.meta.severity)
            and rules[rule.id].enabled is not False
        ]

    def disabled_by_config(self, rulebook: Rulebook) -> list[str]:
        """Ids of the rules the configuration file turned off (its ``select`` where the command
        line gives none, ``ignore``, ``enabled: false``), for the run summary."""
        config = self.config.config
        select = [] if self.select else config.select
        return [
            rule.id
            for rule in rulebook
            if (select and not _matches(rule.id, select))
            or _matches(rule.id, config.ignore)
            or (rule.id in config.rules and config.rules[rule.id].enabled is False)
        ]

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
