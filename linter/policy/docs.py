"""A rule's documentation in its fixed sections, as Markdown (docs/rules, SARIF help, explain)."""

from __future__ import annotations

from linter.policy.rule_file import RuleFile

SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Options", "References")

DOCS_BASE_URL = "https://github.com/gpulint/gpulint/blob/main/docs/rules/"


def help_uri(rule: RuleFile) -> str:
    return f"{DOCS_BASE_URL}{rule.id}.md"


def options_markdown(rule: RuleFile) -> str:
    if not rule.options:
        return "None."
    return "\n".join(
        f"- `{name}` ({spec.type}, default `{spec.default!r}`): {spec.description}".replace("'", "")
        for name, spec in rule.options.items()
    )


def markdown(rule: RuleFile) -> str:
    """The rule page: title, summary, and every section in order."""
    docs = rule.docs
    meta = f"Severity: `{rule.severity}`" + (
        f" · Tags: {', '.join(rule.tags)}" if rule.tags else ""
    )
    references = "\n".join(f"- {ref}" for ref in docs.references) or "None."
    body = {
        "What it does": docs.what_it_does.strip(),
        "Why is this bad?": docs.why_is_this_bad.strip(),
        "Example": f"```yaml\n{docs.example.rstrip()}\n```",
        "Use instead": f"```yaml\n{docs.use_instead.rstrip()}\n```",
        "Options": options_markdown(rule),
        "References": references,
    }
    parts = [f"# {rule.id} {rule.name}", "", rule.summary + ".", "", meta, ""]
    for section in SECTIONS:
        parts += [f"## {section}", "", body[section], ""]
    return "\n".join(parts)
