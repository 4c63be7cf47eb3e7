"""dstack configurations: recognition, every construct of issue 12 normalised with its origin and
dstack's defaults (the fixtures in tests/formats/dstack/ run in test_fixture_folders.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, run_cli
from launcher_files import (
    adapt,
    origin_line,
    problems,
    recognised_as,
    spec,
    workload,
)

from linter.formats.dstack.gpu import MEMORY_KEY
from linter.policy.loader import Rulebook

FIXTURES = REPO / "tests" / "formats" / "dstack"
NAME = ".dstack.yml"


def _adapt(tmp_path: Path, text: str) -> dict[str, Any]:
    return spec(adapt(tmp_path, text, NAME))


def test_published_style_service(tmp_path: Path) -> None:
    adapted = adapt(tmp_path, (FIXTURES / "good" / "service.dstack.yml").read_text(), NAME)
    manifest = workload(adapted)
    assert (manifest.format, manifest.source_kind, manifest.name) == (
        "dstack",
        "dstack service",
        "llama31",
    )
    data = manifest.data["spec"]
    assert data["profile"] == "inference"
    assert data["model"] == {"id": "meta-llama/Llama-3.1-8B-Instruct"}
    assert data["resources"] == {
        "accelerator": {MEMORY_KEY: 24.0, "count": 1},
        "capacity": "on-demand",
    }
    assert data["lifecycle"] == {"scaleToZero": True, "restartOnPreemption": False}
    assert data["serving"]["maxReplicas"] == 2
    assert "replicas" not in data["serving"]
    assert data["serving"]["tensorParallel"] == 1  # $DSTACK_GPUS_NUM: 1 GPU x 1 node
    assert origin_line(manifest, "spec.serving.maxContextTokens") == (13, 7)
    assert origin_line(manifest, "spec.resources.accelerator") == (24, 3)
    capacity = manifest.provenance.origins[("spec", "resources", "capacity")]
    assert (capacity.kind, capacity.note) == ("default", "dstack default: spot_policy on-demand")


@pytest.mark.parametrize(
    ("gpu", "expected"),
    [
        ("H100", [{"type": "H100-80GB", "count": 1}]),
        ("A100:80GB:2", [{"type": "A100-80GB", "count": 2}]),
        ("A100:40GB..:2", [{"type": "A100-40GB", "count": 2}]),
        ("24GB..", [{MEMORY_KEY: 24.0, "count": 1}]),
        ("40GB..80GB:1..2", [{MEMORY_KEY: 40.0, "count": 1}]),
        ("nvidia:24GB:2..", [{MEMORY_KEY: 24.0, "count": 2}]),
        ("A100,H100:4", [{"type": "A100-40GB", "count": 4}, {"type": "H100-80GB", "count": 4}]),
        ("MI300X:8", [{"type": "MI300X", "count": 8}]),
        ("2", None),
        (
            "{name: [L40S, A100], memory: 48GB.., count: {min: 2, max: 4}}",
            [
                {"type": "L40S", "count": 2},
                {"type": "A100-80GB", "count": 2},
            ],
        ),
    ],
)
def test_gpu_forms(tmp_path: Path, gpu: str, expected: list[dict[str, Any]] | None) -> None:
    text = f"type: task\ncommands: [python train.py]\nresources:\n  gpu: {gpu}\n"
    resources = _adapt(tmp_path, text)["resources"]
    found = [resources[k] for k in ("accelerator",) if k in resources] + [
        a["accelerator"] for a in resources.get("alternatives", [])
    ]
    assert found == (expected or [])


def test_the_image_tag_names_the_vllm_release(tmp_path: Path) -> None:
    text = (
        "type: service\nimage: vllm/vllm-openai:v0.10.1.1\nport: 8000\n"
        "commands: [vllm serve Qwen/Qwen2.5-7B-Instruct]\nresources: {gpu: L4}\n"
    )
    manifest = workload(adapt(tmp_path, text, NAME))
    assert manifest.data["spec"]["serving"]["engineVersion"] == "0.10.1"
    assert origin_line(manifest, "spec.serving.engineVersion") == (2, 1)


def test_a_gpu_count_alone_is_kept_as_gpus_of_unknown_type(tmp_path: Path) -> None:
    """``gpu: 2`` asks for any two GPUs: sized on every GPU it may land on, and without an
    inventory GL110 says what it needs, at the count."""
    text = (
        "type: task\ncommands: [vllm serve meta-llama/Llama-3.1-8B-Instruct]\n"
        "resources:\n  gpu: 2\n"
    )
    assert _adapt(tmp_path, text)["resources"]["gpusOfUnknownType"] == 2
    path = tmp_path / NAME
    result = run_cli("check", "--format", "json", "--select", "GL009,GL110", str(path))
    found = [(f["ruleId"], f["line"]) for f in json.loads(result.out)["findings"]]
    assert (result.code, found) == (0, [("GL110", 4)])


@pytest.mark.parametrize(
    ("gpu", "message"),
    [
        ("A100:H100", "gpu 'A100:H100' gives its name twice"),
        ("A100::2", "gpu 'A100::2' has an empty part"),
        ("{count: many}", "gpu count is a whole number or a range such as 1..2, got 'many'"),
        ("true", "gpu is a count, a name:memory:count shorthand or a mapping, got True"),
    ],
)
def test_gpu_specs_dstack_refuses(tmp_path: Path, gpu: str, message: str) -> None:
    text = f"type: task\ncommands: [x]\nresources:\n  gpu: {gpu}\n"
    assert [m for _, m in problems(adapt(tmp_path, text, NAME))] == [message]


def test_templated_values_are_reported_and_the_rest_is_read(tmp_path: Path) -> None:
    text = "type: task\nbackends: [aws]\nregions: ['{{ region }}']\ncommands: [x]\n"
    text += "resources:\n  gpu: ${GPU_SPEC}\n"
    adapted = adapt(tmp_path, text, NAME)
    # the adapter notes each placeholder; the run keeps the file's first
    # (test_kubernetes_fixtures.py: test_a_broken_document_does_not_hide_the_others)
    assert [(f.rule_id, f.location.span.line) for f in adapted.findings] == [
        ("GL010", 3),
        ("GL010", 6),
    ]
    assert (adapted.findings[1].message, adapted.findings[1].fix) == (
        "this file is a template (${GPU_SPEC}): gpulint lints what renders it",
        "lint the rendered output instead: envsubst < FILE | gpulint check - (or give the values "
        "in an `assume:` block of .gpulint.yaml); ${GPU_SPEC} in gpu is filled in only when "
        "rendered",
    )
    (manifest,) = adapted.manifests
    assert manifest.data["spec"]["resources"]["provider"] == "aws"


def test_env_as_list_and_mapping(tmp_path: Path) -> None:
    listed = (
        "type: task\n"
        "env:\n"
        "  - HF_TOKEN\n"
        "  - BASE=Qwen/Qwen2.5-7B\n"
        "commands:\n"
        "  - python train.py --model_name_or_path $BASE --output_dir /out\n"
        "resources: {gpu: A100}\n"
    )
    manifest = workload(adapt(tmp_path, listed, NAME))
    assert manifest.data["spec"]["model"] == {"id": "Qwen/Qwen2.5-7B"}
    assert manifest.data["spec"]["profile"] == "fine-tuning"
    mapping = (
        "type: task\nenv: {BASE: Qwen/Qwen2.5-7B}\ncommands: [trl sft --model_name_or_path $BASE]\n"
    )
    assert _adapt(tmp_path, mapping)["model"] == {"id": "Qwen/Qwen2.5-7B"}


@pytest.mark.parametrize(
    ("policy", "capacity"), [("spot", "spot"), ("on-demand", "on-demand"), ("auto", "spot")]
)
def test_spot_policy(tmp_path: Path, policy: str, capacity: str) -> None:
    text = f"type: task\nspot_policy: {policy}\ncommands: [x]\nresources: {{gpu: H100}}\n"
    assert _adapt(tmp_path, text)["resources"]["capacity"] == capacity


def test_spot_policy_auto_is_an_on_demand_fallback_for_a_service(tmp_path: Path) -> None:
    text = "type: service\nport: 80\nreplicas: 2\nspot_policy: auto\ncommands: [x]\n"
    manifest = workload(adapt(tmp_path, text, NAME))
    assert manifest.data["spec"]["serving"]["onDemandFallbackReplicas"] == 2
    assert origin_line(manifest, "spec.serving.onDemandFallbackReplicas") == (4, 1)


@pytest.mark.parametrize(
    ("retry", "restarts", "line"),
    [
        ("true", True, 3),
        ("false", False, 3),
        ("{on_events: [no-capacity, interruption]}", True, 3),
        ("{on_events: [error]}", False, 3),
        ("{duration: 2h}", True, 3),
    ],
)
def test_retry_on_interruption(tmp_path: Path, retry: str, restarts: bool, line: int) -> None:
    text = f"type: task\nspot_policy: spot\nretry: {retry}\ncommands: [x]\n"
    manifest = workload(adapt(tmp_path, text, NAME))
    assert manifest.data["spec"]["lifecycle"]["restartOnPreemption"] is restarts
    assert origin_line(manifest, "spec.lifecycle.restartOnPreemption")[0] == line


def test_retry_on_an_event_dstack_does_not_know(tmp_path: Path) -> None:
    text = "type: task\nretry:\n  on_events: [preemption]\ncommands: [x]\n"
    assert problems(adapt(tmp_path, text, NAME)) == [
        (3, "retry events are no-capacity, interruption, error, got 'preemption'")
    ]


@pytest.mark.parametrize(
    ("kind", "extra", "idle", "note"),
    [
        ("task", "", 5, "dstack default: idle_duration 5m for runs"),
        ("task", "idle_duration: 1h\n", 60, None),
        ("task", "idle_duration: off\n", None, None),
        ("task", "idle_duration: 3600\n", 60, None),
        ("fleet", "nodes: 0..2\n", 4320, "dstack default: idle_duration 3d for fleets"),
        ("fleet", "nodes: 0..2\nidle_duration: 30m\n", 30, None),
        ("dev-environment", "inactivity_duration: 2h\n", 120, None),
        (
            "dev-environment",
            "utilization_policy: {min_gpu_utilization: 10, time_window: 30m}\n",
            30,
            None,
        ),
    ],
)
def test_idle_shutdown_and_dstack_defaults(
    tmp_path: Path, kind: str, extra: str, idle: int | None, note: str | None
) -> None:
    text = f"type: {kind}\n{extra}resources: {{gpu: H100}}\n"
    manifest = workload(adapt(tmp_path, text, NAME))
    assert manifest.data["spec"]["lifecycle"]["idleShutdownMinutes"] == idle
    assert manifest.provenance.origins[("spec", "lifecycle", "idleShutdownMinutes")].note == note


def test_a_dev_environment_without_idle_settings_has_none(tmp_path: Path) -> None:
    found = _adapt(tmp_path, "type: dev-environment\nide: vscode\nresources: {gpu: H100}\n")
    assert found["profile"] == "dev"
    assert "idleShutdownMinutes" not in found["lifecycle"]


def test_max_duration_is_the_runtime_limit(tmp_path: Path) -> None:
    text = "type: task\nmax_duration: 1d\ncommands: [x]\n"
    assert _adapt(tmp_path, text)["lifecycle"]["maxRuntimeHours"] == 24


def test_fleet_is_capacity_with_a_pool(tmp_path: Path) -> None:
    manifest = workload(adapt(tmp_path, (FIXTURES / "bad" / "fleet.dstack.yml").read_text(), NAME))
    data = manifest.data["spec"]
    assert data["profile"] == "dev"
    assert data["resources"]["pool"] == "training-pool"
    assert data["resources"]["nodes"] == 2
    assert data["resources"]["instanceType"] == "p5.48xlarge"
    assert (data["resources"]["provider"], data["resources"]["region"]) == ("aws", "us-east-1")


def test_runs_in_a_fleet_share_its_pool(tmp_path: Path, rulebook: Rulebook) -> None:
    from conftest import lint

    (tmp_path / "train.dstack.yml").write_text(
        "type: task\nfleets: [gpu-pool]\ncommands: [python train.py --output_dir /o]\n"
        "resources: {gpu: H100:8}\n"
    )
    (tmp_path / "serve.dstack.yml").write_text(
        "type: service\nport: 80\nfleets: [gpu-pool]\ncommands: [vllm serve Qwen/Qwen2.5-7B]\n"
        "resources: {gpu: H100:1}\n"
    )
    result = lint([tmp_path], rulebook, select=("GL205",))
    found = sorted((Path(f.location.file).name, f.location.span.line) for f in result.findings)
    assert found == [("serve.dstack.yml", 3), ("train.dstack.yml", 2)]


def test_service_model_and_replica_range(tmp_path: Path) -> None:
    text = (
        "type: service\nport: 8000\nmodel: {name: Qwen/Qwen2.5-7B-Instruct, format: openai}\n"
        "replicas: 1..4\nscaling: {metric: rps, target: 5}\ncommands: [python serve.py]\n"
    )
    found = _adapt(tmp_path, text)
    assert found["model"] == {"id": "Qwen/Qwen2.5-7B-Instruct"}
    assert (found["serving"]["replicas"], found["serving"]["maxReplicas"]) == (1, 4)


def test_an_instance_volume_does_not_keep_checkpoints(tmp_path: Path) -> None:
    text = (
        "type: task\nspot_policy: spot\nvolumes:\n  - /mnt/nvme:/ckpt\n"
        "commands: [python train.py --model_name_or_path m/x --output_dir /ckpt/run]\n"
        "resources: {gpu: H100}\n"
    )
    manifest = workload(adapt(tmp_path, text, NAME))
    assert "uri" not in manifest.data["spec"]["checkpointing"]
    assert manifest.provenance.name(("spec", "checkpointing", "uri")) == (
        "--output_dir /ckpt/run in `commands`, on `volumes` /ckpt, which does not outlive the "
        "node: use a network volume in `volumes`"
    )


@pytest.mark.parametrize(
    ("text", "file_name", "expected"),
    [
        ("type: task\ncommands: [x]\n", "train.dstack.yml", "dstack"),
        ("type: task\ncommands: [x]\n", "train.yaml", "dstack"),
        ("type: task\ncommands: [x]\nsteps: [a]\n", "train.yaml", None),
        ("type: task\ncommands: [x]\nsteps: [a]\n", ".dstack.yml", "dstack"),
        ("type: gateway\nname: g\ndomain: x.io\n", ".dstack.yml", None),
        ("type: object\nproperties: {a: {type: string}}\n", "schema.yaml", None),
    ],
)
def test_recognition(tmp_path: Path, text: str, file_name: str, expected: str | None) -> None:
    assert recognised_as(tmp_path, text, file_name) == expected


def test_a_broken_file_is_reported_when_its_text_says_dstack(
    tmp_path: Path, rulebook: Rulebook
) -> None:
    from conftest import lint

    (tmp_path / "train.dstack.yml").write_text("type: task\ncommands: [python train.py\n")
    (tmp_path / "other.yaml").write_text("type: object\nproperties: [1\n")
    result = lint([tmp_path], rulebook)
    assert [(Path(f.location.file).name, f.rule_id) for f in result.findings] == [
        ("train.dstack.yml", "GL002")
    ]


def test_replica_groups_are_one_workload_each_at_their_own_lines(tmp_path: Path) -> None:
    """``replicas`` as a list of groups (dstack's disaggregated serving): each group is a
    workload with its own count, GPU and commands; the service's keys fill in the rest."""
    text = (
        "type: service\nname: pd\nimage: lmsysorg/sglang:v0.5.2\nport: 8000\n"
        "model: Qwen/Qwen2.5-7B-Instruct\n"
        "replicas:\n"
        "  - count: 1\n    commands: [python -m sglang_router.launch_router]\n"
        "    resources: {cpu: 4}\n"
        "  - count: 1..4\n"
        "    commands: [python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct]\n"
        "    resources: {gpu: A100:80GB:2}\n"
    )
    adapted = adapt(tmp_path, text, NAME)
    assert adapted.findings == []
    router, server = adapted.manifests
    assert (router.name, router.part, server.name, server.part) == ("pd-0", 0, "pd-1", 1)
    assert "accelerator" not in router.data["spec"]["resources"]
    assert server.data["spec"]["resources"]["accelerator"] == {"type": "A100-80GB", "count": 2}
    assert server.data["spec"]["serving"]["replicas"] == 1
    assert server.data["spec"]["serving"]["maxReplicas"] == 4
    located = server.provenance.locate(("spec", "resources", "accelerator"), server.source_map)
    assert located[0].line == 12  # the group's resources.gpu, not the service's


def test_a_replicas_list_that_is_not_groups_is_reported(tmp_path: Path) -> None:
    text = "type: service\nname: s\nport: 8000\ncommands: [x]\nreplicas: [1, 2]\n"
    assert problems(adapt(tmp_path, text, NAME)) == [
        (5, "replicas is a count or a range, got [1, 2]")
    ]
