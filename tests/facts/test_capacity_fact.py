"""The ``capacity`` fact: which limits each workload draws on, and what the run needs of each."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from linter.facts import Facts, capacity, run_index
from linter.facts.run import RunInputs, RunSide
from linter.load.discovery import find_candidates
from linter.run.runner import collect

QUEUE = """\
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {{name: {name}}}
spec:
  cohort: ml
  resourceGroups:
    - coveredResources: [nvidia.com/gpu]
      flavors:
        - name: h100
          resources:
            - {{name: nvidia.com/gpu, nominalQuota: {quota}{extra}}}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata: {{name: {name}, namespace: ml}}
spec: {{clusterQueue: {name}}}
"""

JOB = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata:
  name: {name}
  namespace: ml
  labels: {{kueue.x-k8s.io/queue-name: {queue}}}
spec:
  profile: training
  resources:
    accelerator: {{type: H100-80GB, count: {gpus}}}
"""


def _facts(tmp_path: Path, *documents: str) -> dict[str, dict[str, Any]]:
    """``capacity`` of every manifest, by kind and name (``ClusterQueue/team-a``, ``job``)."""
    (tmp_path / "run.yaml").write_text("---\n".join(documents))
    found = find_candidates([str(tmp_path)], []).candidates
    manifests = collect(found).manifests
    run = run_index(manifests)
    out = {}
    for manifest in manifests:
        facts = Facts(manifest, run)
        if "capacity" in facts:
            kind = "" if manifest.kind == "Workload" else f"{manifest.source_kind}/"
            out[kind + manifest.name] = facts["capacity"]
    return out


def test_a_workload_draws_on_its_queue_through_its_local_queue(tmp_path: Path) -> None:
    facts = _facts(
        tmp_path,
        QUEUE.format(name="team-a", quota=8, extra=""),
        JOB.format(name="pretrain", queue="team-a", gpus=8),
        JOB.format(name="finetune", queue="team-a", gpus=4),
    )
    [draw] = facts["pretrain"]["draws"]
    assert {k: draw[k] for k in ("limit", "via", "allowed", "needed", "single", "path")} == {
        "limit": "ClusterQueue team-a",
        "via": "LocalQueue ml/team-a",
        "allowed": 8.0,
        "needed": 12.0,
        "single": 8.0,
        "path": "metadata.labels['kueue.x-k8s.io/queue-name']",
    }
    assert draw["sourceText"] == "nominalQuota of nvidia.com/gpu in flavor h100: 8"
    assert draw["workloadsText"] == "pretrain with 8 and finetune with 4"
    assert [(r["document"], r["path"]) for r in draw["related"]] == [
        (0, "spec.limits[0].gpus"),
        (1, "spec.clusterQueue"),
    ]
    [on_queue] = facts["ClusterQueue/team-a"]["draws"]
    assert (on_queue["single"], on_queue["singleName"], on_queue["path"]) == (
        8.0,
        "pretrain",
        "spec.limits[0].gpus",
    )
    assert [r["message"] for r in on_queue["related"]] == [
        "pretrain needs 8 nvidia GPUs",
        "finetune needs 4 nvidia GPUs",
    ]
    assert facts["LocalQueue/team-a"]["draws"] == []


def test_a_limit_names_the_first_workloads_and_counts_the_rest(tmp_path: Path) -> None:
    jobs = [JOB.format(name=f"job-{n}", queue="team-a", gpus=1) for n in range(7)]
    facts = _facts(tmp_path, QUEUE.format(name="team-a", quota=8, extra=""), *jobs)
    [draw] = facts["ClusterQueue/team-a"]["draws"]
    assert (draw["workloadCount"], draw["needed"], len(draw["related"])) == (7, 7.0, 5)
    assert draw["workloadsText"] == (
        "job-0 with 1, job-1 with 1, job-2 with 1, job-3 with 1, job-4 with 1 and 2 more"
    )


@pytest.mark.parametrize(
    ("extra", "allowed", "source"),
    [
        ("", 16.0, "lent by the other queues of cohort ml here: 8"),
        (", borrowingLimit: 2", 10.0, "borrowingLimit of nvidia.com/gpu in flavor h100: 2"),
    ],
)
def test_a_queue_in_a_cohort_may_borrow(
    tmp_path: Path, extra: str, allowed: float, source: str
) -> None:
    facts = _facts(
        tmp_path,
        QUEUE.format(name="team-a", quota=8, extra=extra),
        QUEUE.format(name="team-b", quota=12, extra=", lendingLimit: 8"),
        JOB.format(name="pretrain", queue="team-a", gpus=8),
    )
    [draw] = facts["pretrain"]["draws"]
    assert (draw["allowed"], draw["singleAllowed"]) == (allowed, allowed)
    assert draw["sourceText"] == f"nominalQuota of nvidia.com/gpu in flavor h100: 8, {source}"


def test_a_limit_declared_twice_is_not_judged(tmp_path: Path) -> None:
    facts = _facts(
        tmp_path,
        QUEUE.format(name="team-a", quota=8, extra=""),
        QUEUE.format(name="team-a", quota=64, extra="").split("---")[0],
        JOB.format(name="pretrain", queue="team-a", gpus=16),
    )
    assert facts["pretrain"] == {"draws": [], "ambiguous": ["ClusterQueue team-a"]}


@pytest.mark.parametrize(
    "job",
    [
        JOB.format(name="pretrain", queue="team-a", gpus=16).replace("  namespace: ml\n", ""),
        JOB.format(name="pretrain", queue="team-b", gpus=16),
        JOB.format(name="pretrain", queue="team-a", gpus=16).replace(
            "type: H100-80GB", "memoryGib: 80"
        ),
        JOB.format(name="pretrain", queue="team-a", gpus=16).replace("H100-80GB", "MI300X"),
    ],
    ids=["no namespace", "another queue", "GPU type unknown", "another vendor"],
)
def test_what_does_not_draw(tmp_path: Path, job: str) -> None:
    facts = _facts(tmp_path, QUEUE.format(name="team-a", quota=8, extra=""), job)
    draws = facts["pretrain"]["draws"]
    if "MI300X" in job:  # a queue covers only what it lists: 0 AMD GPUs
        assert [(d["vendor"], d["allowed"], d["sourceText"]) for d in draws] == [
            ("amd", 0.0, "it covers no amd GPUs")
        ]
    else:
        assert draws == []


def test_the_run_is_indexed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    build = capacity.index

    def counted(records: Any, inputs: RunInputs) -> Any:
        calls.append(records)
        return build(records, inputs)

    side = capacity.RUN
    monkeypatch.setattr(capacity, "RUN", RunSide(side.record, counted, side.fact, side.points_at))
    from linter import facts as registry

    provider = registry.PROVIDERS["capacity"]
    monkeypatch.setitem(
        registry.PROVIDERS,
        "capacity",
        type(provider)(provider.model, provider.reads, run=capacity.RUN, kinds=provider.kinds),
    )
    jobs = [JOB.format(name=f"job-{n}", queue="team-a", gpus=1) for n in range(20)]
    facts = _facts(tmp_path, QUEUE.format(name="team-a", quota=8, extra=""), *jobs)
    assert len(facts) == 22
    assert len(calls) == 1
