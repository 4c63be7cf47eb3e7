"""Attack 5: merge keys (``<<``) bypassed the node limit.

A merged mapping weighed one node however much it held, so a file of under 3 KB built from
merges of merges passed the 1,000,000-node limit and grew to gigabytes when serialised (the
cache key serialises the configuration; the parse cache serialises rule files).
"""

from __future__ import annotations

from pathlib import Path

from conftest import run_cli
from hostile_repository import SPOT_JOB

from linter.load import load_text

LIMIT_MESSAGE = (
    "the document expands to more than 1,000,000 nodes (alias expansion?); the rest of the "
    "file was not read"
)


def merge_bomb(indent: str = "") -> str:
    """Nine levels, each merging the previous level into a mapping of ten aliases of it: the
    last level holds 10**10 nodes; each level is a line or two of text."""
    lines = [f"{indent}l0: &l0 {{a: [x, x, x, x, x, x, x, x, x, x]}}"]
    for level in range(1, 10):
        aliases = ", ".join([f"*m{level}"] * 10)
        lines.append(f"{indent}m{level}: &m{level} {{<<: *l{level - 1}}}")
        lines.append(f"{indent}l{level}: &l{level} {{b{level}: [{aliases}]}}")
    return "\n".join(lines) + "\n"


def test_merged_mappings_count_toward_the_node_limit() -> None:
    text = merge_bomb()
    assert len(text) < 3000
    loaded = load_text(text)
    assert [(p.message, p.span.line) for p in loaded.problems] == [(LIMIT_MESSAGE, 11)]


def test_a_config_file_built_from_merges_is_refused(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(SPOT_JOB)
    config = tmp_path / "bomb.yaml"
    config.write_text("rules:\n  GL201:\n    options:\n" + merge_bomb("      "))
    result = run_cli("check", "--config", str(config), str(tmp_path / "job.yaml"))
    assert (result.code, result.err) == (2, f"gpulint: error: {config}:14:46: {LIMIT_MESSAGE}\n")


def test_a_rule_file_built_from_merges_is_refused(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(SPOT_JOB)
    rules = tmp_path / "policies"
    rules.mkdir()
    rule = rules / "ACME001.yaml"
    rule.write_text("id: ACME001\nbomb:\n" + merge_bomb("  "))
    result = run_cli("check", "--rules-dir", str(rules), str(tmp_path / "job.yaml"))
    assert (result.code, result.err) == (2, f"gpulint: error: {rule}:13:42: {LIMIT_MESSAGE}\n")
