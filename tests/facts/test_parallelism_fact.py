"""The ``parallelism`` fact: the GPUs a replica reserves that its engine's sharding leaves idle,
and their share of the monthly cost."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from linter.facts import Facts, run_index
from linter.load.discovery import find_candidates
from linter.run.runner import collect

WORKLOAD = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata: {{name: chat}}
spec:
  profile: inference
  serving: {{engine: vllm, {serving}}}
  resources: {{provider: aws, region: us-east-1, instanceType: p5.48xlarge}}
  lifecycle: {{alwaysOn: customer chat}}
"""


def _facts(tmp_path: Path, serving: str) -> dict[str, Any]:
    (tmp_path / "chat.yaml").write_text(WORKLOAD.format(serving=serving))
    manifests = collect(find_candidates([str(tmp_path)], []).candidates).manifests
    facts = Facts(manifests[0], run_index(manifests))
    return {"parallelism": facts["parallelism"], "cost": facts["cost"]}


def test_half_the_gpus_of_two_replicas_idle_cost_half_the_price(tmp_path: Path) -> None:
    found = _facts(tmp_path, "tensorParallel: 4, replicas: 2")
    assert found["cost"]["monthly"] == 80358.4  # two p5.48xlarge, 730 hours
    assert found["parallelism"] == {
        "engineGpus": 4,
        "pipelineParallel": 1,
        "dataParallel": 1,
        "gpusPerReplica": 8.0,
        "idleGpusPerReplica": 4.0,
        "idleGpus": 8.0,
        "idleMonthly": 40179.2,
        "idleMonthlyText": "$40,179.20",
    }


def test_data_parallel_ranks_use_the_rest(tmp_path: Path) -> None:
    found = _facts(tmp_path, "tensorParallel: 4, dataParallel: 2")["parallelism"]
    assert (found["engineGpus"], found["idleGpusPerReplica"], found["idleMonthly"]) == (
        8,
        None,
        None,
    )


def test_an_undeclared_tensor_parallel_size_is_not_judged(tmp_path: Path) -> None:
    found = _facts(tmp_path, "maxContextTokens: 8192")["parallelism"]
    assert (found["engineGpus"], found["idleGpusPerReplica"]) == (None, None)
