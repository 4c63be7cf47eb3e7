"""vLLM production-stack values: recognised only as such, one workload per modelSpec entry, read
the way the chart renders it."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from linter.formats import recognise
from linter.formats.base import Adapted, InputFile
from linter.formats.kubernetes import production_stack
from linter.load import load_text


def adapt(text: str) -> Adapted:
    text = textwrap.dedent(text)
    source = InputFile("values.yaml", Path("values.yaml"), text)
    (document,) = load_text(text).documents
    found = recognise(document.data, source)
    assert found is production_stack
    return found.adapt(document, source)


def specs(adapted: Adapted) -> list[dict[str, Any]]:
    return [manifest.data["spec"] for manifest in adapted.manifests]


ENTRY = """
servingEngineSpec:
  modelSpec:
    - name: chat
      repository: vllm/vllm-openai
      tag: v0.11.0
      modelURL: meta-llama/Llama-3.1-8B-Instruct
      replicaCount: 2
      requestCPU: 4
      requestMemory: 16Gi
      requestGPU: 1
{extra}
"""


@pytest.mark.parametrize(
    ("text", "ours"),
    [
        (ENTRY.format(extra=""), True),
        ("servingEngineSpec: {modelSpec: []}\n", True),
        # another chart's values: no servingEngineSpec.modelSpec list
        ("servingEngineSpec: {image: x}\n", False),
        ("modelSpec: [{name: a}]\n", False),
        # a Kubernetes object that happens to carry the key
        ("apiVersion: v1\nkind: ConfigMap\nservingEngineSpec: {modelSpec: []}\n", False),
    ],
)
def test_recognition(text: str, ours: bool) -> None:
    (document,) = load_text(text).documents
    source = InputFile("values.yaml", Path("values.yaml"), text)
    assert production_stack.recognises(document.data, source) is ours


def test_claims_a_broken_values_file_that_says_it_is_one() -> None:
    assert production_stack.claims("servingEngineSpec:\n  modelSpec:\n  - [broken\n")
    assert not production_stack.claims("routerSpec: {}\n")


def test_each_entry_is_a_workload_read_as_the_chart_renders_it() -> None:
    extra = """
      nodeSelectorTerms:
        - matchExpressions:
            - {key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-L4]}
      vllmConfig:
        maxModelLen: 8192
        tensorParallelSize: 1
        maxNumSeqs: 32
        extraArgs: ["--max-model-len=4096", "--kv-cache-dtype", "fp8"]
    - name: second
      modelURL: Qwen/Qwen2.5-0.5B-Instruct
      requestGPU: 1
      requestGPUType: nvidia.com/mig-1g.10gb
"""
    adapted = adapt(ENTRY.format(extra=extra.rstrip()))
    assert adapted.findings == []
    first, second = adapted.manifests
    assert (first.name, first.part, second.name, second.part) == ("chat", 0, "second", 1)
    assert first.format == "production-stack"
    assert first.data["spec"]["serving"] == {
        "engine": "vllm",
        "engineVersion": "0.11.0",  # the image tag
        "maxContextTokens": 4096,  # extraArgs come after vllmConfig's flags, so they win
        "tensorParallel": 1,
        "maxBatchSize": 32,
        "kvCachePrecision": "fp8",
        "replicas": 2,
    }
    assert first.data["spec"]["resources"]["accelerator"] == {"count": 1, "type": "NVIDIA-L4"}
    context = first.provenance.origin(("spec", "serving", "maxContextTokens"))
    assert context.path == ("servingEngineSpec", "modelSpec", 0, "vllmConfig", "extraArgs", 0)
    assert first.provenance.origin(("spec", "serving", "engineVersion")).path == (
        "servingEngineSpec",
        "modelSpec",
        0,
        "tag",
    )
    assert first.provenance.name(("spec", "serving", "maxBatchSize")) == (
        "vllmConfig.maxNumSeqs of modelSpec chat"
    )
    assert first.provenance.name(("spec", "serving", "gpuMemoryUtilization")) == (
        "vllmConfig.gpuMemoryUtilization of modelSpec chat"
    )
    # a MIG slice is not a whole GPU: not sized
    assert "accelerator" not in second.data["spec"].get("resources", {})


def test_the_default_context_is_the_models_maximum_with_the_vllm_note() -> None:
    extra = """
      nodeSelectorTerms:
        - matchExpressions:
            - {key: cloud.google.com/gke-accelerator, operator: In, values: [nvidia-l4]}
"""
    (manifest,) = adapt(ENTRY.format(extra=extra.rstrip())).manifests
    assert manifest.data["spec"]["serving"]["maxContextTokens"] == 131072
    origin = manifest.provenance.origin(("spec", "serving", "maxContextTokens"))
    assert (origin.kind, origin.path) == ("default", ("servingEngineSpec", "modelSpec", 0))
    assert origin.note == "vLLM default: the model's maximum context (131,072 tokens)"


def test_keda_scales_to_zero_by_default_and_ray_spans_nodes() -> None:
    extra = """
      keda: {enabled: true}
    - name: big
      modelURL: meta-llama/Llama-3.1-70B-Instruct
      replicaCount: 1
      requestGPU: 8
      raySpec: {enabled: true, headNode: {requestCPU: 4, requestMemory: 16Gi, requestGPU: 8}}
      keda: {enabled: true, minReplicaCount: 1, maxReplicaCount: 2}
"""
    small, big = specs(adapt(ENTRY.format(extra=extra.rstrip())))
    assert small["lifecycle"] == {"scaleToZero": True, "idleShutdownMinutes": 5}
    assert small["serving"]["replicas"] == 0
    assert big["resources"]["nodes"] == 2  # a head and replicaCount workers
    assert big["serving"]["replicas"] == 1
    assert big["serving"]["maxReplicas"] == 2
    assert "lifecycle" not in big


def test_a_disabled_engine_or_entry_is_no_workload() -> None:
    disabled = ENTRY.format(extra="      enabled: false")
    assert adapt(disabled).manifests == []
    off = "servingEngineSpec:\n  enableEngine: false\n" + ENTRY.format(extra="").split("\n", 2)[2]
    assert adapt(off).manifests == []


def test_wrong_values_are_reported_at_their_place() -> None:
    extra = """
      vllmConfig:
        dtype: double
        extraArgs: ["--gpu-memory-utilization", "2"]
    - just a string
"""
    adapted = adapt(ENTRY.format(extra=extra.rstrip()))
    assert [(f.location.span.line, f.message) for f in adapted.findings] == [
        (
            14,
            "vLLM vllmConfig.dtype of modelSpec chat: 'double' is not one of auto, bfloat16, "
            "float, float16, float32, half",
        ),
        (
            15,
            "vLLM --gpu-memory-utilization: '2' is above 1 (vllmConfig.extraArgs of modelSpec chat)",
        ),
        (16, "servingEngineSpec.modelSpec[1] must be a mapping"),
    ]


def test_an_automatic_context_is_left_to_vllm() -> None:
    extra = """
      vllmConfig:
        maxModelLen: auto
"""
    (manifest,) = adapt(ENTRY.format(extra=extra.rstrip())).manifests
    assert "maxContextTokens" not in manifest.data["spec"]["serving"]
