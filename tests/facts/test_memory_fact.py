"""The memory fact (``facts.memory``) on the vLLM start-up library: every serving setting is
passed through, a GPU known only by its memory is sized, and the values rules read are exact."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import run_cli

HEAD = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata: {name: chat}
spec:
  profile: inference
"""


def memory(tmp_path: Path, body: str) -> dict[str, Any]:
    (tmp_path / ".git").mkdir(exist_ok=True)
    manifest = tmp_path / "chat.yaml"
    manifest.write_text(HEAD + body, encoding="utf-8")
    result = run_cli("facts", str(manifest))
    assert result.code == 0, result.err
    (workload,) = json.loads(result.out)
    fact: dict[str, Any] = workload["facts"]["memory"]
    return fact


def test_refusal_for_one_full_length_sequence_quotes_vllm(tmp_path: Path) -> None:
    fact = memory(
        tmp_path,
        """\
  model: {id: meta-llama/Llama-3.1-8B-Instruct}
  resources:
    accelerator: {type: L4, count: 1}
""",
    )
    inference = fact["inference"]
    assert (inference["starts"], inference["refusalCause"]) == (False, "context")
    assert (inference["contextDefaulted"], inference["context"]) == (True, 131072)
    assert inference["sequenceKvGiB"] == 16.0
    assert inference["maxStartableModelLen"] == 29168
    assert inference["refusal"].startswith(
        "To serve at least one request with the model's max seq len (131072), (16.00 GiB KV cache"
    )
    assert (inference["gpuMemoryUtilization"], inference["engineVersion"]) == (0.92, "0.33.0")
    assert inference["utilizationOrigin"] == "release-default"


def test_every_serving_setting_reaches_the_estimate(tmp_path: Path) -> None:
    fact = memory(
        tmp_path,
        """\
  model: {id: openai/gpt-oss-120b}
  serving:
    engine: vllm
    engineVersion: "0.11.0"
    gpuMemoryUtilization: 0.95
    maxNumBatchedTokens: 1024
    maxBatchSize: 64
    maxContextTokens: 32768
    enforceEager: true
  resources:
    accelerator: {type: H100-80GB, count: 1}
""",
    )
    inference = fact["inference"]
    assert fact["precision"] == "mxfp4"  # the checkpoint's own
    assert inference["engineVersion"] == "0.11.0"
    assert inference["maxNumSeqs"] == 64 and inference["batchDeclared"] is True
    assert inference["gpuMemoryUtilization"] == 0.95
    assert (inference["utilizationOrigin"], inference["contextDefaulted"]) == ("stated", False)
    assert inference["overheadGiB"] == 0.2  # eager: no CUDA graphs; v0.11 counts none anyway
    assert inference["starts"] is True and inference["batchFits"] is False
    assert fact["assumed"] == []


def test_default_max_num_seqs_is_not_a_declared_batch(tmp_path: Path) -> None:
    fact = memory(
        tmp_path,
        """\
  model: {id: meta-llama/Llama-3.1-8B-Instruct}
  serving: {maxContextTokens: 8192}
  resources:
    accelerator: {type: L4, count: 1}
""",
    )
    inference = fact["inference"]
    assert (inference["batch"], inference["batchDeclared"], inference["maxNumSeqs"]) == (
        1,
        False,
        256,
    )


def test_gpu_known_only_by_memory_is_sized_and_said(tmp_path: Path) -> None:
    fact = memory(
        tmp_path,
        """\
  model: {id: meta-llama/Llama-3.1-8B-Instruct}
  serving: {maxContextTokens: 8192}
  resources:
    accelerator: {memoryGib: 40, count: 1}
""",
    )
    assert fact["status"] == "checked" and fact["gpu"] == "A100-40GB"
    assert fact["assumed"][0] == (
        "A100-40GB, the smallest catalogued GPU with at least 40 GB (accelerator.memoryGib)"
    )


def test_quantization_method_sets_the_precision(tmp_path: Path) -> None:
    fact = memory(
        tmp_path,
        """\
  model: {id: Qwen/Qwen2.5-7B-Instruct, quantization: awq}
  serving: {maxContextTokens: 8192}
  resources:
    accelerator: {type: L4, count: 1}
""",
    )
    assert fact["precision"] == "int4"


def test_kv_cache_memory_bytes_replaces_the_utilisation(tmp_path: Path) -> None:
    fact = memory(
        tmp_path,
        """\
  model: {id: meta-llama/Llama-3.1-8B-Instruct}
  serving: {maxContextTokens: 8192, kvCacheMemoryBytes: 4294967296}
  resources:
    accelerator: {type: L4, count: 1}
""",
    )
    assert fact["inference"]["kvPoolGiB"] == 4.0
    assert fact["inference"]["starts"] is True
    too_much = memory(
        tmp_path,
        """\
  model: {id: meta-llama/Llama-3.1-8B-Instruct}
  serving: {maxContextTokens: 8192, kvCacheMemoryBytes: 8589934592}
  resources:
    accelerator: {type: L4, count: 1}
""",
    )
    assert too_much["inference"]["refusalCause"] == "weights"
    assert too_much["inference"]["refusal"].startswith("torch.OutOfMemoryError")


def test_pipeline_parallel_splits_weights_and_layers(tmp_path: Path) -> None:
    fact = memory(
        tmp_path,
        """\
  model: {id: meta-llama/Llama-3.1-70B-Instruct}
  serving: {maxContextTokens: 8192, tensorParallel: 2, pipelineParallel: 2}
  resources:
    accelerator: {type: A100-80GB, count: 4}
""",
    )
    assert (fact["gpus"], fact["inference"]["tensorParallel"]) == (4, 2)
    assert fact["inference"]["pipelineParallel"] == 2
    assert fact["inference"]["weightsGiB"] == 32.85  # 131.42 GiB over 4 GPUs
    assert fact["inference"]["sequenceKvGiB"] == 0.62  # 40 of 80 layers, 4 of 8 KV heads


def test_unsized_architecture_is_refused_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(
        json.dumps({"model_type": "mamba2", "hidden_size": 768}), encoding="utf-8"
    )
    fact = memory(
        tmp_path,
        """\
  model: {config: config.json}
  resources:
    accelerator: {type: L4, count: 1}
""",
    )
    assert fact["status"] == "unknown-model"
    assert fact["reason"] == (
        "model.config 'config.json': model_type 'mamba2' is not sized: Mamba-2 keeps a "
        "recurrent state per sequence instead of a KV cache; not modelled"
    )
    assert fact["inference"] is None and set(fact) >= {"inference", "training", "assumed"}
