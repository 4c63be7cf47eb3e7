"""The rule engine on organisation rules: errors at run time, `each`, path alternatives, related."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli

RULE = """\
id: ACME{number}
name: {name}
severity: warning
summary: test rule
scope: {{kinds: [Workload]}}
{extra}
checks:
  - violation: '{violation}'
    path: '{path}'
    message: '{message}'
docs:
  whatItDoes: x
  whyIsThisBad: x
  example: "x: 1"
  useInstead: "x: 1"
"""

JOB = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata:
  name: chat
spec:
  profile: inference
  endpoints:
    - provider: bedrock
      region: eu-central-1
    - provider: vertex-ai
      region: us-central1
"""


def run(tmp_path: Path, **fields: str) -> list[tuple[str, int, int, str]]:
    rules = tmp_path / "rules"
    rules.mkdir(exist_ok=True)
    values = {"number": "100", "name": "test-rule", "extra": "", "path": "spec", "message": "m"}
    values.update(fields)
    (rules / "ACME100.yaml").write_text(RULE.format(**values))
    job = tmp_path / "job.yaml"
    job.write_text(JOB)
    result = run_cli(
        "check", "--select", "ACME,GL006", "--format", "json", "--rules-dir", str(rules), str(job)
    )
    assert result.err == ""
    return [
        (f["ruleId"], f["line"], f["column"], f["message"])
        for f in json.loads(result.out)["findings"]
    ]


def test_runtime_error_is_gl006_and_the_run_goes_on(tmp_path: Path) -> None:
    found = run(tmp_path, violation='workload.spec.owner == "x"')
    assert found == [
        (
            "GL006",
            2,
            1,
            "rule ACME100 (test-rule) could not be evaluated here: no such field: workload.spec.owner",
        )
    ]


def test_non_boolean_condition_is_gl006(tmp_path: Path) -> None:
    (finding,) = run(tmp_path, violation="size(workload.spec.endpoints)")
    assert finding[0] == "GL006"
    assert finding[3].endswith("`violation` must be true or false, got 2")


def test_each_binds_item_and_index_and_paths_use_it(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        extra="each: workload.spec.endpoints",
        violation='item.region.startsWith("us-")',
        path="spec.endpoints[{index}].region",
        message="endpoint {index} ({item.provider}) is in {item.region}",
    )
    assert found == [("ACME100", 11, 7, "endpoint 1 (vertex-ai) is in us-central1")]


def test_path_alternatives_pick_the_first_present(tmp_path: Path) -> None:
    found = run(tmp_path, violation="true", path="spec.lifecycle | spec.endpoints[1] | spec")
    assert found == [("ACME100", 10, 7, "m")]


def test_message_format_specs(tmp_path: Path) -> None:
    found = run(
        tmp_path, violation="true", message="{2.0/3.0:.3f} {1.5} {[1, 2]} {[]} {null} {{literal}}"
    )
    assert found == [("ACME100", 5, 1, "0.667 1.5 1, 2 none unset {literal}")]
