"""Which vLLM accounting applies: engine version, profiling, scheduler defaults, overheads.

V0 (before v0.8) profiled one ``max_model_len`` prefill (or a 512-token chunk when chunked prefill
was on by default, above 32K tokens); V1 profiles one ``max_num_batched_tokens`` step plus a
sampler warm-up over ``max_num_seqs``. Since v0.21 the CUDA-graph pool is estimated and taken out
of the KV budget; before, graphs were captured after it (linter/catalog/data/engines.yaml).
"""

from __future__ import annotations

import re

from linter.catalog.engines import Release, catalogue
from linter.catalog.gpus import GpuSpec
from linter.memory.units import GIB
from linter.records import datarecord

_VERSION = re.compile(r"^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$")
#: GPU classes of vLLM's scheduler defaults (vllm/engine/arg_utils.py).
HOPPER_CLASS_GIB = 70
LARGE_CLASS_GIB = 160


def parse_version(text: str) -> tuple[int, int, int]:
    """``0.11``, ``v0.11.2`` -> (0, 11, 2); ValueError for anything else."""
    match = _VERSION.match(text.strip())
    if match is None:
        raise ValueError(f"engine version {text!r} is not a release like 0.11 or 0.11.2")
    major, minor, patch = (int(part or 0) for part in match.groups())
    return major, minor, patch


@datarecord
class Accounting:
    """The accounting one vLLM release applies, and what it was chosen from."""

    version: str
    release: Release
    assumed_version: bool

    @property
    def engine(self) -> str:
        return self.release.engine

    def describe(self) -> str:
        graphs = "inside" if self.release.cuda_graphs_in_budget else "outside"
        how = "one max_model_len prefill" if self.engine == "v0" else "one scheduler step"
        default = " (default: a current release)" if self.assumed_version else ""
        return (
            f"vLLM {self.version}{default}, {self.engine.upper()} engine: profiles {how}; "
            f"CUDA graphs {graphs} the KV budget"
        )


def accounting_for(version: str | None, engine: str | None = None) -> Accounting:
    """The accounting of vLLM ``version`` (default: the catalogue's current release). ``engine``
    (``v0`` or ``v1``) picks the engine where a release shipped both (0.8-0.10 ran V0 when
    ``VLLM_USE_V1=0`` or for models V1 did not support yet)."""
    data = catalogue()
    chosen = version or data.default_version
    wanted = parse_version(chosen)
    if engine is not None and engine not in ("v0", "v1"):
        raise ValueError(f"engine {engine!r} is not v0 or v1")
    applicable = [
        r for r in data.releases if parse_version(r.since) <= wanted and engine in (None, r.engine)
    ]
    if not applicable:
        raise ValueError(f"no accounting catalogued for vLLM {chosen} {engine or ''}".rstrip())
    release = max(applicable, key=lambda r: parse_version(r.since))
    return Accounting(chosen.removeprefix("v"), release, version is None)


def scheduler_defaults(gpu: GpuSpec, accounting: Accounting) -> tuple[int, int]:
    """vLLM's default (max_num_batched_tokens, max_num_seqs) for a GPU on this release."""
    defaults = accounting.release.scheduler_defaults
    gib = gpu.usable_bytes / GIB
    if gib >= LARGE_CLASS_GIB:
        chosen = defaults.large
    elif gib < HOPPER_CLASS_GIB or gpu.name.startswith("A100"):
        chosen = defaults.small
    else:
        chosen = defaults.hopper
    return chosen[0], chosen[1]


def profiled_tokens(accounting: Accounting, max_model_len: int, batched_tokens: int) -> int:
    """Tokens in the profiling forward: V0 without chunked prefill ran one full sequence."""
    release = accounting.release
    if release.profile == "max_model_len":
        threshold = release.chunked_prefill_above
        if threshold is not None and max_model_len > threshold and release.chunked_prefill_tokens:
            return release.chunked_prefill_tokens
        return max(max_model_len, batched_tokens)
    return batched_tokens


#: Tensor-parallel all-reduces per decoder layer: after the attention output projection and
#: after the MLP (or MoE) down projection.
ALL_REDUCES_PER_LAYER = 2
#: Bytes per activation element in the 16-bit forward.
ACTIVATION_BYTES = 2


def retained_all_reduce_bytes(
    accounting: Accounting, layers: int, hidden_size: int, tokens: int, tensor_parallel: int
) -> int:
    """All-reduce inputs the profiling forward could not reuse (vLLM issue #2150): on releases
    whose ``tp_all_reduce_retained`` is set, every layer's ``[tokens, hidden]`` all-reduce
    input stays reserved until the forward ends, and the profiler counts reserved memory."""
    if tensor_parallel < 2 or not accounting.release.tp_all_reduce_retained:
        return 0
    return ALL_REDUCES_PER_LAYER * layers * tokens * hidden_size * ACTIVATION_BYTES


def non_torch_bytes(tensor_parallel: int) -> int:
    """Memory outside PyTorch's allocator counted in the budget (cuBLAS workspaces, and NCCL and
    custom all-reduce buffers under tensor parallelism)."""
    overheads = catalogue().overheads
    gib = (
        overheads.non_torch_tensor_parallel_gib if tensor_parallel > 1 else overheads.non_torch_gib
    )
    return int(gib * GIB)


def cuda_graph_bytes(accounting: Accounting, enforce_eager: bool) -> int:
    """CUDA-graph pool taken out of the KV budget (0 before v0.21 or with --enforce-eager)."""
    if enforce_eager or not accounting.release.cuda_graphs_in_budget:
        return 0
    return int(catalogue().overheads.cuda_graph_gib * GIB)
