"""A comment that skips a whole manifest.

A Kubernetes file holding ``{{ ... }}`` anywhere (a comment, a ConfigMap's data) was skipped as
an unrendered chart template, silently in a directory run: a GPU Deployment beside it that does
not fit its GPU was never linted. Now recognition is decided per document on its parsed
structure; only a file that does not parse because of a template action is a template, and it
is reported (a GL010 note at the action, a line on stderr, the report's skipped list), as is a
Helm chart's ``templates`` folder, which is not entered.
"""

from __future__ import annotations

import json
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
CONFIG_MAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: prompts
data:
  system: "You answer for {{ .Values.company }}."
---
"""
# an action inside a value: not YAML until rendered, and not read around
TEMPLATE = DEPLOYMENT.replace("replicas: 1", "replicas: {{ .Values.replicas }}0")
TEMPLATE_REASON = "a template that is YAML only once rendered; lint what renders it"


def _errors(report: str) -> list[tuple[str, str, int]]:
    findings = json.loads(report)["findings"]
    return [(f["file"], f["ruleId"], f["line"]) for f in findings if f["severity"] == "error"]


@pytest.mark.parametrize(
    "text",
    [
        "# rendered from {{ .Values.name }} once\n" + DEPLOYMENT,
        DEPLOYMENT + "# {{- if .Values.enabled }}\n",
        CONFIG_MAP + DEPLOYMENT,
        DEPLOYMENT.replace(
            "metadata:\n  name: vllm", "metadata:\n  name: vllm\n  annotations: {note: '{{ x }}'}"
        ),
    ],
    ids=["comment-before", "comment-after", "configmap-data", "annotation-value"],
)
def test_a_template_action_outside_the_structure_hides_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "vllm.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    result = run_cli("check", "--format", "json", "deploy")
    line = text.splitlines().index("              nvidia.com/gpu: 1") + 1
    assert _errors(result.out) == [("deploy/vllm.yaml", "GL101", line)]
    assert json.loads(result.out)["skipped"] == []


def test_a_template_in_a_directory_run_is_reported_never_silent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "vllm.yaml").write_text(TEMPLATE)
    monkeypatch.chdir(tmp_path)
    result = run_cli("check", "--format", "json", "deploy")
    report = json.loads(result.out)
    assert [(f["ruleId"], f["severity"], f["line"], f["column"]) for f in report["findings"]] == [
        ("GL010", "note", 6, 13)
    ]
    assert report["skipped"] == [{"file": "deploy/vllm.yaml", "reason": TEMPLATE_REASON}]
    assert result.err == f"gpulint: skipped deploy/vllm.yaml: {TEMPLATE_REASON}\n"
    assert result.code == 0


def test_a_chart_folder_says_its_templates_were_not_linted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: llm\nversion: 0.1.0\n")
    (chart / "templates" / "deployment.yaml").write_text(TEMPLATE)
    monkeypatch.chdir(tmp_path)
    reason = (
        "a Helm chart's templates, YAML only once rendered: helm template chart | gpulint check -"
    )
    text = run_cli("check", "chart")
    assert (text.code, text.out) == (0, "No problems found in 0 files.\n")
    assert text.err == f"gpulint: skipped chart/templates: {reason}\n"
    sarif = json.loads(run_cli("check", "--format", "sarif", "chart").out)
    (invocation,) = sarif["runs"][0]["invocations"]
    assert invocation["toolExecutionNotifications"] == [
        {
            "level": "note",
            "message": {"text": f"not linted: {reason}"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": "chart/templates", "uriBaseId": "%SRCROOT%"}
                    }
                }
            ],
        }
    ]


# A Helm-style file whose actions only wrap lines or stand for a whole value (a Kubeflow
# runtime in a chart's files/): read around them, so the model on too small a GPU is found.
HELM_LINES = DEPLOYMENT.replace(
    "metadata:\n  name: vllm\n",
    'metadata:\n  name: vllm\n  labels:\n    {{- include "labels" . | nindent 4 }}\n',
).replace(
    "image: vllm/vllm-openai:v0.11.0",
    "image: vllm/vllm-openai:v0.11.0\n          imagePullPolicy: {{ .Values.pullPolicy }}",
)


def test_a_template_of_action_lines_is_read_around_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "vllm.yaml").write_text(HELM_LINES)
    monkeypatch.chdir(tmp_path)
    result = run_cli("check", "--format", "json", "deploy")
    report = json.loads(result.out)
    found = [(f["ruleId"], f["severity"], f["line"]) for f in report["findings"]]
    assert found == [
        ("GL010", "note", 6),
        ("GL209", "note", 17),
        ("GL406", "note", 17),
        ("GL101", "error", 20),
    ]
    assert report["skipped"] == []
    assert result.code == 1


def test_a_templated_resources_block_is_not_a_pod_without_gpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``limits: {{ toYaml .Values.limits }}`` may hold the GPUs: unknown, not "no GPU" (GL108)."""
    text = DEPLOYMENT.replace(
        "limits:\n              nvidia.com/gpu: 1",
        "limits: {{ toYaml .Values.limits | nindent 14 }}",
    )
    (tmp_path / "vllm.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    report = json.loads(run_cli("check", "--format", "json", "vllm.yaml").out)
    assert [(f["ruleId"], f["line"]) for f in report["findings"]] == [
        ("GL406", 14),
        ("GL010", 16),
    ]


def test_colliding_branches_stay_a_template(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read around, both branches of an if/else would be one mapping with a key twice: the
    file is a template, as before, never two values guessed into one."""
    text = DEPLOYMENT.replace(
        "  replicas: 1\n",
        "  {{- if .Values.ha }}\n  replicas: 3\n  {{- else }}\n  replicas: 1\n  {{- end }}\n",
    )
    (tmp_path / "vllm.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    report = json.loads(run_cli("check", "--format", "json", "vllm.yaml").out)
    assert [(f["ruleId"], f["line"]) for f in report["findings"]] == [("GL010", 6)]
    assert report["skipped"] == [{"file": "vllm.yaml", "reason": TEMPLATE_REASON}]
