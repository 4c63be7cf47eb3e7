"""A baseline that hides findings without a count.

``--baseline`` is often committed: a pull request can add entries to it. Findings it matched
were removed from the run without a trace: the text report said "No problems found", SARIF had
no result, and code scanning saw the alert vanish instead of being dismissed. Now the summary
says how many findings matched the baseline (text and JSON), and SARIF keeps each as a result
with ``suppressions: [{kind: external}]``, as GitHub code scanning expects.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from conftest import REPO, run_cli
from hostile_repository import SPOT_JOB, repository

SARIF_SCHEMA = json.loads((REPO / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())
OTHER_JOB = SPOT_JOB.replace("name: job", "name: other")


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """job.yaml's GL202 is in the baseline; other.yaml's is not."""
    root = repository(tmp_path)
    monkeypatch.chdir(root)
    (root / "job.yaml").write_text(SPOT_JOB)
    assert run_cli("check", "--write-baseline", "baseline.json", "job.yaml").code == 0
    (root / "other.yaml").write_text(OTHER_JOB)
    return root


def test_the_text_summary_counts_the_baselines_matches(work: Path) -> None:
    alone = run_cli("check", "--baseline", "baseline.json", "job.yaml")
    assert (alone.code, alone.out) == (0, "No problems found in 1 file (1 matched the baseline).\n")
    both = run_cli("check", "--baseline", "baseline.json", "job.yaml", "other.yaml")
    assert both.code == 1
    assert both.out.startswith("other.yaml:8:5: GL202 [error]")
    assert both.out.splitlines()[-1] == (
        "Found 1 error, 0 warnings and 0 notes in 2 files (1 matched the baseline)."
    )


def test_the_json_summary_counts_them(work: Path) -> None:
    result = run_cli("check", "--baseline", "baseline.json", "--format", "json", ".")
    report = json.loads(result.out)
    assert [(f["file"], f["ruleId"]) for f in report["findings"]] == [("other.yaml", "GL202")]
    assert (report["summary"]["baselined"], report["summary"]["suppressed"]) == (1, 0)


def test_sarif_keeps_them_as_externally_suppressed_results(work: Path) -> None:
    result = run_cli("check", "--baseline", "baseline.json", "--format", "sarif", ".")
    sarif = json.loads(result.out)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(sarif)
    results = sarif["runs"][0]["results"]
    shown = [
        (r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], r.get("suppressions"))
        for r in results
    ]
    assert shown == [
        ("other.yaml", None),
        ("job.yaml", [{"kind": "external", "justification": "in the baseline baseline.json"}]),
    ]
    assert all("primaryLocationLineHash" in r["partialFingerprints"] for r in results)


def test_annotations_and_the_exit_status_leave_them_out(work: Path) -> None:
    result = run_cli("check", "--baseline", "baseline.json", "--format", "github", "job.yaml")
    assert (result.code, result.out) == (
        0,
        "No problems found in 1 file (1 matched the baseline).\n",
    )
