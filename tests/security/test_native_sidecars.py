"""A GPU workload moved into a native sidecar.

Kubernetes 1.29 runs an init container with ``restartPolicy: Always`` as a sidecar: it starts
before the pod's containers and keeps running beside them, with its GPUs, for the pod's whole
life. gpulint read only ``containers``: a vLLM server moved into ``initContainers`` with that
policy, beside an unremarkable proxy container, was never sized, and a model that does not fit
its GPU passed. Now a pod's containers are its ``containers`` and its native sidecars; an init
container without the policy still runs to completion first and is not the workload.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli

VLLM = """\
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          restartPolicy: Always
          args: ["--model", "meta-llama/Llama-3.1-70B-Instruct"]
          resources:
            limits:
              nvidia.com/gpu: 1
"""
PROXY = """\
        - name: proxy
          image: envoyproxy/envoy:v1.31
"""
POD_SPEC = (
    "nodeSelector:\n  cloud.google.com/gke-accelerator: nvidia-l4\n"
    "initContainers:\n"
    + VLLM.replace("        ", "  ", 1).replace("\n          ", "\n    ")
    + "containers:\n"
    + PROXY.replace("        ", "  ", 1).replace("\n          ", "\n    ")
)


def _indent(text: str, spaces: int) -> str:
    return "".join(" " * spaces + line if line else line for line in text.splitlines(True))


OBJECTS = {
    "deployment": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: chat}\nspec:\n"
    "  replicas: 1\n  template:\n    spec:\n" + _indent(POD_SPEC, 6),
    "pod": "apiVersion: v1\nkind: Pod\nmetadata: {name: chat}\nspec:\n" + _indent(POD_SPEC, 2),
    "statefulset": "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: chat}\nspec:\n"
    "  serviceName: chat\n  template:\n    spec:\n" + _indent(POD_SPEC, 6),
}


def _errors(report: str) -> list[tuple[str, int, str]]:
    findings = json.loads(report)["findings"]
    return [(f["ruleId"], f["line"], f["message"]) for f in findings if f["severity"] == "error"]


def _gpu_line(text: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if "nvidia.com/gpu" in line)


@pytest.mark.parametrize("text", OBJECTS.values(), ids=OBJECTS.keys())
def test_a_gpu_server_in_a_native_sidecar_is_sized(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    (tmp_path / "chat.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    result = run_cli("check", "--format", "json", "chat.yaml")
    ((rule, line, message),) = _errors(result.out)
    assert (rule, line) == ("GL101", _gpu_line(text))
    assert message == (
        "70.6B parameters at bf16 need 131.42 GiB per GPU of 19.84 GiB usable on 1 x L4: "
        "vLLM does not start"
    )


def test_a_sidecars_gpus_add_to_the_containers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = OBJECTS["pod"].replace(
        "      image: envoyproxy/envoy:v1.31\n",
        "      image: envoyproxy/envoy:v1.31\n      resources: {limits: {nvidia.com/gpu: 1}}\n",
    )
    (tmp_path / "chat.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    (workload,) = json.loads(run_cli("facts", "chat.yaml").out)
    assert workload["workload"]["spec"]["resources"]["accelerator"]["count"] == 2


def test_an_init_container_that_runs_to_completion_is_not_the_workload(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = OBJECTS["pod"].replace("      restartPolicy: Always\n", "")
    (tmp_path / "chat.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    assert _errors(run_cli("check", "--format", "json", "chat.yaml").out) == []
