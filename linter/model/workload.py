"""The ``Workload`` kind: one deployable AI workload (a server, a fine-tuning job, a training run).

Sub-objects default to empty objects rather than null so that rule conditions can read
``workload.spec.checkpointing.enabled`` without guarding every level; an unset scalar is null.
"""

from typing import Literal

from linter.declared import CamelRecord, Field, empty_list, model_validator
from linter.model.base import API_VERSION, Metadata, ParameterCount

#: inference serves requests and runs continuously; batch-inference runs a serving engine over
#: a data set and ends (a Ray Data LLM job); fine-tuning and training train; dev is interactive.
Profile = Literal["inference", "batch-inference", "fine-tuning", "training", "dev"]
#: The profiles that run a serving engine: sized the way the engine budgets memory.
INFERENCE_PROFILES = frozenset({"inference", "batch-inference"})
#: Equals linter/catalog/data/precisions.yaml's names (a test checks it).
Precision = Literal[
    "fp32", "bf16", "fp16", "fp8", "fp8-block", "int8", "int4", "nf4", "mxfp4", "nvfp4"
]
Capacity = Literal["on-demand", "spot", "reserved"]
#: Hardware other than a GPU that a serving engine's build runs on.
Device = Literal["cpu", "tpu", "neuron", "gaudi", "xpu"]
LawfulBasis = Literal[
    "consent",
    "contract",
    "legal-obligation",
    "vital-interests",
    "public-task",
    "legitimate-interests",
]
PositiveInt = int


class Model(CamelRecord):
    id: str | None = Field(
        None, description="Hugging Face style id, e.g. meta-llama/Llama-3.1-8B-Instruct."
    )
    config: str | None = Field(
        None, description="Path to a Hugging Face config.json, relative to the manifest."
    )
    parameters: ParameterCount | None = None
    precision: Precision | None = Field(
        None, description="Weight precision; unset: the checkpoint's own (catalogue or config)."
    )
    quantization: str | None = Field(
        None,
        min_length=1,
        description="Quantisation method as the engine names it (vLLM --quantization: awq, gptq, "
        "fp8, mxfp4, bitsandbytes, compressed-tensors, ...).",
    )
    cache_gib: float | None = Field(
        None,
        gt=0,
        allow_inf_nan=False,
        description="Size of the volume the engine keeps the model's files in (its Hugging Face "
        "cache or download directory): the checkpoint must fit.",
    )


class Serving(CamelRecord):
    engine: str | None = Field(None, description="vllm, sglang, tgi, triton, ...")
    device: Device | None = Field(
        None,
        description="Hardware other than a GPU the engine's build runs on (its image, or the "
        "device the workload requests instead of a GPU); unset: a GPU build.",
    )
    engine_version: str | None = Field(
        None,
        pattern=r"^v?[0-9]+(\.[0-9]+){0,2}$",
        description="Engine release whose memory accounting applies (e.g. 0.11); "
        "default: a current release.",
    )
    max_batch_size: int | None = Field(
        None,
        ge=1,
        le=1_000_000,
        description="Concurrent sequences per replica the service must hold at full context "
        "(vLLM --max-num-seqs); unset: no concurrency is declared.",
    )
    max_context_tokens: int | None = Field(
        None,
        ge=1,
        le=100_000_000,
        description="Tokens per sequence, prompt and output (vLLM --max-model-len); unset: the "
        "model's maximum context.",
    )
    max_num_batched_tokens: int | None = Field(
        None, ge=1, le=100_000_000, description="Tokens per engine step (prefill chunk)."
    )
    max_input_tokens: int | None = Field(
        None, ge=1, le=100_000_000, description="Longest prompt accepted (TGI --max-input-tokens)."
    )
    kv_cache_memory_bytes: int | None = Field(
        None,
        ge=1,
        description="Absolute KV-cache budget per GPU, instead of one derived from "
        "gpuMemoryUtilization (vLLM --kv-cache-memory-bytes).",
    )
    enforce_eager: bool | None = Field(None, description="No CUDA graphs (vLLM --enforce-eager).")
    kv_cache_precision: Precision | None = None
    gpu_memory_utilization: float | None = Field(
        None,
        gt=0,
        le=1,
        description="Share of each GPU's memory the engine may use (vLLM "
        "--gpu-memory-utilization); unset: the engine release's default (0.9, 0.92 since vLLM "
        "0.33).",
    )
    tensor_parallel: int | None = Field(
        None,
        ge=1,
        le=1024,
        description="GPUs one replica is sharded over; defaults to accelerator.count.",
    )
    pipeline_parallel: int | None = Field(
        None, ge=1, le=1024, description="Pipeline stages of one replica (across nodes)."
    )
    data_parallel: int | None = Field(
        None, ge=1, le=1024, description="Engine-level data-parallel ranks of one replica."
    )
    replicas: int | None = Field(
        None, ge=0, le=100_000, description="Replicas running normally (the autoscaler's minimum)."
    )
    max_replicas: int | None = Field(
        None, ge=0, le=100_000, description="Most replicas the autoscaler may add."
    )
    latency_sensitive: bool | None = Field(
        None, description="Interactive traffic with a latency objective."
    )
    on_demand_fallback_replicas: int | None = Field(
        None,
        ge=0,
        le=100_000,
        description="Replicas kept on on-demand capacity when the rest run on spot.",
    )
    expected_requests_per_minute: float | None = Field(
        None, ge=0, description="Sustained request rate the service is sized for."
    )
    expected_tokens_per_minute: float | None = Field(
        None,
        ge=0,
        description="Sustained tokens per minute (prompt + output) the service is sized for.",
    )


class FineTuning(CamelRecord):
    method: Literal["full", "lora", "qlora"] | None = None
    optimizer: (
        Literal["adamw", "adamw-fused", "adamw-8bit", "paged-adamw-8bit", "adamw-bf16", "sgd"]
        | None
    ) = Field(
        None,
        description="Optimizer whose state is sized; adamw (torch's default foreach AdamW) when "
        "unset; adamw-fused is Trainer's adamw_torch_fused.",
    )
    micro_batch_size: int | None = Field(None, ge=1, le=1_000_000)
    sequence_length: int | None = Field(None, ge=1, le=100_000_000)
    gradient_checkpointing: bool | None = None
    sharding: Literal["none", "zero1", "zero2", "zero3", "fsdp"] | None = None
    lora_rank: int | None = Field(None, ge=1, le=65_536)
    lora_target_modules: str | list[str] | None = Field(
        None,
        description="peft target_modules: all-linear (the default), attention, mlp, or the "
        "module names (q_proj, v_proj, gate_proj, ...).",
    )
    lora_dropout: float | None = Field(None, ge=0, lt=1, description="peft lora_dropout.")
    gradient_accumulation_steps: int | None = Field(
        None,
        ge=1,
        le=1_000_000,
        description="Micro-batches per optimizer step; above 1 the gradients stay allocated.",
    )


class Accelerator(CamelRecord):
    type: str | None = Field(
        None, min_length=1, description="GPU type, e.g. H100-80GB, L4, A100-40GB."
    )
    memory_gib: float | None = Field(
        None,
        gt=0,
        le=100_000,
        description="Least memory per GPU, when only that is known (dstack gpu: 40GB..).",
    )
    count: int = Field(1, ge=1, le=1024, description="Accelerators per node.")

    @model_validator(mode="after")
    def _type_or_memory(self) -> "Accelerator":
        if self.type is None and self.memory_gib is None:
            raise ValueError("give the GPU type, or at least its memory (memoryGib)")
        return self


class Placement(CamelRecord):
    """One placement a launcher may pick for a workload."""

    provider: str | None = Field(None, pattern=r"^[a-z0-9][a-z0-9-]*$")
    region: str | None = None
    instance_type: str | None = None
    accelerator: Accelerator | None = None
    capacity: Capacity | None = None


class Resources(CamelRecord):
    provider: str | None = Field(
        None, pattern=r"^[a-z0-9][a-z0-9-]*$", description="aws, gcp, azure, on-prem, ..."
    )
    region: str | None = None
    instance_type: str | None = None
    accelerator: Accelerator | None = None
    gpus_of_unknown_type: int | None = Field(
        None,
        ge=1,
        description="GPUs per node the workload requests without saying which type (a Kubernetes "
        "nvidia.com/gpu limit with no GPU node selector, a dstack gpu count): memory cannot be "
        "checked until the type is declared in accelerator.",
    )
    gpu_count_unknown: bool | None = Field(
        None,
        description="GPUs are requested but how many cannot be read (a template placeholder, a "
        "value the platform rejects): nothing that needs the count is judged.",
    )
    nodes: int = Field(1, ge=1, le=100_000)
    capacity: Capacity = "on-demand"
    pool: str | None = Field(None, description="Capacity pool, cluster or node group it runs on.")
    alternatives: list[Placement] = Field(
        default_factory=empty_list,
        description="Other placements the launcher may choose instead (SkyPilot any_of, "
        "dstack gpu alternatives); each is checked like the main one.",
    )


class Lifecycle(CamelRecord):
    idle_shutdown_minutes: int | None = Field(None, ge=0, le=1_000_000)
    max_runtime_hours: float | None = Field(None, gt=0)
    scale_to_zero: bool | None = Field(
        None, description="Inference: replicas drop to zero when there is no traffic."
    )
    always_on: str | None = Field(
        None, min_length=1, description="Inference: why this service must never scale down."
    )
    restart_on_preemption: bool | None = Field(
        None,
        description="The launcher restarts the job on new capacity after a preemption (SkyPilot "
        "managed-job recovery, dstack retry on interruption).",
    )
    hours_per_month: float | None = Field(
        None,
        gt=0,
        le=744,
        description="Expected running hours per month, for cost "
        "(default: 730 for inference, maxRuntimeHours for jobs).",
    )


class Checkpointing(CamelRecord):
    enabled: bool | None = None
    interval_minutes: float | None = Field(None, gt=0)
    uri: str | None = None
    resume_from_latest: bool | None = None
    decided_in: str | None = Field(
        None,
        min_length=1,
        description="A file gpulint does not read that decides the fields left unset (a "
        "training script it does not know, a trainer config outside the repository): they are "
        "unknown there, not absent.",
    )


class Data(CamelRecord):
    personal_data: bool | None = None
    categories: list[str] = Field(default_factory=empty_list)
    residency: list[str] = Field(
        default_factory=empty_list, description="Allowed jurisdictions, e.g. [EU]."
    )
    lawful_basis: LawfulBasis | None = None
    transparency_notice: str | None = Field(
        None, description="Where data subjects are told (URL or document id)."
    )
    processor_agreement: str | None = Field(
        None, description="Data processing agreement reference for managed APIs."
    )


class Endpoint(CamelRecord):
    provider: str = Field(min_length=1, description="bedrock, vertex-ai, azure-openai, ...")
    model: str | None = None
    region: str | None = None
    inference_profile: str | None = None
    deployment_type: str | None = Field(
        None,
        description="Azure OpenAI: global, data-zone or regional; Bedrock: provisioned (a "
        "Provisioned Throughput, served from the model units bought).",
    )
    expected_requests_per_minute: float | None = Field(None, ge=0)
    expected_tokens_per_minute: float | None = Field(None, ge=0)


class Justification(CamelRecord):
    self_hosting: str | None = Field(None, min_length=1)
    training_from_scratch: str | None = Field(None, min_length=1)


class AcceptableUse(CamelRecord):
    reviewed: bool | None = None
    policy: str | None = None


class WorkloadSpec(CamelRecord):
    profile: Profile
    model: Model = Field(default_factory=Model)
    serving: Serving = Field(default_factory=Serving)
    fine_tuning: FineTuning = Field(default_factory=FineTuning)
    resources: Resources = Field(default_factory=Resources)
    lifecycle: Lifecycle = Field(default_factory=Lifecycle)
    checkpointing: Checkpointing = Field(default_factory=Checkpointing)
    data: Data = Field(default_factory=Data)
    endpoints: list[Endpoint] = Field(default_factory=empty_list)
    justification: Justification = Field(default_factory=Justification)
    acceptable_use: AcceptableUse = Field(default_factory=AcceptableUse)


class Workload(CamelRecord):
    """A deployable AI workload and the capacity it asks for."""

    api_version: Literal[API_VERSION]  # type: ignore[valid-type]
    kind: Literal["Workload"]
    metadata: Metadata
    spec: WorkloadSpec
