"""Lines of CEL per built-in rule at two revisions, as a Markdown table (issue 10's report).

    python scripts/cel_lines.py [BEFORE [AFTER]]     # default: 12dad8c HEAD

A rule's CEL is its conditions (``applies``, ``each``, ``variables``, each check's
``violation``) and every message or fix placeholder that is more than a lookup (a path, with or
without a format spec); each expression is counted in lines of 96 columns. Reads the rule files
with ``git show``; writes nothing.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import textwrap
from typing import Any

from ruamel.yaml import YAML

from linter.policy.template import placeholders

WIDTH = 96
LOOKUP = re.compile(r"[A-Za-z_][\w.\[\]]*")


def _lines(text: Any) -> int:
    flat = " ".join(str(text).split()) if text else ""
    return len(textwrap.wrap(flat, WIDTH)) if flat else 0


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout


def measure(revision: str) -> dict[str, tuple[int, int]]:
    """Rule id -> (condition lines, placeholder-logic lines) at ``revision``."""
    out = {}
    for name in _git("ls-tree", "--name-only", f"{revision}:rules").split():
        if not name.endswith(".yaml"):
            continue
        rule = YAML(typ="safe", pure=True).load(_git("show", f"{revision}:rules/{name}"))
        checks = rule.get("checks") or []
        conditions = _lines(rule.get("applies")) + _lines(rule.get("each"))
        conditions += sum(_lines(value) for value in (rule.get("variables") or {}).values())
        conditions += sum(_lines(check.get("violation")) for check in checks)
        logic = [
            expression
            for check in checks
            for field in ("message", "fix")
            for expression, _ in placeholders(check.get(field) or "")
            if not LOOKUP.fullmatch(expression.split(":")[0].strip())
        ]
        out[rule["id"]] = (conditions, sum(_lines(expression) for expression in logic))
    return out


def _cell(value: tuple[int, int] | None) -> str:
    return "-" if value is None else f"{sum(value)} ({value[0]} + {value[1]})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", nargs="?", default="12dad8c")
    parser.add_argument("after", nargs="?", default="HEAD")
    args = parser.parse_args()
    before, after = measure(args.before), measure(args.after)
    print(f"| rule | {args.before}: conditions + placeholder logic | {args.after} |")
    print("|---|---:|---:|")
    for rule_id in sorted(before.keys() | after.keys()):
        print(f"| {rule_id} | {_cell(before.get(rule_id))} | {_cell(after.get(rule_id))} |")
    for label, table in ((args.before, before), (args.after, after)):
        longest = max(table, key=lambda rule_id: sum(table[rule_id]))
        total = sum(sum(value) for value in table.values())
        logic = sum(value[1] for value in table.values())
        print(
            f"\n{label}: {len(table)} rules, {total} lines of CEL ({logic} in placeholders), "
            f"longest {longest} with {sum(table[longest])}"
        )


if __name__ == "__main__":
    main()
