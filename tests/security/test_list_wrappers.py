"""Wrappers that hide workloads.

``kubectl get -o yaml`` writes ``kind: List`` with the objects under ``items:``; the API returns
typed lists (``DeploymentList``) whose items leave out ``apiVersion`` and ``kind``. A GPU
Deployment that does not fit its GPU, wrapped so, was a document of no kind gpulint knows and
was never linted. Now every list (of any kind ending in ``List``, a list inside a list too) is
read item by item, each item at its own lines.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from conftest import run_cli

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  replicas: 1
  template:
    spec:
      nodeSelector:
        cloud.google.com/gke-accelerator: nvidia-l4
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: ["--model", "meta-llama/Llama-3.1-70B-Instruct"]
          resources:
            limits:
              nvidia.com/gpu: 1
"""
CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: prompts}\ndata: {a: b}\n"
GPU_LINE = "nvidia.com/gpu: 1"


def _item(text: str, indent: int) -> str:
    """``text`` as an item of a block sequence indented by ``indent``."""
    body = textwrap.indent(text, " " * (indent + 2))
    return " " * indent + "- " + body[indent + 2 :]


def _list(*items: str, header: str = "apiVersion: v1\nkind: List\n") -> str:
    return header + "items:\n" + "".join(_item(item, 2) for item in items)


WRAPPED = {
    "kind-list": _list(CONFIG_MAP, DEPLOYMENT),
    "typed-list-without-item-kinds": _list(
        DEPLOYMENT.removeprefix("apiVersion: apps/v1\nkind: Deployment\n"),
        header="apiVersion: apps/v1\nkind: DeploymentList\nmetadata: {resourceVersion: '7'}\n",
    ),
    "list-in-a-list": _list(CONFIG_MAP, _list(DEPLOYMENT)),
    "after-a-document": CONFIG_MAP + "---\n" + _list(DEPLOYMENT),
}


def _errors(report: str) -> list[tuple[str, int, int | None]]:
    findings = json.loads(report)["findings"]
    return [(f["ruleId"], f["line"], f["document"]) for f in findings if f["severity"] == "error"]


def _line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.strip() == needle)


@pytest.mark.parametrize("text", WRAPPED.values(), ids=WRAPPED.keys())
def test_a_workload_in_a_list_is_linted_at_its_own_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "all.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    result = run_cli("check", "--format", "json", "deploy")
    (error,) = _errors(result.out)
    assert error[:2] == ("GL101", _line_of(text, GPU_LINE))
    assert result.code == 1


def test_kubectl_json_output_is_read_item_by_item(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ruamel.yaml import YAML

    deployment = YAML(typ="safe").load(DEPLOYMENT)
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": [deployment]}, indent=2)
    (tmp_path / "all.json").write_text(text)
    monkeypatch.chdir(tmp_path)
    result = run_cli("check", "--format", "json", "all.json")
    assert _errors(result.out) == [("GL101", _line_of(text, '"nvidia.com/gpu": 1'), 0)]


def test_items_are_documents_of_their_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two workloads in one list are two documents: each has its findings, and a suppression
    on one item's line holds for that item only."""
    second = DEPLOYMENT.replace("name: vllm\nspec", "name: other\nspec").replace(
        GPU_LINE, GPU_LINE + "  # gpulint: ignore[GL101] sized by the platform team"
    )
    text = _list(DEPLOYMENT, second)
    (tmp_path / "all.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    report = json.loads(run_cli("check", "--format", "json", "all.yaml").out)
    gl101 = [
        (f["line"], f["document"], f["suppressed"] is not None)
        for f in report["findings"]
        if f["ruleId"] == "GL101"
    ]
    lines = [n for n, line in enumerate(text.splitlines(), 1) if GPU_LINE in line]
    assert gl101 == [(lines[0], 0, False), (lines[1], 1, True)]


def test_a_broken_list_of_gpu_workloads_is_reported_in_a_directory_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A list that does not parse is claimed like a bare workload: its kind lines are items'."""
    text = _list(DEPLOYMENT.replace("replicas: 1", "replicas: [1"))
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "all.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    report = json.loads(run_cli("check", "--format", "json", "deploy").out)
    assert [f["ruleId"] for f in report["findings"]] == ["GL002"]
