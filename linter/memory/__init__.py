"""Memory estimation: does a model fit these GPUs for serving (vLLM accounting) or training.

Pure functions over the packaged catalogue (``linter.catalog``): no other I/O. Byte figures are
integers so results are deterministic.

Each name below is imported from its module on first use: a serving manifest never sizes
training, whose estimator (a dozen modules of records) would be a twentieth of its start-up
(issue 31).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

#: The module each public name lives in.
_HOMES = {
    "architecture": (
        "Architecture",
        "ArchitectureError",
        "architecture_from_catalogue",
        "architecture_from_hf_config",
    ),
    "inference": ("InferenceEstimate", "estimate_inference"),
    "right_sizing": (
        "GpuSpec",
        "InstanceSpec",
        "Interconnect",
        "all_gpus",
        "resolve_gpu",
        "resolve_instance",
        "smallest_fitting_gpu",
    ),
    "training": ("TrainingEstimate", "estimate_training"),
}


def __getattr__(name: str) -> Any:
    for module, names in _HOMES.items():
        if name in names:
            value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
            globals()[name] = value  # found here from now on, without this hook
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
