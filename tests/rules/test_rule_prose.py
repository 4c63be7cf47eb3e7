"""What the rules' ``variables:`` word: the messages of built-in rules on the branches their
fixtures do not reach (a declared or defaulted setting, one or several, each side of a choice).

Rule prose lives in the rule files; facts give the numbers, flags and names it is made of. These
messages were the facts' texts before they moved (issue 26) and must not change with the move.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import REPO, run_cli

from linter.cel import backend as cel
from linter.load import read
from linter.policy.rule_file import RuleFile
from linter.wording import plural

HEAD = "apiVersion: gpulint.dev/v1alpha1\nkind: Workload\nmetadata: {name: chat}\nspec:\n"

#: name -> (rules selected, file name, file text, expected (rule, line, message, fix) of each finding)
CASES: dict[str, tuple[str, str, str, list[tuple[str, int, str, str]]]] = {
    "gl101-utilization-declared-whole": (
        "GL101",
        "w.yaml",
        HEAD
        + """\
  profile: inference
  model: {id: meta-llama/Llama-3.1-70B-Instruct}
  serving: {gpuMemoryUtilization: 1.0, maxContextTokens: 8192}
  resources:
    accelerator: {type: L4, count: 1}
""",
        [
            (
                "GL101",
                9,
                "70.6B parameters at bf16 need 131.42 GiB per GPU of 22.04 GiB usable on 1 x L4: vLLM does not start",
                "use 7 GPUs (tensor parallel), or a larger GPU (B200); with activations and runtime nothing is left for the KV cache of the 22.04 GiB usable per GPU at spec.serving.gpuMemoryUtilization 1.0, and vLLM fails with: torch.OutOfMemoryError: CUDA out of memory (the weights and runtime need 131.62 GiB of the GPU's 22.04 GiB)",
            ),
        ],
    ),
    "gl102-context-and-utilization-declared": (
        "GL102",
        "w.yaml",
        HEAD
        + """\
  profile: inference
  model: {id: meta-llama/Llama-3.1-8B-Instruct}
  serving: {gpuMemoryUtilization: 0.95, maxContextTokens: 131072}
  resources:
    accelerator: {type: L4, count: 1}
""",
        [
            (
                "GL102",
                7,
                "one 131072-token sequence needs 16 GiB of KV cache, only 4.22 GiB is left per L4: vLLM refuses to start",
                "set spec.serving.maxContextTokens to at most 34576 tokens (what vLLM's --max-model-len auto would choose), use more or larger GPUs, or an fp8 KV cache (spec.serving.kvCachePrecision); the context is 131072 tokens, and each of 1 x L4 keeps 4.22 GiB for the KV cache after 14.96 GiB of weights and 1.76 GiB of activations and runtime at spec.serving.gpuMemoryUtilization 0.95; vLLM says: To serve at least one request with the model's max seq len (131072), (16.00 GiB KV cache is needed, which is larger than the available KV cache memory (4.22 GiB). Based on the available memory, the estimated maximum model length is 34576. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
            ),
        ],
    ),
    "gl102-context-and-utilization-defaulted": (
        "GL102",
        "w.yaml",
        HEAD
        + """\
  profile: inference
  model: {id: meta-llama/Llama-3.1-8B-Instruct}
  resources:
    accelerator: {type: L4, count: 1}
""",
        [
            (
                "GL102",
                6,
                "one 131072-token sequence (default) needs 16 GiB of KV cache, only 3.56 GiB is left per L4: vLLM refuses to start",
                "set spec.serving.maxContextTokens to at most 29168 tokens (what vLLM's --max-model-len auto would choose), use more or larger GPUs, or an fp8 KV cache (spec.serving.kvCachePrecision); the context is 131072 tokens (the model's maximum context: the engine's default, as spec.serving.maxContextTokens is unset), and each of 1 x L4 keeps 3.56 GiB for the KV cache after 14.96 GiB of weights and 1.76 GiB of activations and runtime at vLLM 0.33.0's default GPU memory utilization 0.92, as spec.serving.gpuMemoryUtilization is unset; vLLM says: To serve at least one request with the model's max seq len (131072), (16.00 GiB KV cache is needed, which is larger than the available KV cache memory (3.56 GiB). Based on the available memory, the estimated maximum model length is 29168. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
            )
        ],
    ),
    "gl102-sglang-caps-the-context": (
        "GL102",
        "w.yaml",
        HEAD
        + """\
  profile: inference
  model: {id: meta-llama/Llama-3.1-8B-Instruct}
  serving: {engine: sglang}
  resources:
    accelerator: {type: L4, count: 1}
""",
        [
            (
                "GL102",
                7,
                "SGLang caps each request at about 29168 tokens, not 131072 (default): the KV pool is too small",
                "set spec.serving.maxContextTokens to at most 29168 tokens so clients see the real limit, or use more or larger GPUs, or an fp8 KV cache (spec.serving.kvCachePrecision); one sequence of 131072 tokens (the model's maximum context: the engine's default, as spec.serving.maxContextTokens is unset) needs 16 GiB of KV cache per GPU and 3.56 GiB is left on each of 1 x L4 after 14.96 GiB of weights and 1.76 GiB of activations and runtime at vLLM 0.33.0's default GPU memory utilization 0.92, as spec.serving.gpuMemoryUtilization is unset (SGLang chooses its own default from the GPU's memory and the parallelism; gpulint does not model it and sizes vLLM's)",
            ),
        ],
    ),
    "gl102-batch-at-declared-context": (
        "GL102",
        "w.yaml",
        HEAD
        + """\
  profile: inference
  model: {id: meta-llama/Llama-3.1-8B-Instruct}
  serving: {gpuMemoryUtilization: 0.95, maxContextTokens: 32768, maxBatchSize: 64}
  resources:
    accelerator: {type: L4, count: 1}
""",
        [
            (
                "GL102",
                7,
                "spec.serving.maxBatchSize 64, but the KV cache holds 1 sequences of 32768 tokens per L4: vLLM queues the rest",
                "lower spec.serving.maxBatchSize to 1, or spec.serving.maxContextTokens to 640 tokens, or add GPUs; at 32768 tokens each of 1 x L4 holds 1 sequences at once (GPU KV cache size 41728 tokens, maximum concurrency 1.27x)",
            ),
        ],
    ),
    "gl103-training-that-fits": (
        "GL103,GL006",
        "w.yaml",
        HEAD
        + """\
  profile: fine-tuning
  model: {id: meta-llama/Llama-3.2-1B-Instruct}
  fineTuning: {method: lora}
  resources:
    accelerator: {type: H100-80GB, count: 1}
""",
        [],
    ),
    "gl104-checkpointing-and-sharding-declared": (
        "GL104",
        "w.yaml",
        HEAD
        + """\
  profile: fine-tuning
  model: {id: meta-llama/Llama-3.1-70B-Instruct}
  fineTuning: {method: full, gradientCheckpointing: true, sharding: zero3, microBatchSize: 1}
  resources:
    accelerator: {type: A100-80GB, count: 2}
""",
        [
            (
                "GL104",
                7,
                "full fine-tuning of 70.6B parameters needs 661.53 GiB per GPU but A100-80GB has 75.65 GiB usable",
                "LoRA would need 76.81 GiB and QLoRA 29.5 GiB; a smaller micro-batch or more GPUs also help; sized at micro-batch 1 x 2048 tokens, the sequence length assumed as spec.fineTuning.sequenceLength is unset, sharding zero3 over 2 GPUs",
            ),
        ],
    ),
    "gl104-no-architecture": (
        "GL104",
        "w.yaml",
        HEAD
        + """\
  profile: training
  model: {parameters: 70B}
  resources:
    accelerator: {type: L4, count: 1}
""",
        [
            (
                "GL104",
                8,
                "full training of 70.0B parameters needs 1304.6 GiB per GPU but L4 has 22.04 GiB usable",
                "gradient checkpointing cuts activations; a smaller micro-batch or more GPUs also help; sized at micro-batch 1 x 2048 tokens, assumed as spec.fineTuning.microBatchSize and spec.fineTuning.sequenceLength are unset, sharding none over 1 GPU",
            ),
        ],
    ),
    "gl104-shape-declared": (
        "GL104",
        "w.yaml",
        HEAD
        + """\
  profile: training
  model: {parameters: 70B}
  fineTuning: {microBatchSize: 1, sequenceLength: 2048}
  resources:
    accelerator: {type: L4, count: 1}
""",
        [
            (
                "GL104",
                7,
                "full training of 70.0B parameters needs 1304.6 GiB per GPU but L4 has 22.04 GiB usable",
                "gradient checkpointing cuts activations; a smaller micro-batch or more GPUs also help; sized at micro-batch 1 x 2048 tokens, sharding none over 1 GPU",
            ),
        ],
    ),
    "gl206-replica-gpus": (
        "GL206",
        "w.yaml",
        HEAD
        + """\
  profile: inference
  model: {id: meta-llama/Llama-3.1-70B-Instruct}
  serving: {maxBatchSize: 1, replicas: 2, maxContextTokens: 8192}
  resources:
    accelerator: {type: H100-80GB, count: 8}
""",
        [
            (
                "GL206",
                7,
                "serves one sequence at a time on 8 GPUs per replica, though memory holds 176 at this context",
                "raise spec.serving.maxBatchSize towards 176 (continuous batching in vLLM, SGLang and TGI): decoding is memory-bound, so concurrent sequences cost little extra time each",
            ),
        ],
    ),
    "gl209-api-cheaper": (
        "GL209",
        "w.yaml",
        HEAD
        + """\
  profile: inference
  model: {id: meta-llama/Llama-3.1-8B-Instruct}
  serving: {expectedTokensPerMinute: 1000}
  resources: {provider: aws, region: us-east-1, instanceType: g6.xlarge}
""",
        [
            (
                "GL209",
                6,
                "self-hosts meta-llama/Llama-3.1-8B-Instruct, also a managed API: the API is cheaper by $577.87/month",
                "if self-hosting is needed, say why in spec.justification.selfHosting (data that cannot leave, a model not offered, high sustained volume, or latency); at 1,000 tokens/min over 730 hours a month, bedrock meta.llama3-1-8b-instruct-v1:0 in us-east-1 costs $9.64/month against $587.50/month self-hosted (offered by bedrock; every offering residency allows: bedrock meta.llama3-1-8b-instruct-v1:0 in us-east-1 $9.64/month and bedrock us.meta.llama3-1-8b-instruct-v1:0 in us $9.64/month)",
            ),
        ],
    ),
    "gl209-self-hosting-cheaper": (
        "GL209",
        "w.yaml",
        HEAD
        + """\
  profile: inference
  model: {id: meta-llama/Llama-3.1-8B-Instruct}
  serving: {expectedTokensPerMinute: 5000000}
  resources: {provider: aws, region: us-east-1, instanceType: g6.xlarge}
""",
        [
            (
                "GL209",
                6,
                "self-hosts meta-llama/Llama-3.1-8B-Instruct, also a managed API: self-hosting is cheaper by $47,592.50/month",
                "if self-hosting is needed, say why in spec.justification.selfHosting (data that cannot leave, a model not offered, high sustained volume, or latency); at 5,000,000 tokens/min over 730 hours a month, bedrock meta.llama3-1-8b-instruct-v1:0 in us-east-1 costs $48,180.00/month against $587.50/month self-hosted (offered by bedrock; every offering residency allows: bedrock meta.llama3-1-8b-instruct-v1:0 in us-east-1 $48,180.00/month and bedrock us.meta.llama3-1-8b-instruct-v1:0 in us $48,180.00/month)",
            ),
        ],
    ),
    "gl304-gpu-type": (
        "GL304",
        "w.yaml",
        HEAD
        + """\
  profile: training
  resources:
    provider: aws
    region: af-south-1
    accelerator: {type: H100-80GB, count: 8}
""",
        [
            (
                "GL304",
                8,
                "H100-80GB is not offered in aws af-south-1: no quota can make it schedulable there",
                "choose a region that offers it (spec.resources.region), or confirm with the provider: gpulint's catalogue is a snapshot, and regions gain capacity over time",
            ),
        ],
    ),
    "gl404-two-endpoints": (
        "GL404",
        "w.yaml",
        HEAD
        + """\
  profile: inference
  data: {personalData: true, residency: [EU], lawfulBasis: contract}
  endpoints:
    - {provider: bedrock, region: eu-central-1, model: anthropic.claude-3-5-sonnet-20240620-v1:0}
    - {provider: vertex-ai, region: europe-west4, model: gemini-1.5-pro}
""",
        [
            (
                "GL404",
                7,
                "sends personal data to 2 managed-API endpoints with no spec.data.processorAgreement (GDPR Article 28)",
                "reference the data processing agreement in spec.data.processorAgreement: every provider (bedrock and vertex-ai) is your processor",
            ),
        ],
    ),
    "gl202-trainer-and-launcher-defaults": (
        "GL202",
        "sft.dstack.yml",
        "type: task\nspot_policy: spot\nvolumes: [ckpt:/ckpt]\ncommands:\n  - deepspeed --module openrlhf.cli.train_sft --pretrain Qwen/Qwen2.5-7B --ckpt_path /ckpt/sft\n",
        [
            (
                "GL202",
                1,
                "fine-tuning on spot capacity: the launcher does not restart the job after a preemption, so the first one ends the run",
                "run on on-demand capacity (`spot_policy`), or have the launcher restart the job (`retry: {on_events: [interruption]}`) with checkpoints it resumes from (dstack default: retry false) (found: nothing that survives a preemption)",
            ),
            (
                "GL202",
                5,
                "fine-tuning on spot capacity: checkpoint saving is turned off (OpenRLHF's default: --save_steps -1), so a preemption loses every step",
                "save checkpoints (--ckpt_path /ckpt/sft in `commands`, on `volumes` /ckpt), or run on on-demand capacity (`spot_policy`) (found: nothing that survives a preemption)",
            ),
        ],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_rule_messages(tmp_path: Path, name: str) -> None:
    rules, file_name, text, expected = CASES[name]
    (tmp_path / ".git").mkdir()
    path = tmp_path / file_name
    path.write_text(text, encoding="utf-8")
    result = run_cli("check", "--format", "json", "--select", rules, str(path))
    found = [
        (f["ruleId"], f["line"], f["message"], f["fix"]) for f in json.loads(result.out)["findings"]
    ]
    assert found == expected


def variable(rule_id: str, name: str, values: dict[str, object]) -> object:
    """A rule's variable evaluated on ``values`` (nested maps, as the rule reads them)."""
    meta = RuleFile.model_validate(read(REPO / "rules" / f"{rule_id}.yaml").documents[0].data)
    return cel.evaluate(cel.compile_expression(meta.variables[name]), cel.new_context(values))


@pytest.mark.parametrize("value", [1.0, 0.92, 0.925, 0.5])
@pytest.mark.parametrize(
    ("origin", "expected"),
    [
        ("stated", "--gpu-memory-utilization in `run` {value}"),
        (
            "release-default",
            "vLLM 0.11.0's default GPU memory utilization {value}, as "
            "--gpu-memory-utilization in `run` is unset",
        ),
        (
            "engine-default",
            "the engine's default memory fraction {value}, as "
            "--gpu-memory-utilization in `run` is unset",
        ),
    ],
)
def test_a_share_reads_as_the_file_writes_it(value: float, origin: str, expected: str) -> None:
    """The share in effect, by the file's name for it, or named as a default: an adapter may
    fill the engine's default in, but the message never says the file holds it."""
    inference = {
        "gpuMemoryUtilization": value,
        "utilizationOrigin": origin,
        "engineVersion": "0.11.0",
        "engine": "vllm",
    }
    names = {"gpuMemoryUtilization": "--gpu-memory-utilization in `run`"}
    expected = expected.format(value=value)
    for rule_id in ("GL101", "GL102"):
        facts = {"memory": {"inference": inference}, "names": names}
        assert variable(rule_id, "utilizationSetting", {"facts": facts}) == expected


def test_sglang_is_never_given_vllms_default_as_its_own() -> None:
    """SGLang chooses its --mem-fraction-static from the GPU and the parallelism; gpulint sizes
    vLLM's default instead and says so (issue 28)."""
    inference = {
        "gpuMemoryUtilization": 0.92,
        "utilizationOrigin": "release-default",
        "engineVersion": "0.33.0",
        "engine": "sglang",
    }
    names = {"gpuMemoryUtilization": "--mem-fraction-static in `run`"}
    for rule_id in ("GL101", "GL102"):
        facts = {"memory": {"inference": inference}, "names": names}
        assert variable(rule_id, "utilizationSetting", {"facts": facts}) == (
            "vLLM 0.33.0's default GPU memory utilization 0.92, as --mem-fraction-static in `run` "
            "is unset (SGLang chooses its own default from the GPU's memory and the parallelism; "
            "gpulint does not model it and sizes vLLM's)"
        )


@pytest.mark.parametrize("value", [40.0, 32.8, 23.78, 1174.22])
def test_gib_read_as_the_estimate_rounds_them(value: float) -> None:
    training = {"loraGiB": value, "qloraGiB": value}
    for name in ("loraGiB", "qloraGiB"):
        found = variable("GL104", name, {"facts": {"memory": {"training": training}}})
        assert found == str(value)


@pytest.mark.parametrize("count", [1.0, 16.0, 0.5, 2.5])
def test_gpu_counts_read_with_their_noun(count: float) -> None:
    resources = {"totalGpus": count, "gpusPerReplica": count}
    for rule_id, name in (("GL201", "gpus"), ("GL210", "gpus"), ("GL206", "replicaGpus")):
        found = variable(rule_id, name, {"facts": {"resources": resources}})
        assert found == plural(count, "GPU")
    item = {"allowed": count, "needed": count, "single": count, "vendor": "amd"}
    for name in ("allowed", "needed", "single"):
        assert variable("GL307", name, {"item": item}) == plural(count, "amd GPU")
