"""The Kubernetes format: which objects are its own, and what each kind's fields become in the
normalised workload, with the origin of every value."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from linter.formats import FORMATS, recognise
from linter.formats.base import Adapted, InputFile
from linter.formats.kubernetes import objects
from linter.formats.kubernetes.labels import catalogue
from linter.load import load_text
from linter.load.positions import Path as ManifestPath
from linter.model.assumptions import Assumption
from linter.model.manifest import Manifest


def _file(text: str, assumptions: tuple[Assumption, ...] = ()) -> InputFile:
    return InputFile("test.yaml", Path("test.yaml"), text, assumptions)


def adapt(text: str, assumptions: tuple[Assumption, ...] = ()) -> Adapted:
    """Every document of ``text`` through the format registry, as the runner does."""
    text = textwrap.dedent(text)
    source = _file(text, assumptions)
    out = Adapted()
    loaded = load_text(text)
    assert loaded.problems == []
    for document in loaded.documents:
        found = recognise(document.data, source)
        if found is not None:
            adapted = found.adapt(document, source)
            out.manifests.extend(adapted.manifests)
            out.findings.extend(adapted.findings)
    return out


def one(text: str, assumptions: tuple[Assumption, ...] = ()) -> Manifest:
    adapted = adapt(text, assumptions)
    assert [f.message for f in adapted.findings] == []
    (manifest,) = adapted.manifests
    return manifest


def spec(manifest: Manifest) -> dict[str, Any]:
    return manifest.data["spec"]  # type: ignore[no-any-return]


def origin(manifest: Manifest, path: str) -> ManifestPath:
    from linter.load.positions import parse_path

    return manifest.provenance.origin(parse_path(path)).path


def deployment(pod: str, metadata: str = "name: server", replicas: str = "") -> str:
    """A Deployment around a pod spec (given as YAML indented by two spaces)."""
    body = textwrap.indent(textwrap.dedent(pod).strip(), " " * 6)
    meta = textwrap.indent(textwrap.dedent(metadata).strip(), "  ")
    return f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n{meta}\nspec:\n{replicas}  template:\n    spec:\n{body}\n"


VLLM = """
containers:
  - name: vllm
    image: vllm/vllm-openai:v0.11.0
    args: ["meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192"]
    resources:
      limits:
        nvidia.com/gpu: 1
"""


# -- recognition -------------------------------------------------------------------------------


def test_the_format_is_registered_after_the_more_specific_ones() -> None:
    """gpulint's own documents, the cluster's capacity objects and autoscalers (also Kubernetes
    objects, some naming GPU resources) are recognised before a workload is looked for."""
    assert [f.name for f in FORMATS] == [
        "gpulint",
        "terraform",
        "slurm",
        "kubernetes-capacity",
        "kubernetes-autoscaler",
        "production-stack",
        "kubernetes",
        "dstack",
        "skypilot",
    ]
    assert objects.markers == (b"apiVersion",)


@pytest.mark.parametrize(
    ("text", "ours"),
    [
        (deployment(VLLM), True),
        # a web server's Deployment: no GPUs, no engine
        (deployment("containers: [{name: web, image: nginx:1.27}]"), False),
        # vLLM on CPU is still an engine
        (
            deployment(
                "containers: [{name: v, image: vllm/vllm-openai:v0.11.0, args: [Qwen/Qwen2.5-0.5B]}]"
            ),
            True,
        ),
        # a GPU batch Job running an unknown program
        (
            "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n"
            "      containers: [{name: c, image: x, resources: {limits: {amd.com/gpu: 1}}}]\n",
            True,
        ),
        # annotated for gpulint, nothing else
        (
            deployment(
                "containers: [{name: c, image: x}]",
                "name: a\nannotations: {gpulint.dev/profile: inference}",
            ),
            True,
        ),
        # a kind the format does not read
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {nvidia.com/gpu: '1'}\n",
            False,
        ),
        # a custom resource of another group with the same kind name
        (
            "apiVersion: example.com/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {limits: {nvidia.com/gpu: 1}}\n",
            False,
        ),
        # an LLMInferenceService always serves a model
        (
            "apiVersion: serving.kserve.io/v1alpha1\nkind: LLMInferenceService\nmetadata: {name: l}\nspec: {model: {uri: hf://Qwen/Qwen2.5-0.5B}}\n",
            True,
        ),
    ],
)
def test_recognition(text: str, ours: bool) -> None:
    (document,) = load_text(text).documents
    assert objects.recognises(document.data, _file(text)) is ours


def test_a_template_action_in_a_comment_does_not_hide_the_document() -> None:
    text = deployment(VLLM) + "# {{ .Values.unused }}\n"
    (document,) = load_text(text).documents
    assert objects.recognises(document.data, _file(text))


def test_kserve_fills_name_in_a_runtime_itself() -> None:
    text = deployment(VLLM.replace('"8192"]', '"8192", "--served-model-name={{.Name}}"]'))
    (document,) = load_text(text).documents
    assert objects.recognises(document.data, _file(text))


@pytest.mark.parametrize(
    ("text", "claimed"),
    [
        ("kind: Deployment\nspec: {limits: {nvidia.com/gpu: 1}}\n  broken: [\n", True),
        ("kind: Deployment\nimage: {{ .Values.image }}\nnvidia.com/gpu: 1\n", True),
        ("kind: Deployment\nimage: nginx\n  broken: [\n", False),
        ("kind: ConfigMap\nnvidia.com/gpu: 1\n  broken: [\n", False),
    ],
)
def test_which_broken_files_are_claimed(text: str, claimed: bool) -> None:
    assert objects.claims(text) is claimed


# -- containers: engines, arguments, environment -------------------------------------------------


def test_engine_settings_point_at_their_words() -> None:
    text = deployment(
        """
        nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}
        containers:
          - name: vllm
            image: vllm/vllm-openai:v0.11.0
            command: ["python3", "-m", "vllm.entrypoints.openai.api_server"]
            args: ["--model=Qwen/Qwen2.5-7B-Instruct", "--max_model_len", "8192", "--max-num-seqs", "16"]
            resources: {limits: {nvidia.com/gpu: "1"}}
        """
    )
    manifest = one(text)
    assert spec(manifest)["serving"] == {
        "engine": "vllm",
        "engineVersion": "0.11.0",  # the image's tag, as the command runs the image's vLLM
        "maxContextTokens": 8192,
        "maxBatchSize": 16,
    }
    context = manifest.provenance.origin(("spec", "serving", "maxContextTokens"))
    assert context.path == ("spec", "template", "spec", "containers", 0, "args", 2)
    assert context.span is not None
    line = textwrap.dedent(text).splitlines()[context.span.line - 1]
    assert line[context.span.column - 1 : context.span.end_column - 1] == "8192"
    assert manifest.provenance.name(("spec", "serving", "maxContextTokens")) == (
        "--max_model_len in the vllm container's args"
    )
    assert manifest.provenance.name(("spec", "serving", "gpuMemoryUtilization")) == (
        "--gpu-memory-utilization in the vllm container's args"
    )


def test_kubernetes_expands_variables_from_the_env_and_secrets_stay_unknown() -> None:
    text = deployment(
        """
        containers:
          - name: vllm
            image: vllm/vllm-openai:v0.11.0
            command: ["vllm", "serve", "$(MODEL)", "--max-model-len", "$(CONTEXT)"]
            env:
              - {name: CONTEXT, value: "4096"}
              - name: MODEL
                valueFrom: {secretKeyRef: {name: model, key: id}}
            resources: {limits: {nvidia.com/gpu: 1}}
        """
    )
    manifest = one(text)
    assert spec(manifest)["serving"]["maxContextTokens"] == 4096
    # an unresolvable model is passed on as written: the memory fact says "unknown model"
    assert spec(manifest)["model"] == {"id": "$(MODEL)"}


def test_an_engine_reading_its_environment_points_at_the_env_value() -> None:
    text = deployment(
        """
        containers:
          - name: tgi
            image: ghcr.io/huggingface/text-generation-inference:3.3.4
            env:
              - {name: MODEL_ID, value: Qwen/Qwen2.5-7B-Instruct}
              - {name: NUM_SHARD, value: "2"}
            resources: {limits: {nvidia.com/gpu: 2}}
        """
    )
    manifest = one(text)
    assert spec(manifest)["serving"] == {
        "engine": "tgi",
        "tensorParallel": 2,
        "gpuMemoryUtilization": 1.0,
    }
    # TGI's own memory cap, not vLLM's utilisation default, pointing at the container's args
    cap = manifest.provenance.origin(("spec", "serving", "gpuMemoryUtilization"))
    assert (cap.kind, cap.note) == ("default", "TGI default: --cuda-memory-fraction 1.0")
    assert origin(manifest, "spec.model.id") == (
        "spec",
        "template",
        "spec",
        "containers",
        0,
        "env",
        0,
        "value",
    )
    assert (
        manifest.provenance.name(("spec", "serving", "tensorParallel"))
        == "env NUM_SHARD of the tgi container"
    )


@pytest.mark.parametrize(
    "image",
    [
        "763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-tgi-inference:"
        "2.4.0-tgi3.0.1-gpu-py311-cu124-ubuntu22.04-v2.0",
        "registry.example.com/serving/llm-server:1.2",
    ],
)
def test_tgi_configured_by_env_in_a_cloud_or_any_image(image: str) -> None:
    """A cloud image built on TGI, or any image whose env sets MODEL_ID with a variable only TGI
    reads, is TGI; its env is read as TGI's flags."""
    text = deployment(
        f"""
        containers:
          - name: server
            image: {image}
            env:
              - {{name: MODEL_ID, value: google/gemma-7b-it}}
              - {{name: NUM_SHARD, value: "2"}}
              - {{name: MAX_INPUT_LENGTH, value: "1562"}}
              - {{name: MAX_TOTAL_TOKENS, value: "2048"}}
              - {{name: QUANTIZE, value: bitsandbytes-nf4}}
            resources: {{limits: {{nvidia.com/gpu: 2}}}}
        """
    )
    manifest = one(text)
    assert spec(manifest)["model"] == {
        "id": "google/gemma-7b-it",
        "quantization": "bitsandbytes-nf4",
    }
    assert spec(manifest)["serving"] == {
        "engine": "tgi",
        "tensorParallel": 2,
        "maxInputTokens": 1562,
        "maxContextTokens": 2048,
        "gpuMemoryUtilization": 1.0,
    }
    assert origin(manifest, "spec.serving.maxContextTokens")[-3:] == ("env", 3, "value")


def test_model_id_alone_in_an_unknown_image_is_no_engine() -> None:
    text = deployment(
        """
        containers:
          - name: server
            image: registry.example.com/serving/llm-server:1.2
            env:
              - {name: MODEL_ID, value: google/gemma-7b-it}
            resources: {limits: {nvidia.com/gpu: 1}}
        """
    )
    assert "serving" not in spec(one(text))


def test_the_gpu_container_is_read_before_a_sidecar() -> None:
    text = deployment(
        """
        containers:
          - {name: proxy, image: envoyproxy/envoy:v1.31, command: [envoy]}
          - name: sglang
            image: lmsysorg/sglang:v0.4
            command: ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen2.5-7B-Instruct", "--context-length", "8192"]
            resources: {limits: {nvidia.com/gpu: 1}}
        """
    )
    assert spec(one(text))["serving"] == {"engine": "sglang", "maxContextTokens": 8192}


def test_a_placeholder_in_an_engine_value_is_reported_and_not_used() -> None:
    adapted = adapt(
        deployment(
            """
            containers:
              - name: vllm
                image: vllm/vllm-openai:v0.11.0
                args: ["--model", "${MODEL_ID}", "--max-model-len", "{{ max_len }}"]
                resources: {limits: {nvidia.com/gpu: 1}}
            """
        )
    )
    assert [(f.rule_id, f.message, (f.fix or "").split("; ")[-1]) for f in adapted.findings] == [
        (
            "GL010",
            "this file is a template (${MODEL_ID}): gpulint lints what renders it",
            "${MODEL_ID} in --model is filled in only when rendered",
        ),
        (
            "GL010",
            "this file is a template ({{ max_len }}): gpulint lints what renders it",
            "{{ max_len }} in --max-model-len is filled in only when rendered",
        ),
    ]
    assert "model" not in spec(adapted.manifests[0])


def test_an_env_placeholder_is_passed_on_as_written() -> None:
    """Kubernetes passes ``${LD_LIBRARY_PATH}`` on unexpanded and the image's shell or loader
    reads it (GKE's GPU samples do this): not a finding."""
    adapted = adapt(
        deployment(
            """
            containers:
              - name: vllm
                image: vllm/vllm-openai:v0.11.0
                env:
                  - {name: LD_LIBRARY_PATH, value: "${LD_LIBRARY_PATH}:/usr/local/nvidia/lib64"}
                  - {name: HF_TOKEN, value: "{{HF_TOKEN}}"}
                resources: {limits: {nvidia.com/gpu: 1}}
            """
        )
    )
    assert adapted.findings == []


# -- node selection ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("selection", "resources"),
    [
        (
            "nodeSelector: {karpenter.k8s.aws/instance-gpu-name: a10g, karpenter.sh/capacity-type: spot}",
            {
                "accelerator": {"count": 1, "type": "a10g"},
                "capacity": "spot",
                "provider": "aws",
                "pool": "karpenter.k8s.aws/instance-gpu-name=a10g",
            },
        ),
        (
            "nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, topology.kubernetes.io/region: eu-west-1}",
            {
                "accelerator": {"count": 1, "type": "NVIDIA-H100-80GB-HBM3"},
                "region": "eu-west-1",
                "provider": "aws",
                "pool": "nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3",
            },
        ),
        (
            "nodeSelector: {node.kubernetes.io/instance-type: g6.xlarge, eks.amazonaws.com/nodegroup: serving}",
            {
                "accelerator": {"count": 1, "type": "L4"},
                "instanceType": "g6.xlarge",
                "provider": "aws",
                "pool": "eks.amazonaws.com/nodegroup=serving",
            },
        ),
        (
            "tolerations: [{key: kubernetes.azure.com/scalesetpriority, operator: Equal, value: spot, effect: NoSchedule}]",
            {"capacity": "spot", "provider": "azure", "gpusOfUnknownType": 1},
        ),
        (
            "nodeSelector: {eks.amazonaws.com/capacityType: CAPACITY_BLOCK}",
            {"capacity": "reserved", "provider": "aws", "gpusOfUnknownType": 1},
        ),
    ],
)
def test_cloud_labels_give_the_placement(selection: str, resources: dict[str, Any]) -> None:
    manifest = one(deployment(selection + "\n" + VLLM))
    assert spec(manifest)["resources"] == resources


def test_required_affinity_values_are_the_placement_and_its_alternatives() -> None:
    text = deployment(
        """
        affinity:
          nodeAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              nodeSelectorTerms:
                - matchExpressions:
                    - {key: cloud.google.com/gke-accelerator, operator: In, values: [nvidia-l4, nvidia-tesla-a100]}
                    - {key: karpenter.sh/capacity-type, operator: NotIn, values: [spot]}
        """
        + VLLM
    )
    manifest = one(text)
    resources = spec(manifest)["resources"]
    assert resources["accelerator"] == {"count": 1, "type": "nvidia-l4"}
    assert resources["alternatives"] == [{"accelerator": {"type": "nvidia-tesla-a100", "count": 1}}]
    assert resources["capacity"] == "on-demand"
    required = ("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
    terms: ManifestPath = ("spec", "template", "spec", *required, "nodeSelectorTerms", 0)
    alternative = origin(manifest, "spec.resources.alternatives[0].accelerator")
    assert alternative == (*terms, "matchExpressions", 0, "values", 1)
    assert origin(manifest, "spec.resources.capacity") == (
        *terms,
        "matchExpressions",
        1,
        "values",
        0,
    )


def test_gpu_memory_labels_size_an_untyped_gpu() -> None:
    text = deployment(
        """
        affinity:
          nodeAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              nodeSelectorTerms:
                - matchExpressions:
                    - {key: karpenter.k8s.aws/instance-gpu-memory, operator: Gt, values: ["40959"]}
        """
        + VLLM
    )
    assert spec(one(text))["resources"]["accelerator"] == {"count": 1, "memoryGib": 40.0}


def test_the_kueue_queue_is_the_pool_before_a_node_pool() -> None:
    text = deployment(
        "nodeSelector: {cloud.google.com/gke-nodepool: gpu}\n" + VLLM,
        "name: s\nlabels: {kueue.x-k8s.io/queue-name: serving}",
    )
    manifest = one(text)
    assert spec(manifest)["resources"]["pool"] == "kueue.x-k8s.io/queue-name=serving"
    assert origin(manifest, "spec.resources.pool") == (
        "metadata",
        "labels",
        "kueue.x-k8s.io/queue-name",
    )


def test_the_object_metadata_is_kept_for_quota_and_queue_matching() -> None:
    manifest = one(
        deployment(
            VLLM, "name: s\nnamespace: team-a\nlabels: {team: a, tier: 1}\nannotations: {owner: ml}"
        )
    )
    assert manifest.data["metadata"] == {
        "name": "s",
        "namespace": "team-a",
        "labels": {"team": "a"},
        "annotations": {"owner": "ml"},
    }


# -- the GPU type when no selector names it ---------------------------------------------------------


def test_without_a_gpu_type_the_count_alone_is_not_sized() -> None:
    manifest = one(deployment(VLLM))
    assert "accelerator" not in spec(manifest).get("resources", {})
    assert manifest.provenance.name(("spec", "resources", "accelerator")).startswith(
        "nvidia.com/gpu in the vllm container's resources with a GPU node selector"
    )


def test_an_annotation_gives_the_type_and_the_limit_the_count() -> None:
    manifest = one(
        deployment(VLLM, 'name: s\nannotations: {gpulint.dev/accelerator: "{type: L4, count: 4}"}')
    )
    assert spec(manifest)["resources"]["accelerator"] == {"type": "L4", "count": 1}
    assert origin(manifest, "spec.resources.accelerator.count")[-1] == "nvidia.com/gpu"


def test_annotations_give_the_engine_version_and_the_quantization() -> None:
    """What neither the image tag nor the flags always say: the vLLM release the start-up
    accounting follows, and the checkpoint's quantization method."""
    annotations = '{gpulint.dev/engine-version: "0.8.5", gpulint.dev/quantization: awq}'
    latest = VLLM.replace("vllm-openai:v0.11.0", "vllm-openai:latest")  # no release in the tag
    manifest = one(deployment(latest, f"name: s\nannotations: {annotations}"))
    assert (
        spec(manifest)["serving"]["engineVersion"],
        spec(manifest)["model"]["quantization"],
    ) == (
        "0.8.5",
        "awq",
    )
    assert manifest.provenance.name(("spec", "serving", "engineVersion")) == (
        "annotation gpulint.dev/engine-version"
    )


def test_the_image_tag_names_the_vllm_release_and_an_annotation_does_not_override_it() -> None:
    text = deployment(VLLM, "name: s\nannotations: {gpulint.dev/engine-version: '0.8.5'}")
    manifest = one(
        text.replace("image: vllm/vllm-openai:v0.11.0", "image: vllm/vllm-openai:v0.10.2")
    )
    assert spec(manifest)["serving"]["engineVersion"] == "0.10.2"
    assert origin(manifest, "spec.serving.engineVersion")[-1] == "image"
    assert manifest.provenance.name(("spec", "serving", "engineVersion")) == (
        "the image tag of the vllm container"
    )


def test_an_assumption_gives_the_type_and_is_not_changed_for_other_files() -> None:
    assumed = Assumption(("spec", "resources", "accelerator"), {"type": "A10G"}, ".gpulint.yaml:3")
    first = one(deployment(VLLM), (assumed,))
    second = one(deployment(VLLM.replace("gpu: 1", "gpu: 2")), (assumed,))
    assert spec(first)["resources"]["accelerator"] == {"type": "A10G", "count": 1}
    assert spec(second)["resources"]["accelerator"] == {"type": "A10G", "count": 2}
    assert assumed.value == {"type": "A10G"}


# -- profiles --------------------------------------------------------------------------------------


def _job(command: str, kind: str = "Job") -> str:
    return textwrap.dedent(
        f"""\
        apiVersion: batch/v1
        kind: {kind}
        metadata: {{name: j}}
        spec:
          template:
            spec:
              containers:
                - name: c
                  image: x
                  command: {command}
                  resources: {{limits: {{nvidia.com/gpu: 1}}}}
        """
    )


@pytest.mark.parametrize(
    ("text", "profile"),
    [
        (_job('["python", "run.py"]'), "training"),
        (_job('["torchrun", "train.py", "--output_dir", "/ckpt"]'), "training"),
        (
            _job('["torchrun", "train.py", "--model_name_or_path", "Qwen/Qwen2.5-0.5B"]'),
            "fine-tuning",
        ),
        (_job('["vllm", "serve", "Qwen/Qwen2.5-0.5B"]'), "inference"),
        (deployment(VLLM), "inference"),
        (
            deployment(
                'containers: [{name: c, image: x, command: ["sleep", "infinity"], resources: {limits: {nvidia.com/gpu: 1}}}]',
                "name: s\nannotations: {gpulint.dev/profile: dev}",
            ),
            "dev",
        ),
        (
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 1}}}]\n",
            "dev",
        ),
        (
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  restartPolicy: Never\n  containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 1}}}]\n",
            "training",
        ),
    ],
)
def test_profile_from_the_program_then_the_kind(text: str, profile: str) -> None:
    assert spec(one(text))["profile"] == profile


def test_job_runtime_and_nodes() -> None:
    text = _job('["torchrun", "--nnodes=4", "train.py"]').replace(
        "spec:\n  template:", "spec:\n  activeDeadlineSeconds: 5400\n  parallelism: 4\n  template:"
    )
    manifest = one(text)
    assert spec(manifest)["lifecycle"] == {"maxRuntimeHours": 1.5}
    assert spec(manifest)["resources"]["nodes"] == 4
    assert origin(manifest, "spec.resources.nodes") == ("spec", "parallelism")
    assert (
        manifest.provenance.name(("spec", "lifecycle", "maxRuntimeHours"))
        == "spec.activeDeadlineSeconds"
    )


def test_a_cronjob_reads_its_job_template() -> None:
    text = (
        _job('["python", "run.py"]', "CronJob")
        .replace(
            "spec:\n  template:",
            "spec:\n  schedule: '@daily'\n  jobTemplate:\n    spec:\n      activeDeadlineSeconds: 3600\n      template:",
        )
        .replace("\n    spec:\n      containers", "\n        spec:\n          containers")
        .replace(
            "\n        - name: c\n          image: x\n          command",
            "\n            - name: c\n              image: x\n              command",
        )
        .replace("\n          resources", "\n              resources")
    )
    manifest = one(text)
    assert spec(manifest)["lifecycle"] == {"maxRuntimeHours": 1.0}
    assert origin(manifest, "spec.lifecycle.maxRuntimeHours") == (
        "spec",
        "jobTemplate",
        "spec",
        "activeDeadlineSeconds",
    )


# -- the other kinds -------------------------------------------------------------------------------


def test_leader_worker_set_groups() -> None:
    manifest = one(
        """
        apiVersion: leaderworkerset.x-k8s.io/v1
        kind: LeaderWorkerSet
        metadata: {name: g}
        spec:
          replicas: 3
          leaderWorkerTemplate:
            size: 2
            leaderTemplate:
              spec:
                containers:
                  - name: leader
                    image: vllm/vllm-openai:v0.11.0
                    command: ["sh", "-c", "ray start --head; vllm serve Qwen/Qwen2.5-72B-Instruct -tp 4 -pp 2"]
                    resources: {limits: {nvidia.com/gpu: 4}}
            workerTemplate:
              spec:
                nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}
                containers:
                  - {name: worker, image: vllm/vllm-openai:v0.11.0, command: ["sh", "-c", "ray start --block"], resources: {limits: {nvidia.com/gpu: 4}}}
        """
    )
    assert spec(manifest)["serving"]["replicas"] == 3
    assert spec(manifest)["serving"]["tensorParallel"] == 4
    assert spec(manifest)["serving"]["pipelineParallel"] == 2
    assert spec(manifest)["resources"]["nodes"] == 2
    assert spec(manifest)["resources"]["accelerator"] == {"count": 4, "type": "nvidia-l4"}


def test_kserve_storage_uri_backend_and_scale_to_zero() -> None:
    text = """
    apiVersion: serving.kserve.io/v1beta1
    kind: InferenceService
    metadata: {name: i}
    spec:
      predictor:
        minReplicas: 0
        model:
          modelFormat: {name: huggingface}
          storageUri: hf://Qwen/Qwen2.5-7B-Instruct
          args: ["--max_model_len=8192"]
          resources: {limits: {nvidia.com/gpu: 1}}
    """
    manifest = one(text)
    assert spec(manifest)["model"] == {"id": "Qwen/Qwen2.5-7B-Instruct"}
    assert spec(manifest)["lifecycle"] == {"scaleToZero": True}
    assert spec(manifest)["serving"]["maxContextTokens"] == 8192
    transformers = one(
        text.replace('"--max_model_len=8192"', '"--backend=huggingface", "--max_model_len=8192"')
    )
    assert "engine" not in spec(transformers)["serving"]


def test_a_serving_runtime_that_names_no_model_is_only_checked() -> None:
    adapted = adapt(
        """
        apiVersion: serving.kserve.io/v1alpha1
        kind: ClusterServingRuntime
        metadata: {name: r}
        spec:
          containers:
            - name: kserve-container
              image: vllm/vllm-openai:v0.11.0
              args: ["--model=/mnt/models", "--max-model-len=lots"]
              resources: {limits: {nvidia.com/gpu: 1}}
        """
    )
    assert adapted.manifests == []
    (finding,) = adapted.findings
    assert finding.message.startswith("vLLM --max-model-len: 'lots' is not a whole number")


def test_llm_inference_service_parallelism_workers_and_prefill() -> None:
    adapted = adapt(
        """
        apiVersion: serving.kserve.io/v1alpha1
        kind: LLMInferenceService
        metadata: {name: big}
        spec:
          model: {uri: hf://meta-llama/Llama-3.1-70B-Instruct}
          replicas: 2
          parallelism: {tensor: 4, data: 8, dataLocal: 4}
          template:
            containers: [{name: main, resources: {limits: {nvidia.com/gpu: 4}}}]
          worker:
            containers: [{name: main, resources: {limits: {nvidia.com/gpu: 4}}}]
          prefill:
            replicas: 1
            parallelism: {tensor: 2}
            template:
              containers: [{name: main, args: ["--max-model-len=4096"], resources: {limits: {nvidia.com/gpu: 2}}}]
        """
    )
    assert adapted.findings == []
    decode, prefill = adapted.manifests
    assert (decode.name, decode.part, prefill.name, prefill.part) == ("big", 0, "big-prefill", 1)
    assert spec(decode)["serving"]["tensorParallel"] == 4
    # 8 data-parallel ranks, 4 per node; the GPUs of a type the object does not say
    assert spec(decode)["resources"] == {"nodes": 2, "gpusOfUnknownType": 4}
    assert spec(prefill)["serving"]["maxContextTokens"] == 4096
    assert spec(prefill)["model"] == {"id": "meta-llama/Llama-3.1-70B-Instruct"}


@pytest.mark.parametrize(
    ("model", "served"),
    [
        # weights copied into a volume or a bucket: the name they are served as names them
        ("{uri: 'pvc://gpt-oss-20b-pvc', name: RedHatAI/gpt-oss-20b}", "RedHatAI/gpt-oss-20b"),
        ("{uri: 's3://bucket/qwen', name: Qwen/Qwen2.5-7B-Instruct}", "Qwen/Qwen2.5-7B-Instruct"),
        ("{name: Qwen/Qwen2.5-7B-Instruct}", "Qwen/Qwen2.5-7B-Instruct"),
        # an hf:// URI names the checkpoint itself, whatever the served name
        ("{uri: hf://Qwen/Qwen2.5-0.5B, name: my-chat}", "Qwen/Qwen2.5-0.5B"),
        # a bucket without a served name stays the URI: an unknown model, never a guess
        ("{uri: 'pvc://llm-test-pvc'}", "pvc://llm-test-pvc"),
    ],
)
def test_an_llm_inference_service_model_from_its_uri_or_served_name(
    model: str, served: str
) -> None:
    adapted = adapt(
        f"""
        apiVersion: serving.kserve.io/v1alpha1
        kind: LLMInferenceService
        metadata: {{name: chat}}
        spec:
          model: {model}
          template:
            containers: [{{name: main, resources: {{limits: {{nvidia.com/gpu: 1}}}}}}]
        """
    )
    (manifest,) = adapted.manifests
    assert spec(manifest)["model"] == {"id": served}


def test_ray_serve_llm_configs_are_workloads_with_positions_in_the_string() -> None:
    text = textwrap.dedent(
        """\
        apiVersion: ray.io/v1
        kind: RayService
        metadata: {name: rs}
        spec:
          serveConfigV2: |
            applications:
              - import_path: ray.serve.llm:build_openai_app
                args:
                  llm_configs:
                    - model_loading_config: {model_id: qwen-small, model_source: Qwen/Qwen2.5-1.5B-Instruct}
                      engine_kwargs: {max_model_len: 4096, tensor_parallel_size: 2}
                    - model_loading_config: {model_id: Qwen/Qwen2.5-7B-Instruct}
                      accelerator_type: L4
                      engine_kwargs:
                        max_num_seqs: bad
          rayClusterConfig:
            workerGroupSpecs:
              - groupName: g
                replicas: 1
                template:
                  spec:
                    nodeSelector: {cloud.google.com/gke-accelerator: nvidia-tesla-a100}
                    containers: [{name: w, image: rayproject/ray-llm:2.46.0, resources: {limits: {nvidia.com/gpu: 2}}}]
        """
    )
    adapted = adapt(text)
    small, large = adapted.manifests
    assert (small.name, large.name) == ("rs-qwen-small", "rs-qwen-qwen2.5-7b-instruct")
    assert spec(small)["serving"]["maxContextTokens"] == 4096
    assert spec(small)["resources"]["accelerator"] == {"count": 2, "type": "nvidia-tesla-a100"}
    assert spec(large)["resources"]["accelerator"] == {"count": 1, "type": "L4"}
    context = small.provenance.origin(("spec", "serving", "maxContextTokens"))
    assert context.path == ("spec", "serveConfigV2")
    assert context.span is not None and context.span.line == 11
    (finding,) = adapted.findings
    assert finding.location.span.line == 15
    assert "engine_kwargs.max_num_seqs in serveConfigV2" in finding.message


def test_a_serve_application_of_its_own_is_read_from_its_env_and_packages() -> None:
    text = textwrap.dedent(
        """\
        apiVersion: ray.io/v1
        kind: RayService
        metadata: {name: rs}
        spec:
          serveConfigV2: |
            applications:
              - name: chat
                import_path: app:deployment
                runtime_env:
                  pip: {packages: ["vLLM[audio] == 0.10.1.1", "bitsandbytes"]}
                  env_vars: {MODEL_ID: Qwen/Qwen2.5-1.5B-Instruct, TENSOR_PARALLELISM: "4"}
                deployments:
                  - name: Router
                  - name: Server
                    num_replicas: auto
                    ray_actor_options:
                      num_gpus: 2
                      accelerator_type: A100
                      runtime_env:
                        env_vars: {MODEL_ID: Qwen/Qwen2.5-7B-Instruct, MAX_MODEL_LEN: "4096"}
              - name: static
                import_path: web:app
          rayClusterConfig:
            workerGroupSpecs:
              - groupName: g
                replicas: 1
                template:
                  spec:
                    containers: [{name: w, image: rayproject/ray:2.9.0, resources: {limits: {nvidia.com/gpu: 4}}}]
        """
    )
    adapted = adapt(text)
    assert adapted.findings == []
    (manifest,) = adapted.manifests
    assert manifest.name == "rs-chat"
    assert spec(manifest)["model"] == {
        "id": "Qwen/Qwen2.5-7B-Instruct",
        "quantization": "bitsandbytes",
    }
    assert spec(manifest)["resources"]["accelerator"] == {"count": 2, "type": "A100"}
    serving = spec(manifest)["serving"]
    assert (serving["engine"], serving["engineVersion"]) == ("vllm", "0.10.1")
    assert (serving["tensorParallel"], serving["maxContextTokens"]) == (4, 4096)
    assert "replicas" not in serving  # num_replicas: auto is Serve's choice
    model = manifest.provenance.origin(("spec", "model", "id"))
    assert model.path == ("spec", "serveConfigV2")
    assert model.span is not None and (model.span.line, model.span.column) == (20, 28)
    count = manifest.provenance.origin(("spec", "resources", "accelerator", "count"))
    assert count.span is not None and count.span.line == 17
    assert manifest.provenance.name(("spec", "serving", "gpuMemoryUtilization")) == (
        "GPU_MEMORY_UTILIZATION in serveConfigV2 (applications[0].runtime_env.env_vars)"
    )


def test_a_serve_application_that_names_no_model_leaves_the_cluster_one_workload() -> None:
    manifest = one(
        """
        apiVersion: ray.io/v1
        kind: RayService
        metadata: {name: sd}
        spec:
          serveConfigV2: |
            applications:
              - name: diffusion
                import_path: stable_diffusion:entrypoint
                runtime_env: {pip: [diffusers], env_vars: {LOG_LEVEL: debug}}
          rayClusterConfig:
            workerGroupSpecs:
              - groupName: g
                replicas: 1
                template:
                  spec:
                    containers: [{name: w, image: rayproject/ray:2.9.0, resources: {limits: {nvidia.com/gpu: 1}}}]
        """
    )
    assert manifest.name == "sd"
    assert "model" not in spec(manifest)


def test_a_ray_job_entrypoint_and_its_cluster_lifetime() -> None:
    manifest = one(
        """
        apiVersion: ray.io/v1
        kind: RayJob
        metadata: {name: rj}
        spec:
          entrypoint: torchrun --nproc-per-node 1 train.py --output_dir /ckpt --save_strategy no
          shutdownAfterJobFinishes: true
          rayClusterSpec:
            workerGroupSpecs:
              - groupName: g
                replicas: 2
                template:
                  spec:
                    containers: [{name: w, image: rayproject/ray:2.46.0-gpu, resources: {limits: {nvidia.com/gpu: 1}}}]
        """
    )
    assert spec(manifest)["lifecycle"] == {"idleShutdownMinutes": 0}
    assert spec(manifest)["checkpointing"] == {
        "enabled": False,
        "uri": "/ckpt",
        "decidedIn": "train.py",
    }
    assert spec(manifest)["resources"]["nodes"] == 2
    assert origin(manifest, "spec.checkpointing.enabled") == ("spec", "entrypoint")


def test_kubeflow_training_jobs() -> None:
    pytorch = one(
        """
        apiVersion: kubeflow.org/v1
        kind: PyTorchJob
        metadata: {name: p}
        spec:
          pytorchReplicaSpecs:
            Master:
              template: {spec: {containers: [{name: pytorch, image: x, resources: {limits: {nvidia.com/gpu: 8}}}]}}
            Worker:
              replicas: 3
              template: {spec: {containers: [{name: pytorch, image: x, resources: {limits: {nvidia.com/gpu: 8}}}]}}
        """
    )
    assert spec(pytorch)["resources"]["nodes"] == 4
    train = one(
        """
        apiVersion: trainer.kubeflow.org/v1alpha1
        kind: TrainJob
        metadata: {name: t}
        spec:
          runtimeRef: {name: torch-distributed}
          initializer: {model: {storageUri: hf://Qwen/Qwen2.5-0.5B}}
          trainer:
            numNodes: 2
            resourcesPerNode: {limits: {nvidia.com/gpu: "4"}}
          podSpecOverrides:
            - targetJobs: [{name: node}]
              nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}
        """
    )
    assert spec(train)["profile"] == "fine-tuning"
    assert spec(train)["resources"]["accelerator"] == {"count": 4, "type": "nvidia-l4"}
    assert origin(train, "spec.resources.accelerator.count") == (
        "spec",
        "trainer",
        "resourcesPerNode",
        "limits",
        "nvidia.com/gpu",
    )
    runtime = one(
        """
        apiVersion: trainer.kubeflow.org/v1alpha1
        kind: TrainingRuntime
        metadata: {name: gpu-runtime}
        spec:
          mlPolicy: {numNodes: 2}
          template:
            spec:
              replicatedJobs:
                - name: node
                  template:
                    spec:
                      activeDeadlineSeconds: 7200
                      template:
                        spec:
                          containers: [{name: node, image: x, resources: {limits: {nvidia.com/gpu: 8}}}]
        """
    )
    assert spec(runtime)["lifecycle"] == {"maxRuntimeHours": 2.0}
    assert spec(runtime)["resources"]["nodes"] == 2


def test_a_training_runtime_starts_from_its_model_initializers_download() -> None:
    """Kubeflow's runtimes download the model in a model-initializer job (``STORAGE_URI``)."""
    runtime = one(
        """
        apiVersion: trainer.kubeflow.org/v1alpha1
        kind: ClusterTrainingRuntime
        metadata: {name: tuned}
        spec:
          template:
            spec:
              replicatedJobs:
                - name: model-initializer
                  template:
                    spec:
                      template:
                        spec:
                          containers:
                            - name: model-initializer
                              image: ghcr.io/kubeflow/trainer/model-initializer
                              env:
                                - {name: STORAGE_URI, value: hf://Qwen/Qwen2.5-7B-Instruct}
                - name: node
                  template:
                    spec:
                      template:
                        spec:
                          containers: [{name: node, image: x, resources: {limits: {nvidia.com/gpu: 8}}}]
        """
    )
    assert spec(runtime)["model"] == {"id": "Qwen/Qwen2.5-7B-Instruct"}
    assert spec(runtime)["profile"] == "fine-tuning"
    assert origin(runtime, "spec.model.id") == (
        *("spec", "template", "spec", "replicatedJobs", 0, "template", "spec", "template"),
        *("spec", "containers", 0, "env", 0, "value"),
    )


def test_label_tables_name_their_sources() -> None:
    table = catalogue()
    assert {label.key for label in table.capacity_labels if label.taint} == {
        "cloud.google.com/gke-spot",
        "cloud.google.com/gke-preemptible",
        "kubernetes.azure.com/scalesetpriority",
    }
    assert table.kserve_huggingface.formats == ["huggingface", "vllm"]


@pytest.mark.parametrize(
    "args",
    [
        '["Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "auto"]',
        '["Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "$(CONTEXT)"]',
    ],
)
def test_no_default_context_when_the_engine_decides_it_or_it_is_unknown(args: str) -> None:
    text = deployment(
        f"""
        containers:
          - name: vllm
            image: vllm/vllm-openai:v0.11.0
            args: {args}
            env: [{{name: CONTEXT, valueFrom: {{configMapKeyRef: {{name: c, key: len}}}}}}]
            resources: {{limits: {{nvidia.com/gpu: 1}}}}
        """
    )
    assert "maxContextTokens" not in spec(one(text))["serving"]


def test_without_the_flag_the_context_is_the_models_maximum_with_the_vllm_note() -> None:
    manifest = one(deployment(VLLM.replace(', "--max-model-len", "8192"', "")))
    assert spec(manifest)["serving"]["maxContextTokens"] == 131072
    default = manifest.provenance.origin(("spec", "serving", "maxContextTokens"))
    assert (default.kind, default.note) == (
        "default",
        "vLLM default: the model's maximum context (131,072 tokens)",
    )
    assert default.path == ("spec", "template", "spec", "containers", 0, "args")


FINETUNE_ENV = """
apiVersion: batch/v1
kind: Job
metadata: {name: tune}
spec:
  template:
    spec:
      restartPolicy: OnFailure
      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}
      containers:
        - name: tuner
          image: registry.example.com/tune:1
          env:
            - {name: NEW_MODEL, value: gemma-2b-sql}
            - {name: MODEL_NAME, value: %s}
            - {name: LORA_R, value: "8"}
            - {name: MAX_SEQ_LENGTH, value: "512"}
            - {name: TRAIN_BATCH_SIZE, value: "4"}
          resources: {limits: {nvidia.com/gpu: 8}}
"""


def test_a_model_and_lora_settings_in_a_jobs_env_when_no_flag_names_them() -> None:
    manifest = one(FINETUNE_ENV % "google/gemma-2b")
    assert spec(manifest)["profile"] == "fine-tuning"
    assert spec(manifest)["model"] == {"id": "google/gemma-2b"}
    assert spec(manifest)["fineTuning"] == {"loraRank": 8, "method": "lora", "sequenceLength": 512}
    assert origin(manifest, "spec.model.id")[-3:] == ("env", 1, "value")
    assert origin(manifest, "spec.fineTuning.method")[-3:] == ("env", 2, "value")
    assert manifest.provenance.name(("spec", "model", "id")) == (
        "env MODEL_NAME of the tuner container"
    )


@pytest.mark.parametrize(
    "value", ["my-finetuned-output", "/models/gemma-2b", "$(BASE)", "s3://bucket/gemma-2b", "a/b/c"]
)
def test_an_env_value_that_is_not_a_model_id_is_not_read(value: str) -> None:
    """An output name, a path, a placeholder, a bucket: no model named (the job stays training,
    as without the variable)."""
    found = spec(one(FINETUNE_ENV % f'"{value}"'))
    assert "model" not in found
    assert found["profile"] == "training"


def test_a_bare_catalogued_name_in_env_is_read_and_a_flag_wins() -> None:
    assert spec(one(FINETUNE_ENV % "gemma-2b"))["model"] == {"id": "gemma-2b"}
    flagged = FINETUNE_ENV.replace(
        "image: registry.example.com/tune:1",
        "image: registry.example.com/tune:1\n"
        "          command: [python, train.py, --model_name_or_path, Qwen/Qwen2.5-7B, --lora_r, '16']",
    )
    found = spec(one(flagged % "google/gemma-2b"))
    assert found["model"] == {"id": "Qwen/Qwen2.5-7B"}
    assert found["fineTuning"]["loraRank"] == 16


STORM = """
apiVersion: orchestration.aibrix.ai/v1alpha1
kind: StormService
metadata: {name: pd}
spec:
  replicas: 3
  template:
    spec:
      roles:
        - name: routing
          template:
            spec:
              containers:
                - {name: lb, image: example/router:1, command: [router]}
        - name: prefill
          replicas: 2
          podGroupSize: 2
          template:
            spec:
              containers:
                - name: prefill
                  image: lmsysorg/sglang:v0.4.9
                  command: [python3, -m, sglang.launch_server, --model-path, Qwen/Qwen3-8B, --tp-size, "2", --nnodes, "2"]
                  resources: {limits: {nvidia.com/gpu: 1}}
        - name: decode
          template:
            spec:
              containers:
                - name: decode
                  image: lmsysorg/sglang:v0.4.9
                  command: [python3, -m, sglang.launch_server, --model-path, Qwen/Qwen3-8B]
                  resources: {limits: {nvidia.com/gpu: 1}}
"""


def test_each_gpu_role_of_a_storm_service_is_a_workload() -> None:
    adapted = adapt(STORM)
    assert adapted.findings == []
    prefill, decode = adapted.manifests
    assert [m.data["metadata"]["name"] for m in adapted.manifests] == ["pd-prefill", "pd-decode"]
    assert spec(prefill)["resources"] == {"gpusOfUnknownType": 1, "nodes": 2}
    assert spec(prefill)["serving"]["replicas"] == 6  # 3 copies x 2 role replicas
    assert spec(decode)["serving"]["replicas"] == 3
    assert "nodes" not in spec(decode)["resources"]
    assert origin(prefill, "spec.resources.nodes") == (
        "spec",
        "template",
        "spec",
        "roles",
        1,
        "podGroupSize",
    )
    assert origin(decode, "spec.model.id")[:5] == ("spec", "template", "spec", "roles", 2)


def test_a_role_set_reads_its_roles_directly() -> None:
    adapted = adapt(
        """
        apiVersion: orchestration.aibrix.ai/v1alpha1
        kind: RoleSet
        metadata: {name: rs}
        spec:
          roles:
            - name: worker
              replicas: 4
              template:
                spec:
                  containers:
                    - name: vllm
                      image: vllm/vllm-openai:v0.10.1
                      args: [Qwen/Qwen3-8B]
                      resources: {limits: {nvidia.com/gpu: 1}}
        """
    )
    (manifest,) = adapted.manifests
    assert manifest.data["metadata"]["name"] == "rs-worker"
    assert spec(manifest)["serving"]["replicas"] == 4
    assert origin(manifest, "spec.serving.replicas") == ("spec", "roles", 0, "replicas")


FLEET = """
apiVersion: orchestration.aibrix.ai/v1alpha1
kind: RayClusterFleet
metadata: {name: r1}
spec:
  replicas: 2
  template:
    spec:
      headGroupSpec:
        template:
          spec:
            containers:
              - name: head
                image: vllm/vllm-openai:v0.8.5
                command: [bash, -lc, "ray start --head; vllm serve deepseek-ai/DeepSeek-R1 --tensor-parallel-size 24"]
                resources: {limits: {nvidia.com/gpu: 8}}
      workerGroupSpecs:
        - groupName: a
          replicas: 1
          template:
            spec:
              containers:
                - {name: w, image: vllm/vllm-openai:v0.8.5, resources: {limits: {nvidia.com/gpu: 8}}}
        - groupName: b
          minReplicas: 1
          template:
            spec:
              containers:
                - {name: w, image: vllm/vllm-openai:v0.8.5, resources: {limits: {nvidia.com/gpu: 8}}}
"""


def test_a_ray_cluster_fleet_is_one_workload_over_every_gpu_pod() -> None:
    manifest = one(FLEET)
    assert manifest.data["metadata"]["name"] == "r1"
    assert spec(manifest)["model"] == {"id": "deepseek-ai/DeepSeek-R1"}
    assert spec(manifest)["resources"] == {"gpusOfUnknownType": 8, "nodes": 3}
    assert spec(manifest)["serving"]["replicas"] == 2
    assert spec(manifest)["serving"]["tensorParallel"] == 24
