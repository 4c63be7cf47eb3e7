"""Attack 4: the CEL budget was a regular expression over the rule's text.

A ``//`` comment between ``.map`` and ``(``, or a raw string ending in a backslash, hid nesting
from it, and even the nesting it allowed ran for minutes and gigabytes over manifest data (1,000
labels). Nesting is now counted on the parsed expression, and before a rule runs on a document
its cost is bounded with the sizes of that document's values: a rule over the budget is not run
and fails closed (GL006 at the rule's own severity). Each case runs in a child process with a
timeout, so a regression fails instead of hanging the suite.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile_repository import repository, run_child

RULE = """\
id: ACME400
name: budget-probe
severity: error
summary: probe
scope: {{kinds: [Workload]}}
checks:
  - violation: |-
{violation}
    path: metadata
    message: m
    fix: f
docs: {{whatItDoes: x, whyIsThisBad: x, example: "x: 1", useInstead: "x: 1"}}
"""

LABELLED = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata:
  name: labelled
  labels:
{labels}
spec:
  profile: dev
"""


def _repository(tmp_path: Path, violation: str, labels: int = 2) -> Path:
    repo = repository(tmp_path)
    (repo / "rules").mkdir()
    indented = "\n".join("      " + line for line in violation.splitlines())
    (repo / "rules" / "ACME400.yaml").write_text(RULE.format(violation=indented))
    rows = "\n".join(f"    l{n}: v{n}" for n in range(labels))
    (repo / "job.yaml").write_text(LABELLED.format(labels=rows))
    return repo


@pytest.mark.parametrize(
    "violation",
    [
        # four nested comprehensions, one hidden from a text scan by a comment before "("
        "[1].map(a, [1].map // c\n (b, [1].map(c, [1].map(d, d)))).size() > 0",
        # a raw string ending in a backslash used to swallow the rest of the expression
        "r'\\' == '' || [1].map(a, [1].map(b, [1].map(c, [1].map(d, d)))).size() > 0",
    ],
    ids=["comment", "raw-string"],
)
def test_hidden_nesting_is_refused_at_load(tmp_path: Path, violation: str) -> None:
    repo = _repository(tmp_path, violation)
    proc = run_child(["check", "--rules-dir", "rules", "job.yaml"], repo, timeout=60)
    assert proc is not None, "the run did not finish"
    assert proc.returncode == 2
    assert proc.stderr.startswith("gpulint: error: rules/ACME400.yaml:7:")
    assert "comprehensions" in proc.stderr and "nested more than 3 deep" in proc.stderr


def test_allowed_nesting_over_many_labels_fails_closed_without_running(tmp_path: Path) -> None:
    violation = (
        "workload.metadata.labels.all(a, workload.metadata.labels.all(b, "
        'workload.metadata.labels.all(c, a + b + c != "")))'
    )
    repo = _repository(tmp_path, violation, labels=1000)
    proc = run_child(
        ["check", "--rules-dir", "rules", "--select", "ACME,GL006", "--format", "json", "job.yaml"],
        repo,
        timeout=60,
    )
    assert proc is not None, "the rule ran instead of being refused"
    assert proc.returncode == 1
    (finding,) = json.loads(proc.stdout)["findings"]
    assert (finding["ruleId"], finding["severity"], finding["line"]) == ("GL006", "error", 2)
    assert finding["message"].startswith(
        "rule ACME400 (budget-probe) could not be evaluated here: not run: evaluating it could "
        "take "
    )
    assert finding["message"].endswith("steps on this document (limit 1,000,000)")


def test_the_same_rule_runs_on_a_small_document(tmp_path: Path) -> None:
    violation = (
        "workload.metadata.labels.all(a, workload.metadata.labels.all(b, "
        'workload.metadata.labels.all(c, a + b + c == "")))'
    )
    repo = _repository(tmp_path, violation, labels=3)
    proc = run_child(
        ["check", "--rules-dir", "rules", "--select", "ACME", "--format", "json", "job.yaml"],
        repo,
        timeout=60,
    )
    assert proc is not None
    assert [f["ruleId"] for f in json.loads(proc.stdout)["findings"]] == []
