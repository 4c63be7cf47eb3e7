"""A rule file from --rules-dir is data: its CEL cannot read files, reach the network or run code,
and its message templates cannot reach Python attributes.

Every hostile rule is either rejected when it is loaded (exit 2, one ``file:line:col:`` line on
stderr) or evaluates to a GL006 finding (or to its own finding, rendered safely); it never executes
anything and never hangs. Each run is a subprocess with a timeout, so a hang or a crash of the CEL
extension (a stack overflow in native code) fails the test instead of the test run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

TIMEOUT = 20.0
HANG_TIMEOUT = 10.0  # for the known hangs below: a normal run takes well under a second

RULE = """\
id: ACME100
name: hostile-rule
severity: warning
summary: a rule that tries things
scope: {{kinds: [Workload]}}
checks:
  - violation: {violation}
    path: spec
    message: {message}
docs:
  whatItDoes: x
  whyIsThisBad: x
  example: "x: 1"
  useInstead: "x: 1"
"""
VIOLATION_LINE, MESSAGE_LINE = 7, 9

JOB = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata:
  name: chat
spec:
  profile: inference
"""


class Run:
    def __init__(self, proc: subprocess.CompletedProcess[str] | None, rule: Path) -> None:
        self.proc, self.rule = proc, rule

    @property
    def findings(self) -> list[tuple[str, int, str]]:
        assert self.proc is not None
        return [
            (f["ruleId"], f["line"], f["message"]) for f in json.loads(self.proc.stdout)["findings"]
        ]


def lint_with_rule(
    tmp_path: Path, violation: str, message: str = "m", timeout: float = TIMEOUT
) -> Run:
    rules = tmp_path / "rules"
    rules.mkdir(exist_ok=True)
    rule = rules / "ACME100.yaml"
    rule.write_text(RULE.format(violation=json.dumps(violation), message=json.dumps(message)))
    (tmp_path / "job.yaml").write_text(JOB)
    env = {**os.environ, "GPULINT_NO_CACHE": "1", "PYTHONPATH": str(REPO)}
    try:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "linter",
                "check",
                "--select",
                "ACME,GL006",
                "--format",
                "json",
                "--rules-dir",
                str(rules),
                "job.yaml",
            ],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=tmp_path,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        proc = None
    return Run(proc, rule)


def assert_rejected_or_gl006(run: Run, *, allow_own_finding: bool = False) -> str:
    """Exit 2 with ``rule:line:col:`` (loading refused it) or a GL006 finding; returns which."""
    proc = run.proc
    assert proc is not None, "the run did not finish"
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr
    if proc.returncode == 2:
        assert proc.stderr.startswith(f"gpulint: error: {run.rule}:"), proc.stderr[:300]
        line, column = proc.stderr[len(f"gpulint: error: {run.rule}:") :].split(":")[:2]
        assert int(line) >= 1 and int(column) >= 1
        assert len(proc.stderr.splitlines()) == 1
        return "rejected"
    assert proc.returncode == 0, proc.stderr
    found = run.findings
    if allow_own_finding and found and all(rule == "ACME100" for rule, _, _ in found):
        return "own"
    assert [(rule, line) for rule, line, _ in found] == [("GL006", 2)], found
    assert found[0][2].startswith("rule ACME100 (hostile-rule) could not be evaluated here:")
    return "gl006"


@pytest.mark.parametrize(
    "violation",
    [
        'open("/etc/passwd") != ""',
        'system("touch {canary}") == 0',
        'exec("import os") == null',
        'os.system("touch {canary}") == 0',
        '__import__("os").system("touch {canary}") == 0',
        'http.get("http://169.254.169.254/latest/meta-data/") != ""',
        'env("HOME") != ""',
        'file("/etc/passwd").size() > 0',
        "workload.__class__.__init__ != null",
        'getattr(workload, "__class__") != null',
        'document["__class__"] != null',
    ],
)
def test_cel_cannot_read_files_reach_the_network_or_run_code(
    violation: str, tmp_path: Path
) -> None:
    canary = tmp_path / "canary"
    run = lint_with_rule(tmp_path, violation.format(canary=canary))
    outcome = assert_rejected_or_gl006(run)
    assert not canary.exists()
    if outcome == "gl006":
        message = run.findings[0][2]
        assert "root:" not in message  # nothing of /etc/passwd came back


def test_undefined_function_is_a_gl006_naming_it(tmp_path: Path) -> None:
    run = lint_with_rule(tmp_path, 'open("/etc/passwd") != ""')
    assert run.findings == [
        (
            "GL006",
            2,
            "rule ACME100 (hostile-rule) could not be evaluated here: "
            "Undefined variable or function: 'open'",
        )
    ]


@pytest.mark.parametrize(
    "violation",
    [
        "(" * 5000 + "true" + ")" * 5000,  # deep parentheses
        "[" * 5000 + "]" * 5000 + " == []",  # deep list literals
        "{'a': " * 3000 + "1" + "}" * 3000 + " != null",  # deep map literals
        "!" * 10001 + "true",  # a long unary chain
        " || ".join(["false"] * 20000) + " || true",  # a very long expression
        "-" * 5001 + "1 < 0",
        "true" + " && true" * 50000,
        "size('" + "a" * 1_000_000 + "') > 0",  # a 1 MB string literal
    ],
    ids=[
        "parens",
        "lists",
        "maps",
        "not-chain",
        "or-chain",
        "minus-chain",
        "and-chain",
        "1mb-string",
    ],
)
def test_very_long_or_deep_expressions_are_refused_or_evaluated(
    violation: str, tmp_path: Path
) -> None:
    """Refused at load (exit 2 with a position), or evaluated: never a crash of the CEL extension."""
    run = lint_with_rule(tmp_path, violation)
    proc = run.proc
    assert proc is not None, "did not finish"
    assert proc.returncode in (0, 2), (proc.returncode, proc.stderr[-500:])  # not -11 (SIGSEGV)
    if proc.returncode == 2:
        assert proc.stderr.startswith(f"gpulint: error: {run.rule}:{VIOLATION_LINE}:"), proc.stderr[
            :200
        ]
        assert len(proc.stderr.splitlines()) == 1
    else:
        assert {rule for rule, _, _ in run.findings} <= {"ACME100", "GL006"}


@pytest.mark.parametrize(
    "violation",
    [
        "size("
        + "".join(f"[0,1,2,3,4,5,6,7,8,9].map(x{i}, " for i in range(8))
        + "1"
        + ")" * 8
        + ") > 0",
        "".join(f"[0,1,2,3,4,5,6,7,8,9].exists(x{i}, " for i in range(9)) + "false" + ")" * 9,
    ],
    ids=["nested-map", "nested-exists"],
)
def test_exponential_expression_does_not_hang(violation: str, tmp_path: Path) -> None:
    run = lint_with_rule(tmp_path, violation, timeout=HANG_TIMEOUT)
    assert run.proc is not None, f"the run did not finish in {HANG_TIMEOUT:g} s"
    assert_rejected_or_gl006(run)


# -- message templates ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "rendered"),
    [
        ("{workload.metadata.name:{0.__class__}}", "{workload.metadata.name:?}"),
        ("{workload.metadata.name.__class__}", "?"),
        ("{workload.__class__.__init__.__globals__}", "?"),
        (
            "{{0.__class__.__mro__}} {{workload.__init__.__globals__}}",
            "{0.__class__.__mro__} {workload.__init__.__globals__}",
        ),
        ("{workload.metadata.name:>10}|{workload.metadata.name:%}", "      chat|?"),
        ("{1:x}|{1.5:.2%}|{'a':d}", "1|150.00%|?"),
        ("{workload.metadata.name:s}{0}", "chat0"),
    ],
)
def test_message_templates_cannot_reach_attributes(
    message: str, rendered: str, tmp_path: Path
) -> None:
    run = lint_with_rule(tmp_path, "true", message)
    outcome = assert_rejected_or_gl006(run, allow_own_finding=True)
    if outcome == "own":
        assert run.findings == [("ACME100", 5, rendered)]
        assert "<class" not in run.findings[0][2] and "function" not in run.findings[0][2]


@pytest.mark.parametrize(
    "message",
    [
        "{workload.metadata.name!r}",
        "{workload.metadata.name!s:{0.__globals__}}",
        "{0[__class__]}",
        "{workload.metadata.name.__class__.__name__!a}",
    ],
)
def test_python_conversions_in_templates_are_rejected_with_a_position(
    message: str, tmp_path: Path
) -> None:
    run = lint_with_rule(tmp_path, "true", message)
    proc = run.proc
    assert proc is not None
    if proc.returncode == 2:
        assert proc.stderr.startswith(f"gpulint: error: {run.rule}:{MESSAGE_LINE}:")
        assert len(proc.stderr.splitlines()) == 1
    else:  # rendered: then safely
        assert (
            proc.returncode == 0
            and "<class" not in proc.stdout
            and "__" not in "".join(m for _, _, m in run.findings if m != message)
        )


def test_huge_format_width_is_refused_or_rendered_quickly(tmp_path: Path) -> None:
    run = lint_with_rule(tmp_path, "true", "{1:>999999999}", timeout=HANG_TIMEOUT)
    assert run.proc is not None, f"the run did not finish in {HANG_TIMEOUT:g} s"
    assert run.proc.returncode in (0, 2)
    assert len(run.proc.stdout) < 1_000_000
