"""The cost of every workload of what was read: the runner's reading and validation, then the
``cost`` fact of each workload (no second parser, no second price logic)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import field
from typing import TYPE_CHECKING

from linter.config import LoadedConfig
from linter.findings import Finding
from linter.load.sources import Source
from linter.model import Workload
from linter.records import datarecord

if TYPE_CHECKING:
    from linter.facts.cost import CostFact


@datarecord
class WorkloadCost:
    """One workload with its cost fact, and where it is."""

    file: str  # the display path
    line: int  # of the workload's name
    index: int  # document number in the file
    part: int  # several workloads of one document
    name: str
    format: str
    workload: Workload
    cost: CostFact

    @property
    def labels(self) -> dict[str, str]:
        return self.workload.metadata.labels


@datarecord
class UncostedFile:
    """A file, or a document in it, whose workloads could not be costed."""

    file: str
    line: int
    message: str


@datarecord(frozen=False)
class Estimate:
    workloads: list[WorkloadCost] = field(default_factory=list)
    #: What ``gpulint check`` reports as GL001/GL002 (unreadable files, invalid documents).
    problems: list[UncostedFile] = field(default_factory=list)

    @property
    def files_with_problems(self) -> set[str]:
        return {problem.file for problem in self.problems}


def estimate(sources: Iterable[Source], config: LoadedConfig) -> Estimate:
    """Read ``sources`` like a lint run (the configuration's assumptions included), then cost
    every workload, with the organisation's default residency for the managed-API
    comparison. A workload that names its GPUs but no instance type is priced as the cheapest
    catalogued instance that holds them (``CostFact.assumed_instance_type``)."""
    from linter.facts.cost import cost_of
    from linter.facts.subject import Subject
    from linter.run.runner import collect_sources

    collected = collect_sources(sources, config)
    out = Estimate(problems=[_problem(finding) for finding in collected.findings])
    for manifest in collected.manifests:
        if not isinstance(manifest.model, Workload):
            continue
        line = manifest.location(("metadata", "name")).span.line
        out.workloads.append(
            WorkloadCost(
                manifest.file,
                line,
                manifest.index,
                manifest.part,
                manifest.name,
                manifest.format,
                manifest.model,
                cost_of(
                    Subject(manifest, config.config.residency),
                    compare=True,
                    assume_instance=True,
                ),
            )
        )
    return out


def _problem(finding: Finding) -> UncostedFile:
    return UncostedFile(finding.location.file, finding.location.span.line, finding.message)
