"""``check --format junit`` and ``--format gitlab`` (issue 30): valid against the published
shapes (tests/data/junit.xsd, tests/data/gitlab-codequality.schema.json), with exact content."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import xmlschema
from conftest import REPO, run_cli

JUNIT = xmlschema.XMLSchema(str(REPO / "tests/data/junit.xsd"))
GITLAB = json.loads((REPO / "tests/data/gitlab-codequality.schema.json").read_text())
QUOTA = REPO / "examples/quota-repo/train-a.yaml"
_ELSEWHERE = """---
apiVersion: gpulint.dev/v1alpha1
kind: QuotaLedger
metadata:
  name: europe
spec:
  entries:
    - {provider: gcp, region: europe-west4, quota: NVIDIA_A100_GPUS, approved: 8}
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository root holding examples/quota-repo/train-a.yaml as jobs/train-a.yaml, with a
    QuotaLedger after it that covers another region only: two GL301 errors on line 19 (the
    repository keeps a ledger, so an uncovered quota is an error) and a GL203 note on line 20;
    run from the jobs/ folder."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "jobs").mkdir()
    (tmp_path / "jobs/train-a.yaml").write_text(QUOTA.read_text() + _ELSEWHERE)
    monkeypatch.chdir(tmp_path / "jobs")
    return tmp_path


def _gitlab(*args: str) -> list[dict[str, Any]]:
    result = run_cli("check", "--no-cache", "--format", "gitlab", *args)
    assert result.code == 1
    issues: list[dict[str, Any]] = json.loads(result.out)
    jsonschema.Draft7Validator(GITLAB).validate(issues)
    return issues


def test_gitlab_code_quality(repo: Path) -> None:
    issues = _gitlab("train-a.yaml")
    assert [
        (i["check_name"], i["severity"], i["location"]["path"], i["location"]["lines"]["begin"])
        for i in issues
    ] == [
        ("GL301 missing-accelerator-quota", "major", "jobs/train-a.yaml", 19),
        ("GL301 missing-accelerator-quota", "major", "jobs/train-a.yaml", 19),
        ("GL203 training-without-spot", "info", "jobs/train-a.yaml", 20),
    ]
    assert issues[2]["description"] == (
        "fine-tuning runs on on-demand capacity; spot is typically a fraction of the price (no "
        "spot price catalogued to compare). Fix: run on spot "
        "(spec.resources.capacity) with checkpointing and resume (GL202): a preemption then "
        "costs minutes, not the run"
    )
    fingerprints = [issue["fingerprint"] for issue in issues]
    assert len(set(fingerprints)) == 3  # two findings of one rule on one line stay two issues
    assert all(len(f) == 32 and int(f, 16) >= 0 for f in fingerprints)


def test_gitlab_fingerprints_survive_lines_added_above(repo: Path) -> None:
    before = [issue["fingerprint"] for issue in _gitlab("train-a.yaml")]
    manifest = repo / "jobs/train-a.yaml"
    manifest.write_text("# a comment added above\n\n" + manifest.read_text())
    after = _gitlab("train-a.yaml")
    assert [issue["location"]["lines"]["begin"] for issue in after] == [21, 21, 22]
    assert [issue["fingerprint"] for issue in after] == before


def test_gitlab_with_no_findings_is_an_empty_list(repo: Path) -> None:
    good = REPO / "examples/kubernetes/vllm-llama-3b.yaml"
    shutil.copy(good, repo / "jobs/good.yaml")
    result = run_cli("check", "--no-cache", "--format", "gitlab", "good.yaml")
    assert (result.code, result.out) == (0, "[]\n")


def test_junit(repo: Path) -> None:
    result = run_cli("check", "--no-cache", "--format", "junit", "train-a.yaml")
    assert result.code == 1
    JUNIT.validate(result.out)
    root = ElementTree.fromstring(result.out)
    assert (root.get("name"), root.get("tests"), root.get("failures"), root.get("errors")) == (
        "gpulint check",
        "3",
        "3",
        "0",
    )
    (suite,) = root
    assert (suite.get("name"), suite.get("tests"), suite.get("failures")) == (
        "train-a.yaml",
        "3",
        "3",
    )
    cases = [(case.get("classname"), case.get("name")) for case in suite]
    assert cases == [
        ("GL301", "GL301 missing-accelerator-quota (line 19)"),
        ("GL301", "GL301 missing-accelerator-quota (line 19)"),
        ("GL203", "GL203 training-without-spot (line 20)"),
    ]
    failure = suite[2].find("failure")
    assert failure is not None
    assert failure.text is not None and failure.text.startswith(
        "train-a.yaml:20: [note] fine-tuning runs on on-demand capacity"
    )


def test_junit_without_findings_is_one_passed_case(repo: Path) -> None:
    shutil.copy(REPO / "examples/kubernetes/vllm-llama-3b.yaml", repo / "jobs/good.yaml")
    result = run_cli("check", "--no-cache", "--format", "junit", "good.yaml")
    assert result.code == 0
    JUNIT.validate(result.out)
    root = ElementTree.fromstring(result.out)
    assert (root.get("tests"), root.get("failures")) == ("1", "0")
    (case,) = root.iter("testcase")
    assert (case.get("name"), list(case)) == ("gpulint check: no problems in 1 file", [])


def test_gpulint_test_junit_is_valid_too(tmp_path: Path) -> None:
    out = tmp_path / "report.xml"
    result = run_cli(
        "test", "--format", "junit", "--output", str(out), str(REPO / "examples/policies")
    )
    assert result.code == 0
    JUNIT.validate(str(out))
