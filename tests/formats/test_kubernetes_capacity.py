"""Kubernetes capacity objects read as CapacityLimit documents: what each kind yields, where its
problems are reported (the fixtures run in test_fixture_folders.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, lint

from linter.formats import MARKERS, InputFile, recognise
from linter.formats.kubernetes import capacity as kubernetes_capacity
from linter.formats.kubernetes.quantity import parse_quantity
from linter.load.discovery import find_candidates
from linter.model.manifest import Manifest
from linter.model.values import ValueProblem
from linter.policy.loader import Rulebook
from linter.run.runner import collect

FIXTURES = REPO / "tests" / "formats" / "kubernetes_capacity"
SELECT = ("GL001", "GL002", "GL307")


def _fixtures(kind: str) -> list[Path]:
    return sorted((FIXTURES / kind).glob("*.yaml"))


def _limits(path: Path) -> list[Manifest]:
    return collect(find_candidates([str(path)], []).candidates).manifests


def test_a_cluster_queue_is_one_limit_per_flavor_with_its_cohort() -> None:
    _, _, queue, local = _limits(FIXTURES / "good" / "kueue-admin-setup.yaml")
    assert (queue.format, queue.source_kind, queue.kind) == (
        "kubernetes-capacity",
        "ClusterQueue",
        "CapacityLimit",
    )
    assert queue.data["spec"] == {
        "scope": "queue",
        "cohort": "research",
        "limits": [
            {"vendor": "nvidia", "gpus": 0.0, "flavor": "default-flavor"},
            {
                "vendor": "nvidia",
                "gpus": 16.0,
                "flavor": "spot-h100",
                "borrowingLimit": 8.0,
                "lendingLimit": 4.0,
            },
        ],
    }
    assert local.data["metadata"] == {"name": "user-queue", "namespace": "default"}
    assert local.data["spec"] == {
        "scope": "localQueue",
        "clusterQueue": "cluster-queue",
        "matchLabels": {"kueue.x-k8s.io/queue-name": "user-queue"},
    }


def test_a_resource_flavor_is_the_gpu_types_its_node_labels_pin() -> None:
    default, spot, _, _ = _limits(FIXTURES / "good" / "kueue-admin-setup.yaml")
    assert (default.source_kind, default.data["spec"]) == ("ResourceFlavor", {"scope": "flavor"})
    assert spot.data["spec"] == {"scope": "flavor", "accelerators": ["h100"]}
    where = spot.location(("spec", "accelerators", 0))
    assert (where.span.line, where.source_path) == (
        14,
        ("spec", "nodeLabels", "karpenter.k8s.aws/instance-gpu-name"),
    )


def test_each_value_points_at_its_key_in_the_objects_own_words() -> None:
    _, _, queue, local = _limits(FIXTURES / "good" / "kueue-admin-setup.yaml")
    gpus = ("spec", "limits", 1, "gpus")
    assert queue.provenance.name(gpus) == "nominalQuota of nvidia.com/gpu in flavor spot-h100"
    location = queue.location(gpus)
    assert (location.span.line, location.source_path) == (
        43,
        ("spec", "resourceGroups", 0, "flavors", 1, "resources", 2, "nominalQuota"),
    )
    assert queue.location(("spec", "cohort")).span.line == 22
    assert local.location(("spec", "matchLabels")).span.line == 54


def test_a_resource_quota_counts_each_vendors_requests() -> None:
    [quota] = _limits(FIXTURES / "good" / "resource-quota.yaml")
    assert quota.data["metadata"] == {"name": "compute-resources", "namespace": "ml-serving"}
    assert quota.data["spec"] == {
        "scope": "namespace",
        "limits": [{"vendor": "nvidia", "gpus": 8.0}, {"vendor": "amd", "gpus": 4.0}],
    }
    assert quota.provenance.name(("spec", "limits", 1, "gpus")) == "spec.hard requests.amd.com/gpu"


def test_a_node_pool_keeps_its_limit_and_what_its_nodes_are_pinned_to() -> None:
    [pool] = _limits(FIXTURES / "good" / "karpenter-gpu-nodepool.yaml")
    assert pool.data["spec"] == {
        "scope": "nodePool",
        "matchPools": ["karpenter.sh/nodepool=gpu-h100"],
        "accelerators": ["h100"],
        "capacity": ["on-demand", "reserved"],
        "limits": [{"vendor": "nvidia", "gpus": 32.0}],
    }
    assert pool.location(("spec", "capacity", 1)).span.line == 23


def test_problems_are_said_in_the_objects_words(rulebook: Rulebook) -> None:
    result = lint([FIXTURES / "bad" / "broken-values.yaml"], rulebook, SELECT)
    assert [(f.location.span.line, f.message) for f in result.findings] == [
        (
            13,
            "nominalQuota of nvidia.com/gpu in flavor h100: '{{ .Values.gpuQuota }}' is a "
            "template placeholder, not a quantity: lint the rendered output "
            "(helm template ... | gpulint check -)",
        ),
        (27, "borrowingLimit of nvidia.com/gpu in flavor h100 needs spec.cohort: Kueue rejects it"),
        (31, "metadata.name is missing"),
        (41, "spec.clusterQueue is missing"),
        (
            52,
            "spec.hard limits.nvidia.com/gpu is never enforced: a ResourceQuota counts "
            "nvidia.com/gpu only as requests.nvidia.com/gpu",
        ),
        (
            60,
            "spec.limits nvidia.com/gpu: '${MAX_GPUS}' is a template placeholder, not a "
            "quantity: lint the rendered output (helm template ... | gpulint check -)",
        ),
        (
            65,
            "metadata.name: String should match pattern '^[a-z0-9]([a-z0-9._-]*[a-z0-9])?$' "
            "(got 'GPU_Pool')",
        ),
        (
            80,
            "karpenter.sh/capacity-type Spot: Input should be 'on-demand', 'spot' or 'reserved' "
            "(got 'Spot')",
        ),
        (89, "spec.resourceGroups must be a list"),
    ]


@pytest.mark.parametrize(
    ("api_version", "kind", "ours"),
    [
        ("kueue.x-k8s.io/v1beta1", "ClusterQueue", True),
        ("kueue.x-k8s.io/v1beta2", "LocalQueue", True),
        ("kueue.x-k8s.io/v1", "ClusterQueue", True),
        ("v1", "ResourceQuota", True),
        ("karpenter.sh/v1", "NodePool", True),
        ("karpenter.sh/v1beta1", "NodePool", True),
        ("kueue.x-k8s.io/v1beta1", "ResourceFlavor", True),
        ("kueue.x-k8s.io/v1beta1", "WorkloadPriorityClass", False),
        ("container.cnrm.cloud.google.com/v1beta1", "ContainerNodePool", False),
        ("example.com/v1", "NodePool", False),
        ("apps/v1", "ResourceQuota", False),
        ("apps/v1", "Deployment", False),
        (1, "ClusterQueue", False),
    ],
)
def test_recognised_by_api_group_and_kind(api_version: Any, kind: str, ours: bool) -> None:
    data = {"apiVersion": api_version, "kind": kind, "metadata": {"name": "x"}}
    found = recognise(data, InputFile("x.yaml", Path("x.yaml"), ""))
    assert (found is kubernetes_capacity) is ours
    if ours:  # the byte pre-filter lets every such document through
        text = json.dumps(data).encode()
        assert any(marker in text for marker in MARKERS)


def test_broken_yaml_of_these_kinds_is_not_claimed() -> None:
    assert kubernetes_capacity.claims("kind: ClusterQueue\nspec: {{ .Values.spec }}") is False


def test_a_folder_of_other_kubernetes_objects_is_skipped(
    tmp_path: Path, rulebook: Rulebook
) -> None:
    (tmp_path / "priority.yaml").write_text(
        "apiVersion: kueue.x-k8s.io/v1beta1\nkind: WorkloadPriorityClass\n"
        "metadata: {name: low}\nvalue: 100\n"
    )
    result = lint([tmp_path], rulebook)
    assert (result.files_checked, result.findings) == (0, [])


@pytest.mark.parametrize(
    ("value", "number"),
    [
        (8, 8.0),
        ("16", 16.0),
        (1.5, 1.5),
        ("500m", 0.5),
        ("1k", 1000.0),
        ("2Ki", 2048.0),
        ("1e3", 1000.0),
        ("1E", 1e18),
        (" 4 ", 4.0),
    ],
)
def test_kubernetes_quantities(value: Any, number: float) -> None:
    assert parse_quantity(value) == number


@pytest.mark.parametrize("value", [True, None, [8], "eight", "8 GPUs", "1Kb", ""])
def test_what_is_not_a_quantity(value: Any) -> None:
    with pytest.raises(ValueProblem, match="is not a Kubernetes quantity"):
        parse_quantity(value)


def test_a_native_capacity_limit_is_linted_like_the_object_it_came_from(
    tmp_path: Path, rulebook: Rulebook
) -> None:
    """What gpulint understood of the objects, written as gpulint.dev documents (as ``gpulint
    convert`` prints it), gives the same findings at the same documents."""
    original = REPO / "tests" / "rules" / "GL307" / "bad" / "queue-two-jobs.yaml"
    native = tmp_path / "native.yaml"
    native.write_text("---\n".join(json.dumps(m.data) + "\n" for m in _limits(original)))
    expected = lint([original], rulebook, SELECT).findings
    converted = lint([native], rulebook, SELECT).findings
    assert [(f.rule_id, f.level, f.location.document) for f in converted] == [
        (f.rule_id, f.level, f.location.document) for f in expected
    ]
    assert converted[0].message == (
        "queue team-a allows 8 nvidia GPUs at once, but the workloads of this run drawing on it "
        "need 12 nvidia GPUs"
    )
    assert (converted[0].fix or "").endswith(
        "(spec.limits[0].gpus: 8; the workloads: pretrain with 8 and finetune with 4)"
    )


def test_a_finding_on_an_object_is_suppressed_on_its_own_line(
    tmp_path: Path, rulebook: Rulebook
) -> None:
    original = REPO / "tests" / "rules" / "GL307" / "bad" / "queue-two-jobs.yaml"
    text = original.read_text().replace(
        "nominalQuota: 8  # expect: GL307",
        "nominalQuota: 8  # gpulint: ignore[GL307] jobs of this queue are meant to run in turn",
    )
    (tmp_path / "queue.yaml").write_text(text)
    result = lint([tmp_path / "queue.yaml"], rulebook, SELECT)
    assert [(f.rule_id, f.location.span.line, f.suppressed_reason) for f in result.findings] == [
        ("GL307", 18, "jobs of this queue are meant to run in turn"),
        ("GL307", 34, None),
        ("GL307", 47, None),
    ]
