"""Memory estimation: does a model fit these GPUs for serving (vLLM accounting) or training.

Pure functions over the packaged catalogue (``linter.catalog``): no other I/O. Byte figures are
integers so results are deterministic.
"""

from __future__ import annotations

from linter.memory.architecture import (
    Architecture,
    ArchitectureError,
    architecture_from_catalogue,
    architecture_from_hf_config,
)
from linter.memory.inference import InferenceEstimate, estimate_inference
from linter.memory.right_sizing import (
    GpuSpec,
    InstanceSpec,
    Interconnect,
    all_gpus,
    resolve_gpu,
    resolve_instance,
    smallest_fitting_gpu,
)
from linter.memory.training import TrainingEstimate, estimate_training

__all__ = [
    "Architecture",
    "ArchitectureError",
    "GpuSpec",
    "InferenceEstimate",
    "InstanceSpec",
    "Interconnect",
    "TrainingEstimate",
    "all_gpus",
    "architecture_from_catalogue",
    "architecture_from_hf_config",
    "estimate_inference",
    "estimate_training",
    "resolve_gpu",
    "resolve_instance",
    "smallest_fitting_gpu",
]
