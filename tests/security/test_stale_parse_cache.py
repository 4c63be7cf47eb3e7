"""A stale rule from the parse cache.

The parse cache was keyed by size and modification time: a same-size edit that kept the mtime
ran the stale rule. It is keyed by the hash of the parsed bytes now.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import run_cli
from hostile_repository import SPOT_JOB, cache_on

RULE = """\
id: ACME001
name: missing-team-label
severity: warning
summary: Workloads must say which team owns them
checks:
  - violation: '!("team" in workload.metadata.labels)'
    path: metadata
    message: 'workload {workload.metadata.name} has no team label'
docs: {whatItDoes: x, whyIsThisBad: x, example: x, useInstead: x}
"""


def test_a_same_size_edit_with_the_old_mtime_is_not_served_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache_on(monkeypatch, tmp_path)
    rules = tmp_path / "policies"
    rules.mkdir()
    rule = rules / "ACME001.yaml"
    rule.write_text(RULE)
    (tmp_path / "job.yaml").write_text(SPOT_JOB)
    args = ("check", "--select", "ACME", "--rules-dir", str(rules), str(tmp_path / "job.yaml"))
    assert "workload job has no team label" in run_cli(*args).out
    stamp = rule.stat()
    rule.write_text(RULE.replace("has no team label", "lacks a team tag!"))
    os.utime(rule, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert rule.stat().st_size == stamp.st_size
    assert rule.stat().st_mtime_ns == stamp.st_mtime_ns
    assert "workload job lacks a team tag!" in run_cli(*args).out
