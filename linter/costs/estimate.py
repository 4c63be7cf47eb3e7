"""The cost of every workload of what was read: the runner's reading and validation, then the
``cost`` fact of each workload (no second parser, no second price logic)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from linter.findings import Finding
from linter.sources import Source

if TYPE_CHECKING:
    from linter.costs.budgets import CostInputs
    from linter.facts.cost import CostFact
    from linter.model import Workload


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class Problem:
    """A file, or a document in it, whose workloads could not be costed."""

    file: str
    line: int
    message: str


@dataclass
class Estimate:
    workloads: list[WorkloadCost] = field(default_factory=list)
    #: What ``gpulint check`` reports as GL001/GL002 (unreadable files, invalid documents).
    problems: list[Problem] = field(default_factory=list)

    @property
    def files_with_problems(self) -> set[str]:
        return {problem.file for problem in self.problems}


def estimate(
    sources: Sequence[Source], residency: Sequence[str], inputs: CostInputs | None = None
) -> Estimate:
    """Parse and validate ``sources`` like a lint run, then cost every workload, with the
    organisation's default residency (for the managed-API comparison) and, with ``inputs``,
    the budgets and the cost base."""
    from linter.facts import Facts, RunIndex
    from linter.facts.cost import CostFact
    from linter.model import Workload
    from linter.runner import collect_sources

    collected = collect_sources(sources)
    run = RunIndex(collected.manifests, residency, inputs)
    out = Estimate(problems=[_problem(finding) for finding in collected.findings])
    for manifest in run.workloads:
        cost = Facts(manifest, run).model("cost")
        assert isinstance(cost, CostFact) and isinstance(manifest.model, Workload)
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
                cost,
            )
        )
    return out


def _problem(finding: Finding) -> Problem:
    return Problem(finding.location.file, finding.location.span.line, finding.message)
