"""Generate the rule reference in docs/rules/ from rules/ (one page per rule plus an index).

Run ``python -m linter.policy.reference`` after editing a rule; a test fails while docs/rules is
stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

from linter.bundled import bundled
from linter.policy.docs import markdown
from linter.policy.loader import load_rulebook

AREAS = (
    ("GL0", "Input and engine"),
    ("GL1", "Memory"),
    ("GL2", "Capacity and cost"),
    ("GL3", "Quota and availability"),
    ("GL4", "Data protection and acceptable use"),
)


def pages() -> dict[str, str]:
    """File name -> content for every page of the reference."""
    rules = list(load_rulebook([bundled("rules")]))
    out = {f"{rule.id}.md": markdown(rule.meta) for rule in rules}
    index = [
        "# gpulint rules",
        "",
        "Generated from `rules/` by `python -m linter.policy.reference`.",
        "",
    ]
    for prefix, title in AREAS:
        members = [rule for rule in rules if rule.id.startswith(prefix)]
        if members:
            index += [f"## {title}", "", "| id | name | severity | summary |", "|---|---|---|---|"]
            index += [
                f"| [{r.id}]({r.id}.md) | {r.meta.name} | {r.meta.severity} | {r.meta.summary} |"
                for r in members
            ]
            index.append("")
    out["README.md"] = "\n".join(index)
    return out


def main(argv: list[str]) -> int:
    target = Path(argv[0]) if argv else Path(__file__).resolve().parents[2] / "docs" / "rules"
    target.mkdir(parents=True, exist_ok=True)
    for stale in target.glob("*.md"):
        stale.unlink()
    for name, content in pages().items():
        (target / name).write_text(content, encoding="utf-8")
    print(f"wrote {len(pages())} pages to {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
