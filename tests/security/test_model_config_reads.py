"""Attacks 7 and 8 through ``model.config``: a manifest may name any path as its Hugging Face
config. A FIFO there blocked the run when the config was opened (attack 7: a hang); a symbolic
link loop raised while its real path was resolved (attack 8: a crash). The memory fact now reads
the config through the bounded reader: the workload gets a GL003 "memory was not checked" finding
that says why, and the run finishes with its other findings."""

from __future__ import annotations

import json
import os
from pathlib import Path

from hostile_repository import repository, run_child

INFERENCE = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata: {name: chat}
spec:
  profile: inference
  model:
    id: acme/in-house
    config: models/config.json
  resources:
    accelerator: {type: L4, count: 1}
  lifecycle: {scaleToZero: true}
"""


def _check(repo: Path) -> tuple[int, list[tuple[str, int, str]]]:
    proc = run_child(
        ["check", "--select", "GL003", "--format", "json", "job.yaml"], repo, timeout=30
    )
    assert proc is not None, "gpulint blocked reading model.config"
    assert proc.stderr == ""
    findings = json.loads(proc.stdout)["findings"]
    return proc.returncode, [(f["ruleId"], f["line"], f["message"]) for f in findings]


def test_a_fifo_as_model_config_does_not_hang(tmp_path: Path) -> None:
    repo = repository(tmp_path)
    (repo / "models").mkdir()
    os.mkfifo(repo / "models" / "config.json")
    (repo / "job.yaml").write_text(INFERENCE)
    assert _check(repo) == (
        0,
        [
            (
                "GL003",
                8,
                "memory was not checked: model.config 'models/config.json': not a regular file "
                "(a pipe, socket or device?); not read",
            )
        ],
    )


def test_a_symlink_loop_as_model_config_does_not_crash(tmp_path: Path) -> None:
    repo = repository(tmp_path)
    (repo / "models").mkdir()
    os.symlink("loop-b.json", repo / "models" / "config.json")
    os.symlink("config.json", repo / "models" / "loop-b.json")
    (repo / "job.yaml").write_text(INFERENCE)
    assert _check(repo) == (
        0,
        [
            (
                "GL003",
                8,
                "memory was not checked: model.config 'models/config.json': cannot read file: "
                "Too many levels of symbolic links",
            )
        ],
    )
