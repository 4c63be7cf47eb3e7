"""Untrusted SkyPilot and dstack files never raise: every value of rich documents replaced, one at
a time, by values of every wrong type and by template placeholders, is adapted into findings at
positions inside the file (and a workload when the rest still makes one)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from linter.formats import dstack, skypilot
from linter.formats.base import InputFile
from linter.load import load_text

SKYPILOT = {
    "name": "Chat",
    "num_nodes": 2,
    "envs": {"MODEL": "meta-llama/Llama-3.1-8B-Instruct", "N": 4},
    "secrets": {"HF_TOKEN": None},
    "resources": {
        "infra": "aws/us-east-1",
        "accelerators": {"L4:1": None, "A100": 2},
        "use_spot": True,
        "instance_type": "g6.xlarge",
        "autostop": {"idle_minutes": 10, "down": True},
        "job_recovery": {"strategy": "FAILOVER", "max_restarts_on_errors": 2},
        "any_of": [{"infra": "gcp/us-central1", "accelerators": "H100:1"}, {"cloud": "aws"}],
    },
    "file_mounts": {"/ckpt": {"source": "s3://b/x", "mode": "MOUNT"}, "/data": "s3://d"},
    "volumes": {"/vol": "v1"},
    "setup": "pip install vllm",
    "run": "timeout 2h vllm serve $MODEL --max-model-len 8192 -tp $SKYPILOT_NUM_GPUS_PER_NODE",
    "service": {
        "readiness_probe": {"path": "/v1/models"},
        "replica_policy": {
            "min_replicas": 1,
            "max_replicas": 3,
            "base_ondemand_fallback_replicas": 1,
            "dynamic_ondemand_fallback": True,
        },
    },
}
DSTACK = {
    "type": "task",
    "name": "sft",
    "nodes": 2,
    "env": ["HF_TOKEN", "BASE=Qwen/Qwen2.5-7B"],
    "spot_policy": "auto",
    "retry": {"on_events": ["interruption"], "duration": "2h"},
    "idle_duration": "10m",
    "max_duration": "1d",
    "backends": ["aws"],
    "regions": ["us-east-1"],
    "fleets": ["pool"],
    "volumes": ["ckpt:/ckpt", {"instance_path": "/nvme", "path": "/cache"}],
    "commands": [
        "torchrun --nnodes $DSTACK_NODES_NUM train.py --model_name_or_path $BASE "
        "--output_dir /ckpt/run --resume_from_checkpoint /ckpt/run"
    ],
    "resources": {"gpu": {"name": ["A100", "H100"], "memory": "40GB..", "count": "2..4"}},
}
WRONG: list[Any] = [None, True, -1, 0, 1.5, "", "x:y:z", "${GPU}", "{{ .Values.x }}", [], {}]


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return
    for key, child in items:
        yield (*prefix, key)
        yield from _paths(child, (*prefix, key))


def _variants(document: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for path in _paths(document):
        for wrong in WRONG:
            variant = copy.deepcopy(document)
            parent = variant
            for part in path[:-1]:
                parent = parent[part]
            parent[path[-1]] = wrong
            yield variant


@pytest.mark.parametrize(
    ("document", "file_name"),
    [(SKYPILOT, "chat.sky.yaml"), (DSTACK, "sft.dstack.yml")],
    ids=["skypilot", "dstack"],
)
def test_wrong_values_anywhere_never_raise(
    tmp_path: Path, document: dict[str, Any], file_name: str
) -> None:
    path = tmp_path / file_name
    checked = 0
    for variant in _variants(document):
        text = json.dumps(variant, indent=1)
        path.write_text(text, encoding="utf-8")
        loaded = load_text(text)
        source = InputFile(file_name, path, loaded.text)
        (parsed,) = loaded.documents
        for adapter in (skypilot, dstack):
            if not adapter.recognises(parsed.data, source):
                continue
            adapted = adapter.adapt(parsed, source)
            lines = text.count("\n") + 1
            for finding in adapted.findings:
                assert 1 <= finding.location.span.line <= lines, finding
            checked += 1
    assert checked > 300
