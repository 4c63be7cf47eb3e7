"""The shape of ``gpulint facts`` output, from which ``schemas/facts.schema.json`` is generated:
per workload, where it came from, the normalised workload, and every fact."""

from __future__ import annotations

from typing import Any

from pydantic import Field, create_model

from linter.facts import PROVIDERS
from linter.facts.base import Fact

FactsModel = create_model(  # one field per registered provider
    "Facts",
    __base__=Fact,
    __doc__="Every fact of one workload, as rules read them under `facts`.",
    **{  # type: ignore[call-overload]
        name: (provider.model, ...)
        for name, provider in PROVIDERS.items()
        if "Workload" in provider.kinds
    },
)


class FactsEntry(Fact):
    """One workload of ``gpulint facts``."""

    file: str = Field(description="The file, as reports show it.")
    document: int = Field(description="Document number in the file, from 0.")
    part: int = Field(
        description="Which workload of that document (a values file may hold several)."
    )
    name: str = Field(description="metadata.name of the normalised workload.")
    format: str = Field(description="The input format it was read as: gpulint, kubernetes, ...")
    source_kind: str | None = Field(description="The original kind: Deployment, SkyPilot task, ...")
    workload: dict[str, Any] = Field(
        description="The normalised gpulint.dev/v1alpha1 Workload (see workload.schema.json)."
    )
    facts: FactsModel
