"""The cost of the same paths at a git revision: what a change is compared with."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from linter.config import LoadedConfig
from linter.costs.estimate import Estimate, WorkloadCost, estimate
from linter.costs.git_tree import Revision, RevisionFiles, resolve, revision_sources
from linter.load import DEFAULT_MAX_BYTES
from linter.pricing.budgets import CostBase, Costed
from linter.records import datarecord


@datarecord
class Baseline:
    """A revision's estimate, and the same as a cost base for facts."""

    revision: Revision
    revision_files: RevisionFiles
    estimate: Estimate
    #: Files (or folders) that could not be read or validated there, with why.
    problems: dict[str, str]

    def cost_base(self) -> CostBase:
        workloads = tuple(costed(w) for w in self.estimate.workloads)
        return CostBase(self.revision.ref, self.revision.commit, workloads, self.problems)


def costed(workload: WorkloadCost) -> Costed:
    return Costed(
        workload.file,
        workload.index,
        workload.part,
        workload.name,
        workload.labels,
        workload.cost.monthly,
    )


def max_bytes(config: LoadedConfig) -> int:
    return config.config.max_file_size or DEFAULT_MAX_BYTES


def load_baseline(ref: str, paths: Sequence[str], config: LoadedConfig, cwd: Path) -> Baseline:
    """Read ``paths`` at ``ref`` with git and cost their workloads."""
    revision = resolve(ref, cwd)
    files = revision_sources(revision, paths, config.config.exclude, max_bytes(config), cwd)
    found = estimate(files.sources, config)
    problems: dict[str, str] = {}
    for problem in found.problems:
        problems.setdefault(problem.file, problem.message)
    return Baseline(revision, files, found, {**problems, **files.folders_not_read})
