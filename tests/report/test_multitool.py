"""What GitHub would say about our SARIF: Microsoft's SARIF Multitool, GitHub ingestion rules
(``--rule-kind Ghas``) and the SARIF authoring rules, must report no error and no warning.

The Multitool is an npm package (.ci/run installs it: ``npm install @microsoft/sarif-multitool``
at the repository root); point SARIF_MULTITOOL at the binary to use another copy. Without it
these tests are skipped.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, run_cli

_PLATFORM = {"linux": "linux", "darwin": "darwin", "win32": "win32"}.get(sys.platform, sys.platform)
_DEFAULT = (
    REPO
    / "node_modules"
    / "@microsoft"
    / f"sarif-multitool-{_PLATFORM}"
    / ("Sarif.Multitool.exe" if sys.platform == "win32" else "Sarif.Multitool")
)
MULTITOOL = Path(os.environ.get("SARIF_MULTITOOL", _DEFAULT))

pytestmark = pytest.mark.skipif(
    not MULTITOOL.is_file(),
    reason=f"SARIF Multitool not installed at {MULTITOOL} "
    "(npm install @microsoft/sarif-multitool at the repository root, "
    "or set SARIF_MULTITOOL)",
)

PROBLEM = re.compile(r"^.*: (?:error|warning) \w+: .*$", re.MULTILINE)
# (name, extra arguments): GitHub's ingestion rules, then the SARIF authoring rules.
RULE_SETS = [("ghas", ["--rule-kind", "Ghas"]), ("authoring", [])]


def _problems(sarif: Path, extra: list[str], out: Path) -> list[str]:
    """Errors and warnings the Multitool reports (notes are advice, e.g. Pascal-case names).

    It prints one line per result, ``FILE(LINE,COL): LEVEL ID: MESSAGE``, and exits 0 either way.
    """
    proc = subprocess.run(
        [
            str(MULTITOOL),
            "validate",
            str(sarif),
            "-o",
            str(out),
            *extra,
            "--level",
            "Error;Warning;Note",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env={**os.environ, "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT": "1"},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Analysis completed successfully" in proc.stdout, proc.stdout + proc.stderr
    return PROBLEM.findall(proc.stdout + proc.stderr)


@pytest.mark.parametrize("target", ["examples", "tests/rules"])
@pytest.mark.parametrize(("rule_set", "extra"), RULE_SETS)
def test_multitool_accepts_our_sarif(
    target: str, rule_set: str, extra: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    sarif = tmp_path / "gpulint.sarif"
    result = run_cli("check", "--format", "sarif", "--output", str(sarif), target)
    assert result.code in (0, 1), result.err
    assert json.loads(sarif.read_text())["runs"][0]["results"], "nothing to validate"
    assert _problems(sarif, extra, tmp_path / f"{rule_set}.sarif") == []
