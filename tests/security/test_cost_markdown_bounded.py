"""Cost Markdown without a bound.

``gpulint cost --format markdown`` goes to pull-request comments and, through the Action, to the
job summary, which GitHub drops whole above 1 MiB. Tables were capped, but every workload with
something to say added a note: a repository of thousands of workloads (or a pull request that
adds them) made 1.46 MB, and the summary showed nothing at all. Now the Markdown stops below
``MAX_MARKDOWN_BYTES`` and its last line says how many lines it left out.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_cli

from linter.costs import render
from linter.costs.tables import Table, View

#: A note that escaping doubles: every character is Markdown punctuation.
LOUD = "|*" * 500


def test_markdown_stops_below_the_limit_and_says_what_it_left_out() -> None:
    notes = [f"workload-{number}: {LOUD}" for number in range(3000)]
    table = Table(("Workload", "Monthly"), (False, True), (("a", "$1.00"),) * 80)
    view = View("gpulint cost", "3000 workloads", [table], notes)
    text = render.markdown(view)
    assert len(text.encode("utf-8")) <= render.MAX_MARKDOWN_BYTES
    lines = text.splitlines()
    shown = sum(1 for line in lines if line.startswith("- workload-"))
    assert 0 < shown < len(notes)
    assert lines[-1] == (
        f"- … {len(notes) - shown} more lines left out: the Markdown stops at "
        f"{render.MAX_MARKDOWN_BYTES:,} bytes (a GitHub job summary holds 1 MiB); "
        "`gpulint cost --format json` has everything"
    )
    assert lines[-2] == ""


def test_a_report_within_the_limit_is_whole() -> None:
    view = View("gpulint cost", "1 workload", [], ["workload-1: a note"])
    assert render.markdown(view).endswith("- workload-1: a note\n")


JOB = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata:
  name: {name}
spec:
  profile: fine-tuning
  resources: {{provider: aws, region: us-east-1, instanceType: g5.12xlarge, capacity: spot}}
  lifecycle: {{maxRuntimeHours: 60}}
"""


def test_the_cost_command_uses_the_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each job adds a note (its hours are a ceiling); with the bound lowered, the command's
    Markdown stops at it."""
    monkeypatch.setattr(render, "MAX_MARKDOWN_BYTES", 4096)
    for number in range(40):
        (tmp_path / f"job-{number:02}.yaml").write_text(JOB.format(name=f"job-{number:02}"))
    monkeypatch.chdir(tmp_path)
    result = run_cli("cost", "--format", "markdown", ".")
    assert result.code == 0, result.err
    assert len(result.out.encode("utf-8")) <= 4096
    assert result.out.splitlines()[-1].startswith("- … ")
    assert "more lines left out: the Markdown stops at 4,096 bytes" in result.out
