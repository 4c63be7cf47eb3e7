"""The rule file format (``rules/*.yaml``), the same format organisations write rules in."""

from typing import Annotated, Any, Literal

from linter.declared import CamelRecord, Field, StringConstraints, empty_list

RULE_ID = r"^[A-Z][A-Z0-9]*[0-9]{3}$"
RULE_NAME = r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$"
#: A finding property's name: camelCase, as JSON reports spell keys.
PROPERTY_NAME = r"^[a-z][A-Za-z0-9]*$"


class OptionSpec(CamelRecord):
    """A threshold or setting the organisation can change in config."""

    type: Literal["integer", "number", "string", "boolean", "list"]
    default: Any
    description: str = Field(min_length=1)


class Scope(CamelRecord):
    """Cheap structured filters applied before any CEL runs."""

    kinds: list[str] = Field(default_factory=lambda: ["Workload"], min_length=1)
    profiles: list[str] = Field(default_factory=empty_list, description="Empty: every profile.")


class Check(CamelRecord):
    """One way to violate the rule: a condition, where it points, and what it says."""

    violation: str = Field(
        min_length=1, description="CEL; true means the document violates the rule."
    )
    path: str = Field(
        min_length=1,
        description="Manifest path the finding points at, e.g. "
        "`spec.endpoints[{index}].region | spec`: alternatives separated by |, "
        "placeholders are CEL.",
    )
    message: str = Field(
        min_length=1,
        description="What is wrong, with the numbers: a template of {cel-expression} or "
        "{cel-expression:format} placeholders that read values (variables hold the choices).",
    )
    fix: str | None = Field(
        None,
        min_length=1,
        description="What to do about it (a template like message), shown after the message.",
    )
    severity: Literal["error", "warning", "note"] | None = Field(
        None, description="This check's severity when it differs from the rule's."
    )
    related: str | None = Field(
        None,
        description="CEL yielding a list of {file, document, path, message} maps: other places "
        "involved (shown as SARIF related locations).",
    )
    properties: dict[Annotated[str, StringConstraints(pattern=PROPERTY_NAME)], str] = Field(
        default_factory=dict,
        description="Figures a finding carries for scripts (JSON `properties`, SARIF result "
        "properties): name -> a template like message; one plain placeholder keeps the value's "
        "type (a number stays a number).",
    )


class Docs(CamelRecord):
    what_it_does: str = Field(min_length=1)
    why_is_this_bad: str = Field(min_length=1)
    example: str = Field(min_length=1)
    use_instead: str = Field(min_length=1)
    references: list[str] = Field(default_factory=empty_list)


class RuleFile(CamelRecord):
    """One rule. ``engine: true`` rules are reported by the engine itself (input problems)."""

    id: str = Field(pattern=RULE_ID)
    name: str = Field(pattern=RULE_NAME)
    severity: Literal["error", "warning", "note"]
    tags: list[str] = Field(default_factory=empty_list, max_length=10)
    summary: str = Field(min_length=1)
    principle: int | None = Field(
        None, ge=1, le=10, description="The guidance principle it enforces."
    )
    security: bool = Field(
        False, description="Security/privacy relevant (gets a SARIF security-severity)."
    )
    engine: bool = False
    scope: Scope = Field(default_factory=Scope)
    applies: str | None = Field(None, description="CEL; the rule is skipped where false.")
    each: str | None = Field(
        None, description="CEL list; checks run once per element, bound to `item` and `index`."
    )
    variables: dict[str, str] = Field(
        default_factory=dict,
        description="Named CEL sub-expressions, evaluated in order before the checks and read as "
        "`variables.<name>` (each may use the ones before it).",
    )
    checks: list[Check] = Field(default_factory=empty_list)
    options: dict[str, OptionSpec] = Field(default_factory=dict)
    docs: Docs
