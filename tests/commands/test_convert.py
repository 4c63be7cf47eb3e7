"""``gpulint convert``: what gpulint understood, as gpulint.dev/v1alpha1 YAML with origins."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from conftest import REPO, run_cli

EXAMPLES = REPO / "examples"


def _rule_ids(*paths: str) -> Counter[str]:
    result = run_cli("check", "--format", "json", "--fail-on", "never", *paths)
    return Counter(f["ruleId"] for f in json.loads(result.out)["findings"])


def test_converted_examples_give_the_same_rule_ids(tmp_path: Path) -> None:
    """Linted natively, the conversion of every example (one stream, so findings across files
    still meet) reports the same rules as the originals."""
    result = run_cli("convert", str(EXAMPLES))
    assert (result.code, result.err) == (0, "")
    converted = tmp_path / "converted.yaml"
    converted.write_text(result.out)
    assert _rule_ids(str(converted)) == _rule_ids(str(EXAMPLES))


def test_each_value_names_its_origin(tmp_path: Path) -> None:
    manifest = tmp_path / "job.yaml"
    manifest.write_text(
        "apiVersion: gpulint.dev/v1alpha1\nkind: Workload\nmetadata:\n  name: job\n"
        "spec:\n  profile: training\n  resources:\n    accelerator: {type: L4, count: 2}\n"
    )
    result = run_cli("convert", str(manifest))
    assert result.out.splitlines()[1:] == [
        "apiVersion: gpulint.dev/v1alpha1",
        "kind: Workload",
        "metadata:",
        f"  name: job  # {manifest}:4",
        "spec:",
        f"  profile: training  # {manifest}:6",
        "  resources:",
        "    accelerator:",
        f"      type: L4  # {manifest}:8",
        f"      count: 2  # {manifest}:8",
    ]


def test_documents_that_do_not_validate_are_reported_not_converted(tmp_path: Path) -> None:
    manifest = tmp_path / "bad.yaml"
    manifest.write_text(
        "apiVersion: gpulint.dev/v1alpha1\nkind: Workload\nmetadata:\n  name: job\n"
        "spec:\n  profile: serving\n"
    )
    result = run_cli("convert", str(manifest))
    assert result.code == 1
    assert result.out == ""
    assert result.err.startswith(f"gpulint: {manifest}:6:3: GL001 spec.profile: Input should be")
