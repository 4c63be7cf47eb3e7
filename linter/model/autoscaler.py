"""The ``Autoscaler`` kind: an object that sets how many replicas another object runs, between
a minimum and a maximum, by load.

gpulint reads these from Kubernetes (KEDA ScaledObject, HorizontalPodAutoscaler:
linter/formats/kubernetes/autoscalers.py); they can also be written directly. An autoscaler
scales the workload read from the object its ``target`` names (kind and name) in its own
namespace (linter/facts/scaling.py): a minimum of 0 scales that workload to zero.
"""

from typing import Literal

from linter.declared import CamelRecord, Field, model_validator
from linter.model.base import API_VERSION, Metadata


class ScaleTarget(CamelRecord):
    kind: str = Field(min_length=1, description="Kind of the object it scales: Deployment, ...")
    name: str = Field(min_length=1, description="Name of the object it scales.")


class AutoscalerSpec(CamelRecord):
    target: ScaleTarget
    min_replicas: int = Field(
        ge=0, le=100_000, description="Replicas kept when there is no load (0: scale to zero)."
    )
    max_replicas: int | None = Field(
        None, ge=0, le=100_000, description="Most replicas it may add."
    )

    @model_validator(mode="after")
    def _ordered(self) -> "AutoscalerSpec":
        if self.max_replicas is not None and self.max_replicas < self.min_replicas:
            raise ValueError("maxReplicas is below minReplicas")
        return self


class Autoscaler(CamelRecord):
    """What scales another object's replicas."""

    api_version: Literal[API_VERSION]  # type: ignore[valid-type]
    kind: Literal["Autoscaler"]
    metadata: Metadata
    spec: AutoscalerSpec
