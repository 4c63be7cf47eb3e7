"""The ``candidates`` fact (every placement a launcher may pick, sized by the memory provider)
and the ``recovery`` fact (what a job has and lacks to survive a preemption, in the file's
words), on gpulint manifests and on adapted SkyPilot and dstack files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import run_cli

HEAD = """apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata: {name: chat}
spec:
  profile: inference
  model: {id: meta-llama/Llama-3.1-70B-Instruct}
  serving: {maxBatchSize: 1, maxContextTokens: 8192}
  resources:
    provider: aws
    region: us-east-1
    accelerator: {type: H100-80GB, count: 4}
"""


def facts(tmp_path: Path, text: str, name: str = "w.yaml") -> dict[str, Any]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = run_cli("facts", str(path))
    assert result.err == ""
    (entry,) = json.loads(result.out)
    found: dict[str, Any] = entry["facts"]
    return found


def test_no_alternatives_means_no_candidates(tmp_path: Path) -> None:
    found = facts(tmp_path, HEAD)["candidates"]
    assert found["count"] == 0
    assert (found["someFail"], found["allFail"], found["firstFailingPath"]) == (False, False, None)


def test_each_alternative_is_sized_with_its_own_hardware(tmp_path: Path) -> None:
    text = HEAD + (
        "    alternatives:\n"
        "      - accelerator: {type: L4, count: 4}\n"
        "      - instanceType: p4de.24xlarge\n"
        "      - region: us-west-2\n"
        "      - accelerator: {type: Trn9, count: 1}\n"
    )
    found = facts(tmp_path, text)["candidates"]
    assert [(c["text"], c["path"], c["runs"]) for c in found["candidates"]] == [
        ("4 x H100-80GB on aws/us-east-1", "spec.resources.accelerator", True),
        ("4 x L4", "spec.resources.alternatives[0].accelerator", False),
        ("p4de.24xlarge", "spec.resources.alternatives[1].instanceType", True),
        ("4 x H100-80GB on aws/us-west-2", "spec.resources.alternatives[2]", True),
        ("1 x Trn9", "spec.resources.alternatives[3].accelerator", None),
    ]
    assert (found["failingText"], found["unsized"]) == ("4 x L4", ["1 x Trn9"])
    assert (found["someFail"], found["allFail"]) == (True, False)
    assert found["firstFailingPath"] == "spec.resources.alternatives[0].accelerator"


def test_all_fail_only_when_every_candidate_was_sized_and_failed(tmp_path: Path) -> None:
    small = HEAD.replace("H100-80GB, count: 4", "L4, count: 1")
    text = small + "    alternatives:\n      - accelerator: {type: A10G, count: 1}\n"
    assert facts(tmp_path, text)["candidates"]["allFail"] is True
    unsized = small + "    alternatives:\n      - accelerator: {type: Trn9, count: 1}\n"
    assert facts(tmp_path, unsized)["candidates"]["allFail"] is False


def test_recovery_on_a_gpulint_manifest(tmp_path: Path) -> None:
    text = """apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata: {name: ft}
spec:
  profile: fine-tuning
  resources: {accelerator: {type: A100-80GB, count: 8}, capacity: spot}
  checkpointing: {enabled: true, uri: "s3://c/ft/", intervalMinutes: 30}
  lifecycle: {restartOnPreemption: true}
"""
    assert facts(tmp_path, text)["recovery"] == {
        "found": [
            "checkpoints written to s3://c/ft/",
            "a checkpoint every 30 minutes",
            "a restart after a preemption (spec.lifecycle.restartOnPreemption)",
        ],
        "foundText": "checkpoints written to s3://c/ft/, a checkpoint every 30 minutes and a "
        "restart after a preemption (spec.lifecycle.restartOnPreemption)",
        "savingDefault": None,
        "resumeDefault": None,
        "restartDefault": None,
    }


def test_recovery_names_the_launchers_defaults(tmp_path: Path) -> None:
    text = (
        "type: task\nspot_policy: spot\nvolumes: [ckpt:/ckpt]\n"
        "commands:\n"
        "  - deepspeed --module openrlhf.cli.train_sft --pretrain Qwen/Qwen2.5-7B "
        "--ckpt_path /ckpt/sft\n"
    )
    found = facts(tmp_path, text, "sft.dstack.yml")["recovery"]
    assert (found["found"], found["foundText"]) == ([], "none")
    assert found["savingDefault"] == "OpenRLHF's default: --save_steps -1"
    assert found["resumeDefault"] == (
        "OpenRLHF's default: starts from step zero without --load_checkpoint"
    )
    assert found["restartDefault"] == "dstack default: retry false"


def test_several_candidates_are_judged_by_gl107_alone(tmp_path: Path) -> None:
    """A model too large for every candidate is one GL107 finding, not GL101 as well: the memory
    rules that size "the declared GPUs" leave several candidates to GL107."""
    path = tmp_path / "sky.yaml"
    path.write_text(
        "resources:\n"
        "  accelerators: {L4:1, H100:1}\n"
        "run: |\n"
        "  vllm serve meta-llama/Llama-3.1-70B-Instruct --max-model-len 8192\n",
        encoding="utf-8",
    )
    result = run_cli("check", "--format", "json", "--select", "GL1", str(path))
    found = [(f["ruleId"], f["line"]) for f in json.loads(result.out)["findings"]]
    assert (result.code, found) == (1, [("GL107", 2)])
