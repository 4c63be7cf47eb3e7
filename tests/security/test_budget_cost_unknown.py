"""A budget that counts an unknown cost as zero.

A budget sums the monthly cost of the workloads it covers. A workload whose cost is not known
(its hours a month not declared, or an instance type the price catalogue does not list) counted
for nothing: a fine-tuning job on eight A100s for an unknown number of hours passed a $1,000
budget, and GL212 said nothing, because the budget was within its limit without it. Now an
unknown cost in a budget is a finding of its own on that workload, GL213: the budget cannot be
checked.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli
from hostile_repository import repository

BUDGET = "budgets:\n  - name: team-a\n    paths: ['deploy/*']\n    monthly: 1000\n"
PRICED = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata: {name: search}
spec:
  profile: inference
  resources: {provider: aws, region: us-east-1, instanceType: g5.xlarge}
"""
NO_HOURS = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata: {name: tune}
spec:
  profile: fine-tuning
  resources: {provider: aws, region: us-east-1, instanceType: p4d.24xlarge}
"""
KUBERNETES_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: tune
  annotations: {gpulint.dev/provider: aws, gpulint.dev/region: us-east-1, gpulint.dev/instance-type: p4d.24xlarge}
spec:
  template:
    spec:
      containers:
        - name: train
          image: pytorch/pytorch
          command: ["torchrun", "--nproc_per_node", "8", "train.py"]
          resources: {limits: {nvidia.com/gpu: 8}}
"""
UNLISTED = PRICED.replace("search", "chat").replace("g5.xlarge", "g9.unlisted")
CASES = {
    "hours-unknown": (NO_HOURS, 3, "its hours a month are unknown: a job with neither"),
    "kubernetes-job-without-a-deadline": (KUBERNETES_JOB, 4, "its hours a month are unknown"),
    "no-price": (UNLISTED, 3, "the catalogue has no price for g9.unlisted (aws)"),
}


@pytest.mark.parametrize(("text", "line", "why"), CASES.values(), ids=CASES.keys())
def test_an_unknown_cost_in_a_budget_is_a_finding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, line: int, why: str
) -> None:
    root = repository(tmp_path)
    (root / ".gpulint.yaml").write_text(BUDGET)
    (root / "deploy").mkdir()
    (root / "deploy" / "search.yaml").write_text(PRICED)
    (root / "deploy" / "other.yaml").write_text(text)
    monkeypatch.chdir(root)
    result = run_cli("check", "--select", "GL212,GL213", "--format", "json", "deploy")
    (finding,) = json.loads(result.out)["findings"]
    assert (finding["ruleId"], finding["file"], finding["line"]) == (
        "GL213",
        "deploy/other.yaml",
        line,
    )
    assert finding["message"].startswith(
        "budget team-a (path deploy/*) cannot be checked: the monthly cost of this workload is "
        f"not known ({why}"
    )
    assert finding["message"].endswith(
        "; it sums only its priced workloads ($734.38 a month, against its $1,000.00 limit)"
    )
    assert result.code == 1


def test_a_workload_outside_every_budget_needs_no_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repository(tmp_path)
    (root / ".gpulint.yaml").write_text(BUDGET)
    (root / "other").mkdir()
    (root / "other" / "tune.yaml").write_text(NO_HOURS)
    monkeypatch.chdir(root)
    result = run_cli("check", "--select", "GL212,GL213", "other")
    assert (result.code, result.out) == (0, "No problems found in 1 file.\n")
