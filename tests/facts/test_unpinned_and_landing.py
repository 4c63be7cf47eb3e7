"""The ``unpinned`` fact (a workload requesting GPUs of no named type, sized on the catalogue)
and the run-wide ``landing`` fact (the GPU types it may land on: a node pool of the run, the
configuration's cluster inventory), on gpulint manifests and a Kubernetes Deployment."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

from linter.catalog.gpus import all_gpus
from linter.facts import memory
from linter.facts.subject import Subject
from linter.facts.unpinned import on_gpu
from linter.load.discovery import discover
from linter.run.runner import collect

UNPINNED = """apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata: {{name: chat}}
spec:
  profile: {profile}
  model: {{id: {model}}}
  serving: {{maxContextTokens: 8192}}
  fineTuning: {{method: lora}}
  resources:
    gpusOfUnknownType: {gpus}
{pool}"""

NODE_POOL = """apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {{name: gpu}}
spec:
  template:
    spec:
      requirements:
        - key: karpenter.k8s.aws/instance-gpu-name
          operator: In
          values: [{gpus}]
"""


def _workload(
    model: str = "meta-llama/Llama-3.1-70B-Instruct",
    gpus: int = 2,
    profile: str = "inference",
    pool: str | None = None,
) -> str:
    line = f"    pool: {pool}\n" if pool else ""
    return UNPINNED.format(model=model, gpus=gpus, profile=profile, pool=line)


def facts(
    tmp_path: Path, files: dict[str, str], config: str | None = None
) -> dict[str, dict[str, Any]]:
    """Each manifest's facts by file name, as ``gpulint facts`` prints them."""
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    args = ["facts", str(tmp_path)]
    if config is not None:
        (tmp_path / "inventory.yaml").write_text(config, encoding="utf-8")
        args += ["--config", str(tmp_path / "inventory.yaml")]
    result = run_cli(*args)
    assert result.err == ""
    return {Path(entry["file"]).name: entry["facts"] for entry in json.loads(result.out)}


def test_a_70b_model_on_two_untyped_gpus_needs_an_80_gb_class_gpu(tmp_path: Path) -> None:
    found = facts(tmp_path, {"w.yaml": _workload()})["w.yaml"]["unpinned"]
    assert found == {
        "requested": True,
        "gpus": 2,
        "sized": True,
        "status": None,
        "reason": None,
        "fitsAny": True,
        "requiredGiB": 68.82,
        "runsOn": found["runsOn"],
        "smallestGpu": "A100-80GB",
        "smallestGpuGiB": 80.0,
    }
    assert found["runsOn"][:3] == ["A100-80GB", "H100-80GB", "H100-NVL"]
    assert "A800-80GB" not in found["runsOn"]  # vLLM's larger scheduler defaults off the A100


@pytest.mark.parametrize(
    ("model", "gpus", "profile"),
    [
        ("meta-llama/Llama-3.1-70B-Instruct", 2, "inference"),
        ("meta-llama/Llama-3.1-8B-Instruct", 1, "inference"),
        ("Qwen/Qwen2.5-32B-Instruct", 1, "inference"),
        ("meta-llama/Llama-3.1-8B-Instruct", 1, "fine-tuning"),
    ],
)
def test_runs_on_is_what_sizing_the_workload_on_each_gpu_says(
    tmp_path: Path, model: str, gpus: int, profile: str
) -> None:
    path = tmp_path / "w.yaml"
    path.write_text(_workload(model, gpus, profile), encoding="utf-8")
    (manifest,) = collect(discover([str(path)], [])).manifests
    subject = Subject(manifest)
    runs_on = facts(tmp_path, {})["w.yaml"]["unpinned"]["runsOn"]
    expected = set()
    for gpu in all_gpus():
        sized = memory.compute_as(subject, on_gpu(subject.workload, gpu.name))
        if sized.status != "checked":
            continue
        starts = sized.inference.starts if sized.inference is not None else None
        if starts if starts is not None else sized.fits:
            expected.add(gpu.name)
    assert set(runs_on) == expected and expected


def test_a_batch_beyond_the_kv_pool_queues_and_still_runs(tmp_path: Path) -> None:
    """vLLM starts when one full-length sequence fits; more concurrent ones wait."""
    text = _workload("meta-llama/Llama-3.1-8B-Instruct", 1).replace(
        "serving: {maxContextTokens: 8192}", "serving: {maxContextTokens: 8192, maxBatchSize: 256}"
    )
    config = "cluster:\n  gpus: [L4]\n"
    found = facts(tmp_path, {"w.yaml": text}, config)["w.yaml"]
    assert found["memory"]["status"] == "no-accelerator"
    assert [(c["gpu"], c["runs"]) for c in found["landing"]["candidates"]] == [("L4", True)]
    assert found["unpinned"]["requiredGiB"] < 22


def test_no_catalogued_gpu_holds_405b_on_one(tmp_path: Path) -> None:
    model = "meta-llama/Llama-3.1-405B-Instruct"
    found = facts(tmp_path, {"w.yaml": _workload(model, 1)})["w.yaml"]["unpinned"]
    assert (found["sized"], found["fitsAny"], found["runsOn"]) == (True, False, [])
    assert found["smallestGpu"] is None and found["requiredGiB"] > 700


def test_a_model_it_cannot_size_is_not_sized(tmp_path: Path) -> None:
    found = facts(tmp_path, {"w.yaml": _workload("acme/house-chat-v2")})["w.yaml"]["unpinned"]
    assert (found["requested"], found["sized"], found["status"]) == (True, False, "unknown-model")


def test_a_pinned_gpu_is_not_unpinned(tmp_path: Path) -> None:
    text = _workload().replace("gpusOfUnknownType: 2", "accelerator: {type: L4, count: 2}")
    found = facts(tmp_path, {"w.yaml": text})["w.yaml"]
    assert (found["unpinned"]["requested"], found["landing"]["inventory"]) == (False, False)


def test_without_an_inventory_there_are_no_candidates(tmp_path: Path) -> None:
    found = facts(tmp_path, {"w.yaml": _workload()})["w.yaml"]["landing"]
    assert (found["inventory"], found["source"], found["count"]) == (False, None, 0)


def test_the_cluster_inventory_gives_the_gpus_it_may_land_on(tmp_path: Path) -> None:
    config = "cluster:\n  gpus: [nvidia-l4, h100]\n"
    found = facts(tmp_path, {"w.yaml": _workload()}, config)["w.yaml"]["landing"]
    assert [(c["gpu"], c["runs"]) for c in found["candidates"]] == [
        ("L4", False),
        ("H100-80GB", True),
    ]
    assert (found["source"], found["failingText"], found["workingText"]) == (
        "the cluster inventory",
        "L4",
        "H100-80GB",
    )
    assert (found["someFail"], found["allFail"]) == (True, False)


@pytest.mark.parametrize(
    ("pool", "source", "gpus"),
    [
        ("small", "pool small of the cluster inventory", ["L4"]),
        (
            "cloud.google.com/gke-nodepool=big-pool",
            "pool big of the cluster inventory",
            ["A100-80GB"],
        ),
        ("elsewhere", "the cluster inventory", ["T4", "L4", "A100-80GB"]),
    ],
)
def test_a_pool_is_selected_by_its_name_or_a_selector_label(
    tmp_path: Path, pool: str, source: str, gpus: list[str]
) -> None:
    config = (
        "cluster:\n  pools:\n    small: {gpus: [L4]}\n    old: {gpus: [T4]}\n"
        "    big:\n      gpus: [A100-80GB]\n"
        "      selector: {cloud.google.com/gke-nodepool: big-pool}\n"
    )
    found = facts(tmp_path, {"w.yaml": _workload(pool=pool)}, config)["w.yaml"]["landing"]
    assert found["source"] == source
    assert sorted(c["gpu"] for c in found["candidates"]) == sorted(gpus)


def test_a_node_pool_of_the_run_wins_over_the_inventory(tmp_path: Path) -> None:
    files = {
        "w.yaml": _workload(pool="karpenter.sh/nodepool=gpu"),
        "pool.yaml": NODE_POOL.format(gpus='"l4", "h100", "no-such-gpu"'),
    }
    config = "cluster:\n  gpus: [T4]\n"
    found = facts(tmp_path, files, config)["w.yaml"]["landing"]
    assert found["source"] == "NodePool gpu"
    assert [(c["gpu"], c["usableGiB"], c["runs"]) for c in found["candidates"]] == [
        ("L4", 22.04, False),
        ("H100-80GB", 79.11, True),
    ]


def test_an_unknown_gpu_in_the_inventory_is_a_config_error_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "w.yaml").write_text(_workload(), encoding="utf-8")
    config = tmp_path / "inventory.yaml"
    config.write_text(
        "cluster:\n  pools:\n    big:\n      gpus: [H100, A100-8]\n", encoding="utf-8"
    )
    result = run_cli("check", "--config", str(config), str(tmp_path / "w.yaml"))
    assert result.code == 2
    assert f"{config}:4:7: cluster.pools.big.gpus: " in result.err
    assert "'A100-8' is not a GPU gpulint knows" in result.err


def test_a_slurm_partition_selects_the_inventory_pool_of_its_name(tmp_path: Path) -> None:
    script = (
        "#!/bin/bash\n#SBATCH --partition=gpu\n#SBATCH --gres=gpu:2\n#SBATCH --time=01:00:00\n"
        "vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 2 "
        "--max-model-len 8192\n"
    )
    config = "cluster:\n  gpus: [H100]\n  pools:\n    gpu: {gpus: [L4, A100-40GB]}\n"
    found = facts(tmp_path, {"serve.sbatch": script}, config)["serve.sbatch"]["landing"]
    assert (found["source"], found["failing"], found["allFail"]) == (
        "pool gpu of the cluster inventory",
        ["L4", "A100-40GB"],
        True,
    )


FIXTURES = Path(__file__).parent.parent / "formats" / "kubernetes" / "bad"


@pytest.mark.parametrize(
    ("folder", "severity", "failing", "working"),
    [
        ("nodepool-l4-and-h100", "warning", "L4", "H100-80GB"),
        ("nodepool-l4-only", "error", "L4", "none"),
    ],
)
def test_json_carries_the_verdict_and_its_figures(
    folder: str, severity: str, failing: str, working: str
) -> None:
    result = run_cli("check", "--format", "json", "--select", "GL110", str(FIXTURES / folder))
    (finding,) = json.loads(result.out)["findings"]
    assert (finding["severity"], Path(finding["file"]).name, finding["line"]) == (
        severity,
        "deployment.yaml",
        24,
    )
    assert finding["properties"] == {
        "requiredGiB": 67.48,
        "gpus": 2,
        "source": "NodePool gpu",
        "failing": failing,
        "working": working,
    }


def test_sarif_carries_the_figures_beside_the_fix() -> None:
    path = FIXTURES / "untyped-gpus-70b.yaml"
    result = run_cli("check", "--format", "sarif", "--select", "GL110", str(path))
    (found,) = json.loads(result.out)["runs"][0]["results"]
    assert (found["ruleId"], found["level"]) == ("GL110", "note")
    assert found["locations"][0]["physicalLocation"]["region"]["startLine"] == 23
    properties = found["properties"]
    assert {key: properties[key] for key in ("requiredGiB", "gpus", "smallestGpu")} == {
        "requiredGiB": 68.42,
        "gpus": 2,
        "smallestGpu": "A100-80GB",
    }
    assert properties["smallestGpuGiB"] == 80.0


def test_a_kueue_queue_lands_on_the_gpus_of_its_flavors(tmp_path: Path) -> None:
    folder = FIXTURES / "kueue-l4-flavor"
    files = {path.name: path.read_text(encoding="utf-8") for path in folder.iterdir()}
    found = facts(tmp_path, files)["job.yaml"]["landing"]
    assert (found["source"], found["failing"], found["allFail"]) == (
        "ClusterQueue serving (flavor l4)",
        ["L4"],
        True,
    )


def test_a_flavor_that_pins_no_gpu_leaves_the_queue_unknown(tmp_path: Path) -> None:
    folder = FIXTURES / "kueue-l4-flavor"
    files = {path.name: path.read_text(encoding="utf-8") for path in folder.iterdir()}
    files["queues.yaml"] = files["queues.yaml"].replace("nominalQuota: 0}", "nominalQuota: 4}")
    found = facts(tmp_path, files)["job.yaml"]["landing"]
    assert (found["inventory"], found["source"]) == (False, None)
