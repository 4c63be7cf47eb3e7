"""SkyPilot task and service YAML: recognition, every construct of issue 12 normalised with its
origin (the fixtures in tests/formats/skypilot/ run in test_fixture_folders.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, lint
from launcher_files import (
    adapt,
    origin_line,
    problems,
    recognised_as,
    spec,
    workload,
)

from linter.policy.loader import Rulebook

FIXTURES = REPO / "tests" / "formats" / "skypilot"


def test_a_docker_image_id_names_the_vllm_release(tmp_path: Path) -> None:
    text = (
        "resources:\n  accelerators: L4:1\n  image_id: docker:vllm/vllm-openai:v0.9.2\n"
        "run: vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n"
    )
    manifest = workload(adapt(tmp_path, text))
    assert manifest.data["spec"]["serving"]["engineVersion"] == "0.9.2"
    assert origin_line(manifest, "spec.serving.engineVersion") == (3, 3)


def test_published_style_vllm_service(tmp_path: Path) -> None:
    adapted = adapt(tmp_path, (FIXTURES / "good" / "vllm-service.yaml").read_text())
    manifest = workload(adapted)
    assert manifest.format == "skypilot"
    assert manifest.source_kind == "SkyPilot service"
    assert manifest.data["spec"] == {
        "profile": "inference",
        "model": {"id": "meta-llama/Llama-3.1-8B-Instruct"},
        "serving": {
            "engine": "vllm",
            "replicas": 2,
            "maxReplicas": 2,
            "maxContextTokens": 8192,
            "tensorParallel": 1,
            "pipelineParallel": 1,
            "dataParallel": 1,
            "gpuMemoryUtilization": None,  # the release's default (the memory fact's)
            "enforceEager": False,
        },
        "resources": {
            "accelerator": {"type": "L4", "count": 1},
            "capacity": "on-demand",
            "alternatives": [
                {"accelerator": {"type": "A10G", "count": 1}},
                {"accelerator": {"type": "A100", "count": 1}},
            ],
        },
    }
    # --max-model-len 8192 and the $SKYPILOT_NUM_GPUS_PER_NODE it expands, inside `run`
    assert origin_line(manifest, "spec.serving.maxContextTokens") == (21, 5)
    assert origin_line(manifest, "spec.serving.tensorParallel") == (20, 5)
    assert origin_line(manifest, "spec.resources.accelerator") == (10, 18)
    assert origin_line(manifest, "spec.resources.alternatives[1].accelerator") == (10, 32)
    names = manifest.provenance.name
    assert names(("spec", "serving", "maxContextTokens")) == "--max-model-len in `run`"
    assert names(("spec", "resources", "accelerator")) == "`accelerators` under resources"


def test_engine_defaults_carry_the_engines_note(tmp_path: Path) -> None:
    text = "resources: {accelerators: H100:1}\nrun: vllm serve Qwen/Qwen2.5-7B-Instruct\n"
    manifest = workload(adapt(tmp_path, text))
    origins = manifest.provenance.origins
    context = origins[("spec", "serving", "maxContextTokens")]
    assert (context.kind, context.note) == ("default", "vLLM default: the model's maximum context")
    assert manifest.data["spec"]["serving"]["tensorParallel"] == 1
    assert origins[("spec", "serving", "tensorParallel")].note == (
        "vLLM default: --tensor-parallel-size 1"
    )
    assert origin_line(manifest, "spec.serving.maxContextTokens") == (2, 6)


@pytest.mark.parametrize(
    ("accelerators", "expected", "lines"),
    [
        ("H100:8", [("H100", 8)], [(2, 3)]),
        ("H100", [("H100", 1)], [(2, 3)]),
        ("[L4:1, A100:1]", [("L4", 1), ("A100", 1)], [(2, 18), (2, 24)]),
        ("{L4:1, A100-80GB:2}", [("L4", 1), ("A100-80GB", 2)], [(2, 18), (2, 24)]),
        ("{L4: 1, H100: 2}", [("L4", 1), ("H100", 2)], [(2, 18), (2, 25)]),
        ("{ H100:8, H200:8 }", [("H100", 8), ("H200", 8)], [(2, 19), (2, 27)]),
    ],
)
def test_accelerators_as_string_list_and_set(
    tmp_path: Path, accelerators: str, expected: list[tuple[str, int]], lines: list[tuple[int, int]]
) -> None:
    text = f"resources:\n  accelerators: {accelerators}\nrun: python train.py\n"
    manifest = workload(adapt(tmp_path, text))
    resources = manifest.data["spec"]["resources"]
    found = [resources["accelerator"]] + [
        a["accelerator"] for a in resources.get("alternatives", [])
    ]
    assert [(a["type"], a["count"]) for a in found] == expected
    paths = ["spec.resources.accelerator"] + [
        f"spec.resources.alternatives[{i}].accelerator" for i in range(len(expected) - 1)
    ]
    assert [origin_line(manifest, p) for p in paths] == lines


def test_any_of_and_ordered_entries_override_the_defaults(tmp_path: Path) -> None:
    text = (
        "resources:\n"  # 1
        "  accelerators: H100:8\n"  # 2
        "  use_spot: true\n"  # 3
        "  any_of:\n"  # 4
        "    - infra: aws/us-west-2\n"  # 5
        "    - infra: gcp/us-central1\n"  # 6
        "      accelerators: A100-80GB:8\n"  # 7
        "      use_spot: false\n"  # 8
        "run: python train.py --output_dir /tmp/out\n"
    )
    manifest = workload(adapt(tmp_path, text))
    resources = manifest.data["spec"]["resources"]
    assert {k: resources[k] for k in ("provider", "region", "accelerator", "capacity")} == {
        "provider": "aws",
        "region": "us-west-2",
        "accelerator": {"type": "H100", "count": 8},
        "capacity": "spot",
    }
    assert resources["instanceType"] == "p5.48xlarge"
    assert resources["alternatives"] == [
        {
            "provider": "gcp",
            "region": "us-central1",
            "accelerator": {"type": "A100-80GB", "count": 8},
            "capacity": "on-demand",
        }
    ]
    assert origin_line(manifest, "spec.resources.region") == (5, 7)
    assert origin_line(manifest, "spec.resources.alternatives[0].accelerator") == (7, 7)
    assert origin_line(manifest, "spec.resources.alternatives[0].capacity") == (8, 7)
    note = manifest.provenance.origins[("spec", "resources", "instanceType")].note
    assert note == (
        "SkyPilot picks the cheapest instance type with 8 x H100 on aws: p5.48xlarge in "
        "gpulint's price catalogue"
    )


def test_ordered_candidates_keep_their_order(tmp_path: Path) -> None:
    text = (
        "resources:\n"
        "  accelerators: A100:1\n"
        "  ordered:\n"
        "    - infra: aws/us-east-1\n"
        "    - infra: aws/us-west-2\n"
        "run: python train.py --output_dir /tmp/out\n"
    )
    resources = spec(adapt(tmp_path, text))["resources"]
    assert (resources["region"], resources["alternatives"][0]["region"]) == (
        "us-east-1",
        "us-west-2",
    )


@pytest.mark.parametrize(
    ("infra", "expected"),
    [
        ("aws", {"provider": "aws"}),
        ("aws/us-east-1/us-east-1a", {"provider": "aws", "region": "us-east-1"}),
        ("'*/eu-west-1'", {"region": "eu-west-1"}),
        ("k8s/h100-cluster", {"provider": "kubernetes", "pool": "h100-cluster"}),
        ("kubernetes", {"provider": "kubernetes"}),
    ],
)
def test_infra(tmp_path: Path, infra: str, expected: dict[str, str]) -> None:
    text = f"resources:\n  infra: {infra}\n  accelerators: T4:1\nrun: python app.py --x 1\n"
    resources = spec(adapt(tmp_path, text))["resources"]
    found = {k: resources[k] for k in ("provider", "region", "pool") if k in resources}
    assert found == expected


def test_legacy_cloud_and_region(tmp_path: Path) -> None:
    text = "resources:\n  cloud: GCP\n  region: europe-west4\n  accelerators: L4:1\nrun: x\n"
    resources = spec(adapt(tmp_path, text))["resources"]
    assert (resources["provider"], resources["region"]) == ("gcp", "europe-west4")


@pytest.mark.parametrize(
    ("autostop", "minutes"),
    [
        ("true", 5),
        ("false", None),
        ("30", 30),
        ("2h", 120),
        ("1d", 1440),
        ("{idle_minutes: 10, down: true}", 10),
        ("{down: true}", 5),
    ],
)
def test_autostop_forms(tmp_path: Path, autostop: str, minutes: int | None) -> None:
    text = f"resources:\n  accelerators: A100:1\n  autostop: {autostop}\n"
    lifecycle = spec(adapt(tmp_path, text))["lifecycle"]
    assert lifecycle["idleShutdownMinutes"] == minutes


def test_autostop_that_is_not_a_duration_is_reported_there(tmp_path: Path) -> None:
    text = "resources:\n  accelerators: A100:1\n  autostop: soon\n"
    assert problems(adapt(tmp_path, text)) == [
        (
            3,
            "autostop: expected a whole number of minutes or <n><unit> with unit m, h, d, w, "
            "got 'soon'",
        )
    ]


@pytest.mark.parametrize(
    ("recovery", "restarts"),
    [
        ("FAILOVER", True),
        ("eager_next_region", True),
        ("{strategy: EAGER_NEXT_REGION, max_restarts_on_errors: 3}", True),
        ("{max_restarts_on_errors: 3}", True),
        ("none", False),
    ],
)
def test_job_recovery_forms(tmp_path: Path, recovery: str, restarts: bool) -> None:
    text = f"resources:\n  accelerators: A100:8\n  use_spot: true\n  job_recovery: {recovery}\nrun: x\n"
    manifest = workload(adapt(tmp_path, text))
    assert manifest.data["spec"]["lifecycle"]["restartOnPreemption"] is restarts
    assert manifest.provenance.origins[("spec", "lifecycle", "restartOnPreemption")].kind == "file"


def test_legacy_spot_recovery_and_a_wrong_strategy(tmp_path: Path) -> None:
    text = "resources:\n  use_spot: true\n  spot_recovery: FAILOVER\nrun: x\n"
    assert spec(adapt(tmp_path, text))["lifecycle"]["restartOnPreemption"] is True
    wrong = "resources:\n  use_spot: true\n  job_recovery: RETRY\nrun: x\n"
    assert problems(adapt(tmp_path, wrong)) == [
        (3, "job_recovery is one of FAILOVER, EAGER_NEXT_REGION, none, got 'RETRY'")
    ]


def test_a_task_without_job_recovery_is_not_restarted_and_says_why(tmp_path: Path) -> None:
    text = "resources:\n  accelerators: A100:8\n  use_spot: true\nrun: x\n"
    manifest = workload(adapt(tmp_path, text))
    assert manifest.data["spec"]["lifecycle"]["restartOnPreemption"] is False
    origin = manifest.provenance.origins[("spec", "lifecycle", "restartOnPreemption")]
    assert origin.kind == "default"
    assert origin.note is not None and "sky jobs launch" in origin.note
    assert origin_line(manifest, "spec.lifecycle.restartOnPreemption") == (1, 1)


def test_a_managed_job_is_torn_down_when_it_ends(tmp_path: Path) -> None:
    text = "resources:\n  accelerators: A100:8\n  job_recovery: FAILOVER\nrun: python train.py\n"
    manifest = workload(adapt(tmp_path, text))
    assert manifest.data["spec"]["lifecycle"]["idleShutdownMinutes"] == 0
    assert manifest.provenance.origins[("spec", "lifecycle", "idleShutdownMinutes")].note == (
        "SkyPilot: a managed job's cluster is torn down when the job ends"
    )


def test_envs_secrets_and_skypilot_variables_expand_in_run(tmp_path: Path) -> None:
    text = (
        "num_nodes: 2\n"
        "resources: {accelerators: H100:8}\n"
        "envs: {BASE: meta-llama/Llama-3.1-8B, STEPS: 200}\n"
        "secrets: {HF_TOKEN: null}\n"
        "run: |\n"
        "  torchrun --nnodes=$SKYPILOT_NUM_NODES --nproc_per_node=$SKYPILOT_NUM_GPUS_PER_NODE \\\n"
        "    train.py --model_name_or_path $BASE --save_steps $STEPS --output_dir $HOME/out\n"
    )
    found = spec(adapt(tmp_path, text))
    assert found["profile"] == "fine-tuning"
    assert found["model"] == {"id": "meta-llama/Llama-3.1-8B"}
    assert found["resources"]["nodes"] == 2
    # $HOME is the node's: unknown, so the checkpoint directory is not placed anywhere
    assert "uri" not in found.get("checkpointing", {})


def test_timeout_is_the_runtime_limit(tmp_path: Path) -> None:
    text = "resources: {accelerators: A100:1}\nrun: timeout 12h python train.py --output_dir /o\n"
    manifest = workload(adapt(tmp_path, text))
    assert manifest.data["spec"]["lifecycle"]["maxRuntimeHours"] == 12
    assert origin_line(manifest, "spec.lifecycle.maxRuntimeHours") == (2, 14)


def test_a_bucket_copied_to_the_node_does_not_keep_checkpoints(tmp_path: Path) -> None:
    text = (
        "resources: {accelerators: A100:8, use_spot: true, job_recovery: FAILOVER}\n"
        "file_mounts:\n"
        "  /ckpt: s3://team-ckpts/run\n"
        "run: python train.py --model_name_or_path m/x --output_dir /ckpt/run1\n"
    )
    manifest = workload(adapt(tmp_path, text))
    checkpointing = manifest.data["spec"]["checkpointing"]
    # the script gpulint does not know may resume by itself: unknown, not "starts from zero"
    assert checkpointing == {"enabled": True, "decidedIn": "train.py"}
    assert manifest.provenance.name(("spec", "checkpointing", "uri")) == (
        "--output_dir /ckpt/run1 in `run`, on `file_mounts` /ckpt, which does not outlive the "
        "node: use a bucket in `file_mounts` with mode: MOUNT, or a volume"
    )


def test_a_checkpoint_flag_of_an_unknown_script_under_a_mounted_bucket(tmp_path: Path) -> None:
    text = (
        "resources: {accelerators: A100:8, use_spot: true}\n"
        "envs: {BUCKET: team-ckpts}\n"
        "file_mounts:\n"
        "  /ckpt:\n"
        "    name: ${BUCKET}\n"
        "    store: gcs\n"
        "  /data: {source: s3://datasets/x, mode: MOUNT}\n"
        "run: python my_train.py --data-dir /data --save-dir /ckpt/run42\n"
    )
    manifest = workload(adapt(tmp_path, text))
    assert manifest.data["spec"]["checkpointing"] == {
        "uri": "gcs://team-ckpts/run42",
        "enabled": True,
        "decidedIn": "my_train.py",
    }
    assert origin_line(manifest, "spec.checkpointing.uri") == (8, 42)
    assert origin_line(manifest, "spec.checkpointing.decidedIn") == (8, 13)


@pytest.mark.parametrize(
    ("run", "decided_in"),
    [
        ("python train.py", "train.py"),
        ("python -u -m team.finetune --epochs 3", "team.finetune"),
        ("cd /sky_workdir && bash scripts/finetune.sh 8", "scripts/finetune.sh"),
        ("./finetune.sh", "./finetune.sh"),
        ("axolotl train examples/llama-3/qlora.yml", "examples/llama-3/qlora.yml"),
        ("tune run lora_finetune_distributed --config llama3_1/8B_lora", "llama3_1/8B_lora"),
        # a known program whose flags say everything, and a command that runs no script
        ("trl sft --model_name_or_path m --output_dir /tmp/o", None),
        ("nvidia-smi && sleep infinity", None),
    ],
)
def test_the_file_that_decides_checkpointing(
    tmp_path: Path, run: str, decided_in: str | None
) -> None:
    """A script gpulint does not know, or a trainer config it does not read, decides the
    checkpoint settings the command leaves unsaid."""
    text = f"resources: {{accelerators: A100:1, use_spot: true}}\nrun: {run}\n"
    checkpointing = workload(adapt(tmp_path, text)).data["spec"].get("checkpointing", {})
    assert checkpointing.get("decidedIn") == decided_in
    assert "resumeFromLatest" not in checkpointing or decided_in is None


def _with_configs(tmp_path: Path) -> Path:
    """A repository with a DeepSpeed ZeRO-3 JSON and an accelerate FSDP config (SHARD_GRAD_OP)."""
    (tmp_path / ".git").mkdir()
    configs = tmp_path / "configs"
    configs.mkdir()
    (configs / "ds_config.json").write_text(
        '{"train_micro_batch_size_per_gpu": "auto", "zero_optimization": {"stage": 3}}',
        encoding="utf-8",
    )
    (configs / "accel.yaml").write_text(
        "distributed_type: FSDP\nfsdp_config:\n  fsdp_sharding_strategy: SHARD_GRAD_OP\n",
        encoding="utf-8",
    )
    return tmp_path


@pytest.mark.parametrize(
    ("launch", "sharding", "read"),
    [
        ("deepspeed train.py --deepspeed configs/ds_config.json", "zero3", "ds_config.json"),
        ("accelerate launch --config_file configs/accel.yaml train.py", "zero2", "accel.yaml"),
        # a flag on the command wins over the file; an absent file says nothing
        (
            "accelerate launch --config_file configs/accel.yaml --zero_stage 1 train.py",
            "zero1",
            "accel.yaml",
        ),
        ("deepspeed train.py --deepspeed configs/missing.json", None, None),
    ],
)
def test_sharding_from_a_config_file_in_the_repository(
    tmp_path: Path, launch: str, sharding: str | None, read: str | None
) -> None:
    """DeepSpeed's zero_optimization.stage and accelerate's fsdp_sharding_strategy are read from
    the files the command names, through the bounded reader; the result depends on them."""
    repository = _with_configs(tmp_path)
    text = f"resources: {{accelerators: A100:8}}\nrun: {launch} --model_name_or_path m/x\n"
    manifest = workload(adapt(repository, text))
    assert manifest.data["spec"].get("fineTuning", {}).get("sharding") == sharding
    assert [Path(r.path).name for r in manifest.reads] == ([read] if read else [])


def test_config_sharding_is_named_by_its_key_and_file(tmp_path: Path) -> None:
    repository = _with_configs(tmp_path)
    text = (
        "resources: {accelerators: A100:8}\n"
        "run: deepspeed train.py --model_name_or_path m/x --deepspeed configs/ds_config.json\n"
    )
    manifest = workload(adapt(repository, text))
    assert manifest.provenance.name(("spec", "fineTuning", "sharding")) == (
        "zero_optimization.stage in configs/ds_config.json (--deepspeed in `run`)"
    )
    assert origin_line(manifest, "spec.fineTuning.sharding") == (2, 50)


def test_a_config_file_outside_the_repository_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text('{"zero_optimization": {"stage": 3}}', encoding="utf-8")
    repository = tmp_path / "repo"
    repository.mkdir()
    (repository / ".git").mkdir()
    text = (
        "resources: {accelerators: A100:8}\n"
        "run: deepspeed train.py --model_name_or_path m/x --deepspeed ../outside.json\n"
    )
    manifest = workload(adapt(repository, text))
    assert "sharding" not in manifest.data["spec"].get("fineTuning", {})
    assert manifest.reads == ()


def test_templated_values_are_reported_and_the_rest_is_read(tmp_path: Path) -> None:
    text = "resources:\n  infra: aws/us-east-1\n  accelerators: ${GPU_TYPE}\nrun: x\n"
    adapted = adapt(tmp_path, text)
    assert [(f.rule_id, f.location.span.line, f.message) for f in adapted.findings] == [
        (
            "GL010",
            3,
            "this file is a template (${GPU_TYPE}): gpulint lints what renders it",
        )
    ]
    assert adapted.findings[0].fix == (
        "lint the rendered output instead: envsubst < FILE | gpulint check - "
        "(or give the values in an `assume:` block of .gpulint.yaml); ${GPU_TYPE} in "
        "accelerators is filled in only when rendered"
    )
    (manifest,) = adapted.manifests
    assert manifest.data["spec"]["resources"]["provider"] == "aws"


def test_wrong_types_are_findings_at_their_key(tmp_path: Path) -> None:
    text = (
        "num_nodes: two\n"
        "resources:\n"
        "  accelerators: T4:0.5\n"
        "  use_spot: sometimes\n"
        "  acelerators: A100\n"
        "run: x\n"
    )
    assert problems(adapt(tmp_path, text)) == [
        (5, "`acelerators` is not a SkyPilot resources field"),
        (1, "num_nodes is 1 or more, got 'two'"),
        (4, "use_spot is true or false, got 'sometimes'"),
        (
            3,
            "accelerator T4:0.5 is a fraction of a GPU: gpulint sizes whole GPUs (a shared "
            "GPU's memory is not known here)",
        ),
    ]


def test_profiles(tmp_path: Path) -> None:
    def profile(text: str) -> str:
        return str(spec(adapt(tmp_path, text))["profile"])

    assert profile("resources: {accelerators: A100:1}\n") == "dev"
    assert profile("resources: {accelerators: A100:1}\nrun: python app.py\n") == "training"
    assert profile("resources: {accelerators: A100:1}\nrun: vllm serve m/x\n") == "inference"
    assert profile("resources: {accelerators: A100:1}\nrun: axolotl train c.yml\n") == (
        "fine-tuning"
    )


@pytest.mark.parametrize(
    "text",
    [
        "name: CI\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: pytest\n",
        "services:\n  web:\n    image: nginx\n    deploy:\n      resources:\n"
        "        reservations: {devices: [{capabilities: [gpu]}]}\n",
        "image: {repository: vllm/vllm-openai}\nreplicaCount: 1\nresources:\n"
        "  limits: {nvidia.com/gpu: 1}\n",
        "resources:\n  limits: {nvidia.com/gpu: 1}\n",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {containers: []}\n",
        "type: task\ncommands: [python train.py]\nresources: {gpu: A100}\n",
        "name: only-a-name\n",
        "service:\n  type: ClusterIP\n  port: 80\n",
    ],
    ids=["workflow", "compose", "helm-values", "resources-limits", "pod", "dstack", "name", "svc"],
)
def test_other_yaml_is_not_claimed(tmp_path: Path, text: str) -> None:
    assert recognised_as(tmp_path, text) != "skypilot"


def test_a_sky_yaml_file_is_read_with_an_unknown_key_reported(tmp_path: Path) -> None:
    text = "resources: {accelerators: A100:1}\nrun: x\nnum_node: 2\n"
    assert recognised_as(tmp_path, text, "task.yaml") is None
    adapted = adapt(tmp_path, text, "task.sky.yaml")
    assert problems(adapted) == [(3, "`num_node` is not a SkyPilot task field")]


def test_a_broken_document_does_not_stop_the_next(tmp_path: Path, rulebook: Rulebook) -> None:
    path = tmp_path / "pipeline.yaml"
    path.write_text(
        "resources:\n  accelerators: 8\nrun: x\n---\nresources:\n  accelerators: A100:1\n",
        encoding="utf-8",
    )
    result = lint([path], rulebook, select=("GL001", "GL201"))
    assert [(f.rule_id, f.location.span.line) for f in result.findings] == [
        ("GL001", 2),
        ("GL201", 5),
    ]


def test_quota_and_cost_know_the_cloud_region_and_capacity(
    tmp_path: Path, rulebook: Rulebook
) -> None:
    path = tmp_path / "job.yaml"
    path.write_text((FIXTURES / "good" / "managed-job-recovery.yaml").read_text(), encoding="utf-8")
    result = lint([path], rulebook, select=("GL301",))
    assert [(f.rule_id, f.location.span.line) for f in result.findings] == [("GL301", 8)]
    assert result.findings[0].message == (
        "needs 192 vCPU of aws quota All P4, P3 and P2 Spot Instance Requests in us-east-1; no "
        "QuotaLedger says it is approved"
    )
    assert "(L-7212CCBC, for spot capacity; " in (result.findings[0].fix or "")


def test_a_server_started_with_sky_launch_is_told_to_use_skyserve(
    tmp_path: Path, rulebook: Rulebook
) -> None:
    path = tmp_path / "serve.yaml"
    path.write_text(
        "name: qwen-demo\nresources:\n  accelerators: L4:1\n  autostop: 10m\n"
        "run: vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n",
        encoding="utf-8",
    )
    (finding,) = lint([path], rulebook, select=("GL201",)).findings
    assert finding.location.span.line == 2
    assert finding.fix == (
        "scale to zero (`min_replicas: 0` under service.replica_policy, served with `sky serve "
        "up`), set an idle shutdown (`autostop` never fires while the server runs), or, if it "
        "serves steady traffic, say why it must stay up in `alwaysOn` in an `assume:` block of "
        ".gpulint.yaml: between test calls and overnight every GPU-hour is paid for"
    )


def test_a_broken_file_is_reported_when_its_text_says_skypilot(
    tmp_path: Path, rulebook: Rulebook
) -> None:
    (tmp_path / "broken.yaml").write_text(
        "resources:\n  accelerators: A100:8\n  use_spot: [true\nrun: python train.py\n"
    )
    (tmp_path / "other.yaml").write_text("resources:\n  limits: [1\nsteps: x\n")
    result = lint([tmp_path], rulebook)
    assert [(Path(f.location.file).name, f.rule_id) for f in result.findings] == [
        ("broken.yaml", "GL002")
    ]


@pytest.mark.parametrize(
    ("command", "share"),
    [
        # unset: the release's default, from the engine catalogue (v0.10.1: 0.9)
        (
            "vllm serve meta-llama/Llama-3.1-8B-Instruct",
            "vLLM 0.10.1's default GPU memory utilization 0.9, as --gpu-memory-utilization in "
            "`run` is unset",
        ),
        # TGI's own default, filled in by the adapter from its flag table
        (
            "text-generation-launcher --model-id meta-llama/Llama-3.1-8B-Instruct",
            "the engine's default memory fraction 1.0, as --cuda-memory-fraction in `run` is unset",
        ),
    ],
)
def test_an_engine_default_is_named_as_the_default_not_as_the_files(
    tmp_path: Path, rulebook: Rulebook, command: str, share: str
) -> None:
    """A command that sets neither the context nor the memory share: the message names both as
    defaults, and the finding points at the program that leaves them out (issue 28)."""
    path = tmp_path / "sky.yaml"
    path.write_text(
        "resources:\n  accelerators: L4:1\n  image_id: docker:vllm/vllm-openai:v0.10.1\n"
        f"run: |\n  {command}\n"
    )
    (finding,) = lint([path], rulebook, select=("GL102",)).findings
    assert (finding.location.span.line, finding.location.span.column) == (5, 3)
    assert finding.message.startswith("one 131072-token sequence (default) needs ")
    assert finding.fix is not None
    assert (
        "the context is 131072 tokens (the model's maximum context: the engine's default, as "
        f"{'--max-model-len' if command.startswith('vllm') else '--max-total-tokens'} in `run` "
        "is unset), and each of 1 x L4 keeps "
    ) in finding.fix
    assert f"runtime at {share}; vLLM says: " in finding.fix


_AXOLOTL_TASK = (
    "resources: {accelerators: A100-80GB:1, use_spot: true, infra: gcp/us-central1}\n"
    "file_mounts:\n  /ckpt: {source: gs://team-ckpt/run1, mode: MOUNT}\n"
    "run: axolotl train config.yml\n"
)


@pytest.mark.parametrize(
    ("config", "checkpointing"),
    [
        # on a mounted bucket, saving and resuming: what a reviewer asks for
        (
            "output_dir: /ckpt/out\nsave_steps: 200\nauto_resume_from_checkpoints: true\n",
            {"enabled": True, "uri": "gs://team-ckpt/run1/out", "resumeFromLatest": True},
        ),
        # saving turned off in the config
        ("output_dir: /ckpt/out\nsave_strategy: 'no'\n", {"enabled": False}),
        # read, and silent on resuming: axolotl starts from step zero
        ("output_dir: /ckpt/out\n", {"uri": "gs://team-ckpt/run1/out", "resumeFromLatest": False}),
    ],
)
def test_a_trainer_config_in_the_repository_is_read_for_checkpoints(
    tmp_path: Path, config: str, checkpointing: dict[str, Any]
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "config.yml").write_text("base_model: meta-llama/Llama-3.1-8B\n" + config)
    adapted = adapt(tmp_path, _AXOLOTL_TASK)
    found = workload(adapted).data["spec"]["checkpointing"]
    assert {key: found[key] for key in checkpointing} == checkpointing
    assert "decidedIn" not in found
    assert [read.path for read in workload(adapted).reads] == [str(tmp_path / "config.yml")]


def test_a_trainer_config_outside_the_repository_is_named_not_assumed(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    found = workload(adapt(tmp_path, _AXOLOTL_TASK)).data["spec"]["checkpointing"]
    assert found["decidedIn"] == "config.yml"
    assert "resumeFromLatest" not in found
