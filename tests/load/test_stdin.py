"""``gpulint check -``: standard input, plain or as ``helm template`` renders it."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from conftest import run_cli

from linter.load.stdin import split_rendered

JOB = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata:
  name: {name}
spec:
  profile: training
  resources:
    capacity: spot
    accelerator: {{type: H100-80GB, count: 8}}
  lifecycle: {{maxRuntimeHours: 3}}
"""

RENDERED = (
    "---\n# Source: chat/templates/configmap.yaml\napiVersion: v1\nkind: ConfigMap\n"
    "metadata: {name: settings}\n"
    "---\n# Source: chat/templates/jobs.yaml\n"
    + JOB.format(name="first")
    + "---\n# Source: chat/templates/jobs.yaml\n"
    + JOB.format(name="second")
)


def _check(
    monkeypatch: pytest.MonkeyPatch, text: str, *args: str
) -> tuple[int, list[tuple[str, str, int]], str]:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    result = run_cli("check", "--format", "json", "--select", "GL202", *args)
    found = [(f["ruleId"], f["file"], f["line"]) for f in json.loads(result.out)["findings"]]
    return result.code, found, result.err


def test_rendered_templates_are_reported_as_their_template_files(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    code, found, err = _check(monkeypatch, RENDERED, "-")
    # the second document of jobs.yaml starts after the first's ten lines and a separator
    assert (code, found, err) == (
        1,
        [("GL202", "chat/templates/jobs.yaml", 8), ("GL202", "chat/templates/jobs.yaml", 19)],
        "",
    )


def test_plain_standard_input_takes_the_given_name(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    code, found, _ = _check(
        monkeypatch, JOB.format(name="job"), "--stdin-filename", "deploy/job.yaml", "-"
    )
    assert (code, found) == (1, [("GL202", "deploy/job.yaml", 8)])
    code, found, _ = _check(monkeypatch, JOB.format(name="job"), "-")
    assert (code, found) == (1, [("GL202", "<stdin>", 8)])


def test_split_keeps_each_templates_documents_in_order() -> None:
    templates = split_rendered(RENDERED)
    assert [t.source for t in templates] == [
        "chat/templates/configmap.yaml",
        "chat/templates/jobs.yaml",
    ]
    assert templates[1].text == JOB.format(name="first") + "---\n" + JOB.format(name="second")
    assert split_rendered(JOB.format(name="x")) == []
