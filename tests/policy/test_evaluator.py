"""The rule engine on organisation rules: errors at run time, `each`, path alternatives, related."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ORG_RULE, run_cli

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
    (rules / "ACME100.yaml").write_text(ORG_RULE.format(**values))
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
    found = run(tmp_path, violation='workload.spec.endpoints[5].region == "x"')
    assert [(rule, line, column) for rule, line, column, _ in found] == [("GL006", 2, 1)]
    assert found[0][3].startswith("rule ACME100 (test-rule) could not be evaluated here: ")


def test_a_typo_in_a_fact_path_is_refused_at_load(tmp_path: Path) -> None:
    """An error-level organisation rule reading a path that does not exist would never fire:
    it is refused with its position, not reported as a GL006 warning at run time."""
    rules = tmp_path / "rules"
    rules.mkdir()
    rule = rules / "ACME100.yaml"
    text = ORG_RULE.format(
        number="100",
        name="test-rule",
        extra="",
        violation="facts.memory.estimate.paramters > 70e9",
        path="spec",
        message="m",
    ).replace("severity: warning", "severity: error")
    rule.write_text(text)
    (tmp_path / "job.yaml").write_text(JOB)
    result = run_cli("check", "--rules-dir", str(rules), str(tmp_path / "job.yaml"))
    assert result.code == 2
    assert result.err == (f"gpulint: error: {rule}:8:30: facts.memory has no field 'estimate'\n")


def test_a_rule_failing_at_run_time_fails_closed_at_its_own_severity(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    text = ORG_RULE.format(
        number="100",
        name="test-rule",
        extra="",
        violation='workload.spec.endpoints[5].region == "x"',
        path="spec",
        message="m",
    ).replace("severity: warning", "severity: error")
    (rules / "ACME100.yaml").write_text(text)
    (tmp_path / "job.yaml").write_text(JOB)
    result = run_cli(
        "check", "--format", "json", "--rules-dir", str(rules), str(tmp_path / "job.yaml")
    )
    found = [(f["ruleId"], f["severity"]) for f in json.loads(result.out)["findings"]]
    assert ("GL006", "error") in found
    assert result.code == 1


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
