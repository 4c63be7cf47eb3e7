"""``gpulint test``: organisations test their own rules the way gpulint tests its own."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from conftest import REPO, run_cli

POLICIES = REPO / "examples" / "policies"


def test_the_example_organisation_rules_pass() -> None:
    result = run_cli("test", str(POLICIES))
    assert (result.code, result.out, result.err) == (0, "8 passed, 0 failed\n", "")


def test_a_wrong_marker_fails_with_its_line(tmp_path: Path) -> None:
    folder = tmp_path / "policies"
    shutil.copytree(POLICIES, folder)
    fixture = folder / "tests" / "ACME002" / "bad" / "sixteen-gpus.yaml"
    text = fixture.read_text().replace("nodes: 2  # expect: ACME002", "nodes: 2")
    fixture.write_text(text.replace("  name: pretrain", "  name: pretrain  # expect: ACME002"))
    result = run_cli("test", str(folder))
    assert result.code == 1
    assert result.out.splitlines() == [
        f"{fixture}:4: ACME002 expected ACME002 here, but it was not reported",
        f"{fixture}:9: ACME002 ACME002 reported but not expected: pretrain asks for 16 GPUs, more"
        " than the 8 a team may use without a capacity review",
        "7 passed, 1 failed",
    ]


def test_a_broken_rule_file_is_a_failure_with_its_position(tmp_path: Path) -> None:
    folder = tmp_path / "policies"
    shutil.copytree(POLICIES, folder)
    rule = folder / "ACME001.yaml"
    rule.write_text(rule.read_text().replace("severity: error", "severity: fatal"))
    result = run_cli("test", str(folder))
    assert result.code == 1
    assert result.out.splitlines()[0] == (
        f"{rule}:6: ACME001 severity: Input should be 'error', 'warning' or 'note' (got 'fatal')"
    )


def test_a_rule_without_fixtures_fails(tmp_path: Path) -> None:
    folder = tmp_path / "policies"
    shutil.copytree(POLICIES, folder)
    shutil.rmtree(folder / "tests" / "ACME001" / "good")
    result = run_cli("test", str(folder))
    assert result.code == 1
    assert f"{folder / 'ACME001.yaml'}:1: ACME001 no good fixtures in" in result.out


def test_junit_report(tmp_path: Path) -> None:
    out = tmp_path / "report.xml"
    result = run_cli("test", "--format", "junit", "--output", str(out), str(POLICIES))
    assert result.code == 0
    root = ElementTree.parse(out).getroot()
    assert (root.tag, root.get("tests"), root.get("failures")) == ("testsuites", "8", "0")
    names = [case.get("name") for case in root.iter("testcase")]
    assert "ACME001/bad/no-label.yaml" in names
    assert "ACME002 docs.useInstead" in names


def test_no_folder_is_a_usage_error(tmp_path: Path, monkeypatch: object) -> None:
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    result = run_cli("test")
    assert result.code == 2
    assert "no rule folders to test" in result.err


def test_a_folder_without_rules_is_an_error_not_a_pass(tmp_path: Path) -> None:
    """As pytest exits non-zero when it collects nothing: an empty folder is a wrong path."""
    folder = tmp_path / "policies"
    (folder / "tests").mkdir(parents=True)
    result = run_cli("test", str(folder))
    assert result.code == 2
    assert result.out == ""
    assert result.err == (
        f"gpulint: error: {folder}: no rule files to test (*.yaml or *.yml directly in it)\n"
    )
