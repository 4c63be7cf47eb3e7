"""A kept report reused after what it depended on changed.

A run over unchanged files prints the report the previous run kept. It was keyed by the linted
files' bytes, the rules and the configuration's settings, but a result also depends on files
outside the linted set (a workload's ``model.config``, which a pull request can change alone),
on what discovery left out (an excluded file added since: the summary's count), and on the
configuration file's layout (messages name its lines: ``assumed from .gpulint.yaml:3``). Each
such change left the old report in place: a model that no longer fits its GPU stayed "No
problems found". Now a kept report records every other file the results read with the digest
of its bytes and is used only while all still read the same, and its key covers discovery's
left-outs and the configuration file's bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli
from hostile_repository import cache_on, repository

SERVING = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata: {name: chat}
spec:
  profile: inference
  model: {config: model/config.json}
  resources:
    accelerator: {type: L4, count: 1}
  lifecycle: {alwaysOn: shared endpoint}
"""
SMALL = {
    "model_type": "llama",
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "vocab_size": 128256,
    "max_position_embeddings": 8192,
    "torch_dtype": "bfloat16",
}
LARGE = {**SMALL, "hidden_size": 8192, "num_hidden_layers": 80, "num_attention_heads": 64}
LARGE["intermediate_size"] = 28672
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  replicas: 1
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: ["--model", "meta-llama/Llama-3.1-70B-Instruct"]
          resources:
            limits:
              nvidia.com/gpu: 1
"""
ASSUME = 'assume:\n  - paths: ["deploy/*.yaml"]\n    set: {accelerator: {type: L4}}\n'


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with the result cache (and kept reports) switched on."""
    cache_on(monkeypatch, tmp_path)
    root = repository(tmp_path)
    monkeypatch.chdir(root)
    return root


def _errors(*args: str) -> list[tuple[str, str, int]]:
    report = json.loads(run_cli("check", "--format", "json", *args).out)
    return [(f["file"], f["ruleId"], f["line"]) for f in report["findings"]]


def test_a_changed_model_config_outside_the_linted_files_is_linted_again(work: Path) -> None:
    (work / "model").mkdir()
    (work / "model" / "config.json").write_text(json.dumps(SMALL))
    (work / "serve.yaml").write_text(SERVING)
    assert _errors("serve.yaml") == _errors("serve.yaml") == []  # the second from the kept report
    (work / "model" / "config.json").write_text(json.dumps(LARGE))
    assert _errors("serve.yaml") == [("serve.yaml", "GL101", 8)]
    assert run_cli("check", "serve.yaml").out.endswith(
        "Found 1 error, 0 warnings and 0 notes in 1 file.\n"
    )


def test_a_model_config_that_disappears_is_linted_again(work: Path) -> None:
    (work / "model").mkdir()
    (work / "model" / "config.json").write_text(json.dumps(SMALL))
    (work / "serve.yaml").write_text(SERVING)
    assert _errors("serve.yaml") == _errors("serve.yaml") == []
    (work / "model" / "config.json").unlink()
    assert _errors("serve.yaml") == [("serve.yaml", "GL003", 6)]


def test_an_excluded_file_added_is_counted(work: Path) -> None:
    (work / ".gpulint.yaml").write_text('exclude: ["skip/*"]\n')
    (work / "skip").mkdir()
    (work / "serve.yaml").write_text(SERVING.replace("  model: {config: model/config.json}\n", ""))
    assert run_cli("check", ".").out.splitlines()[-1] == "No problems found in 1 file."
    (work / "skip" / "a.yaml").write_text(SERVING)
    assert run_cli("check", ".").out.splitlines()[-1] == "Configuration excluded 1 file."


def test_a_configuration_laid_out_anew_names_its_new_lines(work: Path) -> None:
    (work / "deploy").mkdir()
    (work / "deploy" / "vllm.yaml").write_text(DEPLOYMENT)
    (work / ".gpulint.yaml").write_text(ASSUME)
    assert "(resources.accelerator assumed from .gpulint.yaml:3)" in run_cli("check", "deploy").out
    (work / ".gpulint.yaml").write_text("# the platform team's defaults\n" + ASSUME)
    assert "(resources.accelerator assumed from .gpulint.yaml:4)" in run_cli("check", "deploy").out


ZERO3_TASK = """\
name: sft
resources: {accelerators: A100:8, autostop: 30}
run: timeout 8h deepspeed train.py --model_name_or_path meta-llama/Llama-2-7b-hf --deepspeed ds.json
"""


def test_a_changed_deepspeed_config_is_linted_again(work: Path) -> None:
    """The sharding read from a DeepSpeed config in the repository: a result kept under the
    task's bytes is not reused once the config stops sharding (ZeRO-3 -> stage 0)."""
    (work / "ds.json").write_text('{"zero_optimization": {"stage": 3}}')
    (work / "sft.yaml").write_text(ZERO3_TASK)
    assert [e for e in _errors("sft.yaml") if e[1] == "GL104"] == []
    assert [e for e in _errors("sft.yaml") if e[1] == "GL104"] == []  # from the kept report
    (work / "ds.json").write_text('{"zero_optimization": {"stage": 0}}')
    assert [e for e in _errors("sft.yaml") if e[1] == "GL104"] == [("sft.yaml", "GL104", 1)]
