"""vLLM releases and how each budgets GPU memory at start-up."""

from typing import Literal

from linter.catalog.base import Catalogue, Record, validated
from linter.declared import Field

VERSION = r"^v?\d+(\.\d+){0,2}$"


class SchedulerDefaults(Record):
    """(max_num_batched_tokens, max_num_seqs) of the OpenAI server, per GPU class."""

    small: list[int] = Field(min_length=2, max_length=2)
    hopper: list[int] = Field(min_length=2, max_length=2)
    large: list[int] = Field(min_length=2, max_length=2)


class Release(Record):
    since: str = Field(pattern=VERSION, description="First release with this accounting.")
    engine: Literal["v0", "v1"]
    profile: Literal["max_model_len", "max_num_batched_tokens"] = Field(
        description="What one profiling forward runs."
    )
    chunked_prefill_above: int | None = Field(
        None, description="V0: max_model_len above which chunked prefill is on by default."
    )
    chunked_prefill_tokens: int | None = Field(
        None, description="V0: max_num_batched_tokens when chunked prefill is on by default."
    )
    default_gpu_memory_utilization: float = Field(gt=0, le=1)
    cuda_graphs_in_budget: bool = Field(
        description="CUDA-graph memory is estimated and taken out of the KV budget."
    )
    sampler_bytes_per_logit: int = Field(
        ge=0,
        description="Peak bytes per logit of the profiling sampler run (max_num_seqs x vocab).",
    )
    tp_all_reduce_retained: bool = Field(
        False,
        description=(
            "Under tensor parallelism the profiled peak also holds every layer's all-reduce "
            "inputs (the caching allocator could not reuse them before the release set "
            "TORCH_NCCL_AVOID_RECORD_STREAMS=1)."
        ),
    )
    scheduler_defaults: SchedulerDefaults
    source: str = Field(min_length=1)


class Overheads(Record):
    """Memory outside PyTorch's allocator and the CUDA-graph pool, per GPU."""

    non_torch_gib: float = Field(ge=0)
    non_torch_tensor_parallel_gib: float = Field(ge=0)
    cuda_graph_gib: float = Field(ge=0)
    vision_profile_image_tokens: int = Field(
        ge=1, description="Language-model tokens of the largest image the encoder is profiled on."
    )
    source: str = Field(min_length=1)


class EngineReleaseCatalogue(Catalogue):
    """gpulint vLLM accounting catalogue."""

    default_version: str = Field(pattern=VERSION)
    releases: list[Release] = Field(min_length=1)
    overheads: Overheads


def catalogue() -> EngineReleaseCatalogue:
    return validated("engines", EngineReleaseCatalogue)
