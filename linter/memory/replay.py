"""A logged vLLM start-up beside gpulint's prediction for the same settings.

Used by ``gpulint memory --from-log``, by benchmarks/memory/calibrate.py over the public logs in
benchmarks/memory/vllm_logs.json, and by the tests that pin those cases.
"""

from __future__ import annotations

from linter.catalog.gpus import GpuSpec
from linter.memory.architecture import Architecture
from linter.memory.calibration import Calibration, CalibrationEntry
from linter.memory.inference import InferenceEstimate, estimate_inference
from linter.memory.units import GIB
from linter.records import datarecord


@datarecord
class Settings:
    """What a start-up ran: the flags that change the memory budget."""

    tensor_parallel: int = 1
    expert_parallel: int = 1  # GPUs the routed experts are sharded over (--enable-expert-parallel)
    gpu_memory_utilization: float | None = None
    engine_version: str | None = None
    engine: str | None = None  # v0 or v1, where the release shipped both
    max_model_len: int | None = None
    max_num_seqs: int | None = None
    max_num_batched_tokens: int | None = None
    kv_cache_dtype: str | None = None
    enforce_eager: bool = False
    precision: str | None = None


@datarecord
class Logged:
    """What a start-up log reported (GiB as vLLM prints them; None: not in the log)."""

    weights_gib: float | None = None
    available_kv_gib: float | None = None
    kv_cache_tokens: int | None = None
    max_concurrency: float | None = None
    refused: bool | None = None
    torch_total_gib: float | None = None


@datarecord
class ReplayComparison:
    estimate: InferenceEstimate
    logged: Logged

    @property
    def predicted_weights_gib(self) -> float:
        return self.estimate.weights_bytes_per_gpu / GIB

    @property
    def predicted_available_gib(self) -> float | None:
        pool = self.estimate.kv_pool_bytes
        return None if pool is None else pool / GIB

    def weights_error(self) -> float | None:
        """Relative error of the per-GPU weights (None when the log does not say)."""
        if self.logged.weights_gib is None:
            return None
        return self.predicted_weights_gib / self.logged.weights_gib - 1

    def kv_tokens_error(self) -> float | None:
        """Relative error of the KV-cache capacity in tokens: from the logged token count, or
        from the logged available KV memory when the log gives only that."""
        predicted = self.estimate.kv_cache_tokens
        if predicted is None:
            return None
        if self.logged.kv_cache_tokens:
            return predicted / self.logged.kv_cache_tokens - 1
        available = self.predicted_available_gib
        if self.logged.available_kv_gib and self.logged.available_kv_gib > 0 and available:
            return available / self.logged.available_kv_gib - 1
        return None

    def refusal_matches(self) -> bool | None:
        if self.logged.refused is None or self.estimate.starts is None:
            return None
        return self.logged.refused == (not self.estimate.starts)

    def calibration_entry(self, source: str) -> CalibrationEntry | None:
        """The correction that would make this prediction match the log's available KV memory."""
        if self.logged.available_kv_gib is None or self.estimate.kv_pool_bytes is None:
            return None
        delta = self.estimate.kv_pool_bytes - round(self.logged.available_kv_gib * GIB)
        total = round(self.logged.torch_total_gib * GIB) if self.logged.torch_total_gib else None
        return CalibrationEntry(
            gpu=self.estimate.gpu,
            engine_version=self.estimate.engine_version,
            torch_visible_bytes=total,
            non_kv_delta_bytes=delta,
            source=source,
        )


def replay(
    arch: Architecture,
    gpu: GpuSpec,
    settings: Settings,
    logged: Logged,
    calibration: Calibration | None = None,
) -> ReplayComparison:
    """Predict the start-up ``settings`` describe and set it beside what was ``logged``."""
    context = settings.max_model_len or arch.max_position_embeddings or 4096
    estimate = estimate_inference(
        arch,
        parameters=None,
        precision=settings.precision,
        kv_precision=settings.kv_cache_dtype,
        batch=1,
        context=context,
        gpu=gpu,
        gpus=settings.tensor_parallel,
        gpu_memory_utilization=settings.gpu_memory_utilization,
        max_num_batched_tokens=settings.max_num_batched_tokens,
        max_num_seqs=settings.max_num_seqs,
        enforce_eager=settings.enforce_eager,
        engine_version=settings.engine_version,
        engine=settings.engine,
        expert_parallel=settings.expert_parallel,
        calibration=calibration,
    )
    return ReplayComparison(estimate, logged)
