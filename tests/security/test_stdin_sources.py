"""Standard input: a ``# Source:`` comment is a name, not a place.

``helm template ... | gpulint check -`` splits the stream at Helm's ``# Source:`` comments. One
such comment made every document without one disappear (a GPU workload piped after a single
commented ConfigMap was never linted), and a Source path that was absolute or climbed with
``..`` became the base a ``model.config`` was read from: a file outside the repository was read
and a value from it echoed in a finding. Now documents without a Source belong to
``--stdin-filename`` (``<stdin>``), at their own lines of the stream, and Source paths are names
for reports only: every file read is located at standard input's own name.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from hostile_repository import SPOT_JOB, repository

CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n"
SECRET = "s3cr3t-token-value"
SERVING = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata: {name: chat}
spec:
  profile: inference
  model: {config: config.json}
  resources:
    accelerator: {type: H100, count: 1}
"""


def _check(
    monkeypatch: pytest.MonkeyPatch, text: str, *args: str
) -> tuple[int, dict[str, Any], str]:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    result = run_cli("check", "--format", "json", *args, "-")
    return result.code, json.loads(result.out), result.err


def _found(report: dict[str, Any], rule: str) -> list[tuple[str, int]]:
    return [(f["file"], f["line"]) for f in report["findings"] if f["ruleId"] == rule]


@pytest.mark.parametrize("name", [None, "deploy/job.yaml"])
def test_documents_without_a_source_are_standard_inputs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str | None
) -> None:
    monkeypatch.chdir(tmp_path)
    stream = "---\n# Source: chat/templates/settings.yaml\n" + CONFIG_MAP + "---\n" + SPOT_JOB
    args = ("--stdin-filename", name) if name else ()
    code, report, _ = _check(monkeypatch, stream, *args)
    # GL202 is at line 8 of the job, which starts on line 7 of the stream
    assert (code, _found(report, "GL202")) == (1, [(name or "<stdin>", 14)])


def test_documents_on_both_sides_of_rendered_ones_keep_their_lines(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    job = "---\n" + SPOT_JOB
    stream = job + "---\n# Source: chat/templates/jobs.yaml\n" + SPOT_JOB + job
    _, report, _ = _check(monkeypatch, stream)
    assert _found(report, "GL202") == [
        ("<stdin>", 9),
        ("<stdin>", 30),
        ("chat/templates/jobs.yaml", 8),
    ]


@pytest.mark.parametrize("where", ["absolute", "parent"])
def test_a_source_path_is_never_a_base_for_reading(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, where: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "config.json").write_text(json.dumps({"model_type": SECRET, "hidden_size": 64}))
    work = repository(tmp_path)
    monkeypatch.chdir(work)
    source = str(outside / "serve.yaml") if where == "absolute" else "../outside/serve.yaml"
    _, report, err = _check(monkeypatch, f"---\n# Source: {source}\n{SERVING}")
    (gl003,) = [f for f in report["findings"] if f["ruleId"] == "GL003"]
    assert (gl003["file"], gl003["line"]) == (source, 6)
    assert (
        "model.config 'config.json': cannot read file: No such file or directory"
        in (gl003["message"])
    )
    assert SECRET not in json.dumps(report) + err


def test_a_model_config_beside_standard_inputs_name_is_read(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The base for reading is the name the user gave standard input, Source or not."""
    work = repository(tmp_path)
    (work / "deploy").mkdir()
    (work / "deploy" / "config.json").write_text(json.dumps({"model_type": SECRET}))
    monkeypatch.chdir(work)
    stream = f"---\n# Source: chart/templates/serve.yaml\n{SERVING}"
    _, report, _ = _check(monkeypatch, stream, "--stdin-filename", "deploy/serve.yaml")
    (gl003,) = [f for f in report["findings"] if f["ruleId"] == "GL003"]
    assert gl003["file"] == "chart/templates/serve.yaml"
    assert f"model_type {SECRET!r} is not modelled exactly" in gl003["message"]
