"""The ``scaling`` fact: the autoscaler of the run that scales a workload (KEDA ScaledObject,
HorizontalPodAutoscaler, gpulint's Autoscaler), and the ``environment`` fact's words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import lint

from linter.facts import Facts, run_index
from linter.load.discovery import find_candidates
from linter.policy.loader import Rulebook
from linter.run.runner import collect

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: chat, namespace: {namespace}, labels: {{env: Test, tier: web-front}}}}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: [--model, Qwen/Qwen2.5-7B-Instruct]
          resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""

IDLE_PRONE_SERVICE = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata:
  name: chat
  namespace: ml-latest
  labels: {tier: web-front, env: Test}
spec:
  profile: inference
  resources:
    accelerator: {type: H100-80GB, count: 1}
"""

SCALED_OBJECT = """\
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {{name: {name}, namespace: ml}}
spec:
  scaleTargetRef: {{name: chat}}
{extra}"""

HPA = """\
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: chat-hpa, namespace: ml}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: chat}
  maxReplicas: 3
"""


def _facts(tmp_path: Path, *documents: str) -> dict[str, Any]:
    """Every fact of the run's one workload."""
    (tmp_path / "run.yaml").write_text("---\n".join(documents))
    manifests = collect(find_candidates([str(tmp_path)], []).candidates).manifests
    run = run_index(manifests)
    (workload,) = [m for m in manifests if m.kind == "Workload"]
    facts = Facts(workload, run)
    return {"scaling": facts["scaling"], "environment": facts["environment"]}


def test_a_scaled_object_with_keda_defaults_scales_its_deployment_to_zero(tmp_path: Path) -> None:
    found = _facts(
        tmp_path, DEPLOYMENT.format(namespace="ml"), SCALED_OBJECT.format(name="s", extra="")
    )["scaling"]
    assert found == {
        "scaledBy": "ScaledObject ml/s",
        "minReplicas": 0,
        "maxReplicas": 100,
        "scalesToZero": True,
        "related": [
            {
                "file": str(tmp_path / "run.yaml"),
                "document": 1,
                "part": 0,
                "path": "spec.minReplicas",
                "message": "ScaledObject ml/s keeps 0 replicas with no load",
            }
        ],
    }


def test_an_hpa_keeps_one_replica_by_default(tmp_path: Path) -> None:
    found = _facts(tmp_path, DEPLOYMENT.format(namespace="ml"), HPA)["scaling"]
    assert (found["scaledBy"], found["minReplicas"], found["maxReplicas"]) == (
        "HorizontalPodAutoscaler ml/chat-hpa",
        1,
        3,
    )
    assert found["scalesToZero"] is False


def test_idle_replica_count_scales_to_zero_and_the_lowest_minimum_wins(tmp_path: Path) -> None:
    idle = SCALED_OBJECT.format(name="idle", extra="  minReplicaCount: 2\n  idleReplicaCount: 0\n")
    found = _facts(tmp_path, DEPLOYMENT.format(namespace="ml"), HPA, idle)["scaling"]
    assert (found["scaledBy"], found["minReplicas"], found["scalesToZero"]) == (
        "ScaledObject ml/idle",
        0,
        True,
    )


def test_an_autoscaler_in_another_namespace_does_not_scale_it(tmp_path: Path) -> None:
    found = _facts(
        tmp_path, DEPLOYMENT.format(namespace="prod"), SCALED_OBJECT.format(name="s", extra="")
    )["scaling"]
    assert (found["scaledBy"], found["scalesToZero"], found["related"]) == (None, False, [])


SCALED_JOB = """\
apiVersion: keda.sh/v1alpha1
kind: ScaledJob
metadata: {{name: batch, namespace: ml}}
spec:
{extra}  jobTargetRef:
    template:
      spec:
        restartPolicy: Never
        containers:
          - name: vllm
            image: vllm/vllm-openai:v0.11.0
            args: [--model, Qwen/Qwen2.5-7B-Instruct]
            resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""


def test_a_scaled_job_is_its_own_workload_and_its_own_autoscaler(tmp_path: Path) -> None:
    found = _facts(tmp_path, SCALED_JOB.format(extra=""))["scaling"]
    assert found == {
        "scaledBy": "ScaledJob ml/batch",
        "minReplicas": 0,
        "maxReplicas": 100,
        "scalesToZero": True,
        "related": [
            {
                "file": str(tmp_path / "run.yaml"),
                "document": 0,
                "part": 1,
                "path": "spec.minReplicas",
                "message": "ScaledJob ml/batch keeps 0 replicas with no load",
            }
        ],
    }


def test_a_scaled_job_keeping_jobs_does_not_scale_to_zero(tmp_path: Path) -> None:
    extra = "  minReplicaCount: 2\n  maxReplicaCount: 5\n"
    found = _facts(tmp_path, SCALED_JOB.format(extra=extra))["scaling"]
    assert (found["scaledBy"], found["minReplicas"], found["maxReplicas"]) == (
        "ScaledJob ml/batch",
        2,
        5,
    )
    assert found["scalesToZero"] is False


def test_a_scaled_job_does_not_scale_a_deployment_of_its_name(tmp_path: Path) -> None:
    deployment = DEPLOYMENT.format(namespace="ml").replace("name: chat", "name: batch")
    manifests_text = (deployment, SCALED_JOB.format(extra=""))
    (tmp_path / "run.yaml").write_text("---\n".join(manifests_text))
    manifests = collect(find_candidates([str(tmp_path)], []).candidates).manifests
    run = run_index(manifests)
    scaled = {
        m.source_kind: Facts(m, run)["scaling"]["scaledBy"]
        for m in manifests
        if m.kind == "Workload"
    }
    assert scaled == {"Deployment": None, "ScaledJob": "ScaledJob ml/batch"}


def test_environment_words_are_whole_lower_case_words_with_their_place(tmp_path: Path) -> None:
    environment = _facts(tmp_path, DEPLOYMENT.format(namespace="ml-latest"))["environment"]
    assert environment["words"] == [
        {"word": "chat", "where": "name chat"},
        {"word": "ml", "where": "namespace ml-latest"},
        {"word": "latest", "where": "namespace ml-latest"},
        {"word": "test", "where": "label env: Test"},
        {"word": "web", "where": "label tier: web-front"},
        {"word": "front", "where": "label tier: web-front"},
    ]
    assert environment["wordList"] == ["chat", "ml", "latest", "test", "web", "front"]


def test_gl201_names_where_the_first_idle_prone_word_is_written(
    tmp_path: Path, rulebook: Rulebook
) -> None:
    """The words are tested as a list of strings; the place comes from the word records: the
    first idle-prone word, not the first word of the first label."""
    (tmp_path / "chat.yaml").write_text(IDLE_PRONE_SERVICE)
    found = lint([tmp_path], rulebook, select=["GL201"]).findings
    assert [(f.rule_id, f.location.span.line) for f in found] == [("GL201", 9)]
    assert found[0].message == (
        "inference service on 1 GPU is marked as not production (label env: Test) but never "
        "releases them"
    )
