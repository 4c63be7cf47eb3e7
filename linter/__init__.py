"""gpulint: lint AI/GPU workload manifests before a GPU is provisioned."""

from __future__ import annotations

__version__ = "0.2.0"
