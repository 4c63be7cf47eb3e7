"""Attack 6: control characters reached terminals and CI logs raw.

File names, ``metadata.name``, pools, baseline messages and rule file names with ESC, CR, LF or
BEL went unescaped into the text report and stderr, so a pull request could fake "No problems
found" or start GitHub Actions workflow commands (``::error``, ``::add-mask::``,
``::stop-commands::``). Every such value is now written with visible escapes, and
``metadata.name`` has a pattern.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import run_cli
from hostile_repository import SPOT_JOB

# Any C0 control but the line feed that ends a line, DEL, or a C1 control.
RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")
FAKE = "\r\x1b[2KNo problems found in 1 file.\n::stop-commands::pwned\n::add-mask::x\x07"

SHARED_POOL = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata: {{name: {name}}}
spec:
  profile: {profile}
  resources: {{accelerator: {{type: L4, count: 1}}, pool: {pool}}}
  lifecycle: {{idleShutdownMinutes: 30, maxRuntimeHours: 2, scaleToZero: true}}
"""


ANNOTATION = re.compile(r"^::(error|warning|notice) [^:]*::")  # properties escape ':' as %3A


def assert_inert(stream: str, annotations: bool = False) -> None:
    """No raw control character, and every line is one of gpulint's own: no workflow command
    (in --format github, exactly one per line, at its start, then the summary line), no summary
    but the last line."""
    assert not RAW_CONTROL.search(stream), stream
    lines = stream.splitlines()
    for number, line in enumerate(lines, 1):
        if annotations and number < len(lines):
            assert ANNOTATION.match(line), line
        elif annotations:
            assert line.startswith(("Found ", "No problems found")), line
        else:
            assert not line.startswith("::"), line
            assert not line.startswith("No problems found") or line == lines[-1], line


def test_file_names_are_escaped_in_the_text_report_and_on_stderr(tmp_path: Path) -> None:
    named = tmp_path / f"job{FAKE.replace('/', '')}.yaml"
    named.write_text(SPOT_JOB)
    foreign = tmp_path / f"notes{FAKE.replace('/', '')}.yaml"
    foreign.write_text("just: yaml\n")
    result = run_cli("check", str(named), str(foreign))
    assert result.code == 1
    assert_inert(result.out)
    assert_inert(result.err)
    assert "\\x1b[2KNo problems found in 1 file.\\n::stop-commands::pwned" in result.out
    assert result.out.splitlines()[-1] == "Found 1 error, 0 warnings and 0 notes in 1 file."
    assert len(result.err.splitlines()) == 1


def test_pool_names_are_escaped_in_messages_and_annotations(tmp_path: Path) -> None:
    pool = json.dumps(f"gpu{FAKE}")  # a double-quoted YAML scalar with the escapes
    for name, profile in (("trainer", "training"), ("server", "inference")):
        (tmp_path / f"{name}.yaml").write_text(
            SHARED_POOL.format(name=name, profile=profile, pool=pool)
        )
    text = run_cli("check", "--select", "GL205", str(tmp_path))
    github = run_cli("check", "--select", "GL205", "--format", "github", str(tmp_path))
    assert (text.code, github.code) == (1, 1)
    assert_inert(text.out)
    assert_inert(github.out, annotations=True)
    for out in (text.out, github.out):
        assert "gpu\\r\\x1b[2KNo problems found in 1 file.\\n::stop-commands::pwned" in out
    assert len(github.out.splitlines()) == 3
    assert github.out.splitlines()[-1] == "Found 2 errors, 0 warnings and 0 notes in 2 files."


def test_metadata_name_must_be_a_plain_name(tmp_path: Path) -> None:
    manifest = tmp_path / "job.yaml"
    manifest.write_text(SPOT_JOB.replace("{name: job}", '{name: "job\\e[8m"}'))
    result = run_cli("check", "--format", "json", "--select", "GL001", str(manifest))
    found = [(f["ruleId"], f["line"], f["path"]) for f in json.loads(result.out)["findings"]]
    assert (result.code, found) == (1, [("GL001", 3, "metadata.name")])


def test_stale_baseline_entries_are_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("job.yaml").write_text(SPOT_JOB)
    entry = {"ruleId": "GL202", "file": "job.yaml", "hash": "0", "path": "spec", "message": FAKE}
    Path("baseline.json").write_text(json.dumps({"version": 1, "entries": [entry]}))
    result = run_cli("check", "--baseline", "baseline.json", "job.yaml")
    assert result.code == 1
    assert_inert(result.err)
    assert result.err.splitlines()[-1] == (
        "  job.yaml: GL202 spec: \\r\\x1b[2KNo problems found in 1 file.\\n"
        "::stop-commands::pwned\\n::add-mask::x\\x07"
    )


def test_rule_file_names_are_escaped_in_errors(tmp_path: Path) -> None:
    rules = tmp_path / "policies"
    rules.mkdir()
    (rules / f"bad{FAKE.replace('/', '')}.yaml").write_text("id: [\n")
    (tmp_path / "job.yaml").write_text(SPOT_JOB)
    result = run_cli("check", "--rules-dir", str(rules), str(tmp_path / "job.yaml"))
    assert result.code == 2
    assert_inert(result.err)
    assert len(result.err.splitlines()) == 1
