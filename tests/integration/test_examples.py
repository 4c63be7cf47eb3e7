"""The bundled examples and compliant manifests: exactly the findings they are there to show."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, run_cli


def findings(*paths: Path, extra: tuple[str, ...] = ()) -> list[tuple[str, str, int]]:
    result = run_cli("check", "--format", "json", *extra, *map(str, paths))
    assert result.err == ""
    root = REPO.as_posix() + "/"
    return [
        (f["ruleId"], f["file"].removeprefix(root), f["line"])
        for f in json.loads(result.out)["findings"]
    ]


def test_examples_show_their_findings() -> None:
    assert findings(REPO / "examples") == [
        ("GL208", "examples/capacity/full-finetune.yaml", 12),
        ("GL203", "examples/capacity/full-finetune.yaml", 21),
        ("GL207", "examples/capacity/multi-node-from-scratch.yaml", 8),
        ("GL211", "examples/capacity/multi-node-from-scratch.yaml", 21),
        ("GL209", "examples/capacity/self-hosted-llama-70b.yaml", 11),
        ("GL205", "examples/capacity/shared-gpu-pool.yaml", 21),
        ("GL204", "examples/capacity/shared-gpu-pool.yaml", 43),
        ("GL205", "examples/capacity/shared-gpu-pool.yaml", 44),
        ("GL209", "examples/capacity/small-model-on-gpu.yaml", 10),
        ("GL210", "examples/capacity/small-model-on-gpu.yaml", 20),
        ("GL406", "examples/dstack/chat-service.dstack.yml", 11),
        ("GL202", "examples/dstack/train-spot.dstack.yml", 3),
        ("GL406", "examples/dstack/train-spot.dstack.yml", 19),
        ("GL202", "examples/finetune-spot.yaml", 27),
        ("GL204", "examples/kubernetes/llama-70b-on-two-l4.yaml", 19),
        ("GL209", "examples/kubernetes/llama-70b-on-two-l4.yaml", 25),
        ("GL406", "examples/kubernetes/llama-70b-on-two-l4.yaml", 25),
        ("GL101", "examples/kubernetes/llama-70b-on-two-l4.yaml", 28),
        ("GL307", "examples/kueue-team-queue/jobs.yaml", 10),
        ("GL203", "examples/kueue-team-queue/jobs.yaml", 21),
        ("GL307", "examples/kueue-team-queue/jobs.yaml", 34),
        ("GL203", "examples/kueue-team-queue/jobs.yaml", 44),
        ("GL307", "examples/kueue-team-queue/queue.yaml", 29),
        ("GL101", "examples/memory/70b-on-one-gpu.yaml", 18),
        ("GL206", "examples/memory/batch-16-long-context.yaml", 14),
        ("GL102", "examples/memory/batch-16-long-context.yaml", 34),
        ("GL102", "examples/production-stack/values.yaml", 37),
        ("GL302", "examples/quota-repo/train-a.yaml", 19),
        ("GL203", "examples/quota-repo/train-a.yaml", 20),
        ("GL302", "examples/quota-repo/train-b.yaml", 19),
        ("GL203", "examples/quota-repo/train-b.yaml", 20),
        ("GL401", "examples/residency/eu-assistant-global-profile.yaml", 24),
        ("GL209", "examples/skypilot/chat-service.yaml", 18),
        ("GL406", "examples/skypilot/chat-service.yaml", 18),
        ("GL202", "examples/skypilot/finetune-spot.yaml", 7),
        ("GL103", "examples/skypilot/finetune-spot.yaml", 9),
        ("GL202", "examples/skypilot/finetune-spot.yaml", 19),
        ("GL406", "examples/skypilot/finetune-spot.yaml", 20),
        ("GL201", "examples/training-no-idle-shutdown.yaml", 22),
    ]


def test_residency_compliant_by_region_but_not_by_routing() -> None:
    residency = REPO / "examples" / "residency"
    assert findings(
        residency / "eu-assistant-global-profile.yaml", residency / "eu-assistant-in-region.yaml"
    ) == [
        ("GL401", "examples/residency/eu-assistant-global-profile.yaml", 24),
    ]


def test_quota_is_summed_across_files() -> None:
    repo = REPO / "examples" / "quota-repo"
    assert [f[0] for f in findings(repo, extra=("--select", "GL3"))] == ["GL302", "GL302"]
    # each job alone fits the ledger
    assert findings(repo / "train-a.yaml", repo / "quotas.yaml", extra=("--select", "GL3")) == []


@pytest.mark.parametrize("name", ["inference", "fine-tuning", "training"])
def test_a_compliant_manifest_of_each_profile_has_no_finding(name: str) -> None:
    assert (
        findings(REPO / "tests" / "compliant" / f"{name}.yaml", extra=("--fail-on", "note")) == []
    )


def test_cross_file_pool_sharing_points_at_both(tmp_path: Path) -> None:
    body = "apiVersion: gpulint.dev/v1alpha1\nkind: Workload\nmetadata: {{name: {name}}}\nspec:\n  profile: {profile}\n  resources:\n    pool: shared-a100\n"
    (tmp_path / "train.yaml").write_text(body.format(name="trainer", profile="training"))
    (tmp_path / "serve.yaml").write_text(body.format(name="server", profile="inference"))
    result = run_cli("check", "--select", "GL205", "--format", "json", str(tmp_path))
    report = json.loads(result.out)["findings"]
    by_file = {Path(f["file"]).name: f for f in report}
    assert sorted(by_file) == ["serve.yaml", "train.yaml"]
    for name, other in (("serve.yaml", "train.yaml"), ("train.yaml", "serve.yaml")):
        finding = by_file[name]
        assert (finding["ruleId"], finding["line"], finding["column"]) == ("GL205", 7, 5)
        (related,) = finding["related"]
        assert (Path(related["file"]).name, related["line"], related["column"]) == (other, 7, 5)


def test_a_queue_and_the_jobs_that_exceed_it_point_at_each_other() -> None:
    result = run_cli(
        "check",
        "--select",
        "GL307",
        "--format",
        "sarif",
        str(REPO / "examples" / "kueue-team-queue"),
    )
    results = json.loads(result.out)["runs"][0]["results"]

    def place(location: dict[str, Any]) -> tuple[str, int]:
        physical = location["physicalLocation"]
        uri = physical["artifactLocation"]["uri"].rpartition("/")[2]
        return uri, physical["region"]["startLine"]

    assert [
        (place(r["locations"][0]), r["level"], [place(x) for x in r["relatedLocations"]])
        for r in results
    ] == [
        (("jobs.yaml", 10), "warning", [("queue.yaml", 29), ("queue.yaml", 37)]),
        (("jobs.yaml", 34), "warning", [("queue.yaml", 29), ("queue.yaml", 37)]),
        (("queue.yaml", 29), "warning", [("jobs.yaml", 10), ("jobs.yaml", 34)]),
    ]
