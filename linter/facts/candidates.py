"""The ``candidates`` fact: every placement the launcher may pick (the workload's own and each of
``resources.alternatives``: SkyPilot ``any_of`` / ``ordered`` / accelerator sets and lists,
dstack GPU name lists), each sized by the memory provider as if it were the only one.

An alternative is the same workload with that placement: its accelerator and instance type
replace the workload's (an alternative that names neither keeps the workload's hardware), and
its provider, region and capacity replace the workload's where it gives them. Every candidate
may be picked: an ordered list falls through to a later entry when the earlier ones have no
capacity, and a set or ``any_of`` picks the cheapest, which is often the smallest GPU.

Only ``MemoryFact.status`` (``checked`` means sized) and ``MemoryFact.fits`` are read: a
candidate runs the model when the sized estimate fits, fails when it does not, and is not sized
otherwise (unknown GPU, no model, a profile that is not sized).
"""

from linter.facts import memory
from linter.facts.base import Fact, described
from linter.facts.subject import Subject
from linter.model import Workload
from linter.model.workload import Accelerator, Placement
from linter.wording import listing

MAIN_PATH = "spec.resources"
CHECKED = "checked"


class Candidate(Fact):
    text: str = described("The placement as messages name it, e.g. '1 x L4'.")
    path: str = described("Normalised path of the candidate's hardware in the workload.")
    status: str = described("The memory fact's status for this candidate.")
    runs: bool | None = described("It holds the model; null when it was not sized.")


class CandidatesFact(Fact):
    count: int = described("Placements the launcher may pick (0 when there is one).")
    candidates: list[Candidate] = described("Empty when there are no alternatives.")
    failing: list[str] = described("Candidates that cannot run the model.")
    working: list[str] = described("Candidates that run it.")
    unsized: list[str] = described("Candidates that could not be sized.")
    failing_text: str
    working_text: str
    some_fail: bool = described("At least one candidate cannot run the model.")
    all_fail: bool = described("Every candidate was sized and none can run the model.")
    first_failing_path: str | None = described("Where the first failing one is written.")


def compute(subject: Subject) -> CandidatesFact:
    workload = subject.workload
    alternatives = workload.spec.resources.alternatives
    if not alternatives:
        return _fact([])
    placements: list[tuple[Workload, str]] = [(workload, _hardware_path(MAIN_PATH, workload))]
    for index, alternative in enumerate(alternatives):
        sized = _with_placement(workload, alternative)
        base = f"spec.resources.alternatives[{index}]"
        placements.append((sized, _hardware_path(base, sized, alternative)))
    texts = _texts([w for w, _ in placements])
    out = []
    for (candidate, path), text in zip(placements, texts, strict=True):
        found = memory.compute_as(subject, candidate)
        runs = found.fits if found.status == CHECKED else None
        out.append(Candidate(text=text, path=path, status=found.status, runs=runs))
    return _fact(out)


def _with_placement(workload: Workload, alternative: Placement) -> Workload:
    resources = workload.spec.resources
    hardware = alternative.accelerator is not None or alternative.instance_type is not None
    update: dict[str, object] = {
        "provider": alternative.provider or resources.provider,
        "region": alternative.region or resources.region,
        "capacity": alternative.capacity or resources.capacity,
        "accelerator": alternative.accelerator if hardware else resources.accelerator,
        "instance_type": alternative.instance_type if hardware else resources.instance_type,
        "alternatives": [],
    }
    spec = workload.spec.model_copy(update={"resources": resources.model_copy(update=update)})
    return workload.model_copy(update={"spec": spec})


def _hardware_path(base: str, workload: Workload, alternative: Placement | None = None) -> str:
    """Where a candidate's hardware is written: its accelerator, else its instance type."""
    if alternative is not None:
        if alternative.accelerator is not None:
            return f"{base}.accelerator"
        if alternative.instance_type is not None:
            return f"{base}.instanceType"
        return base
    resources = workload.spec.resources
    if resources.accelerator is not None:
        return f"{base}.accelerator"
    return f"{base}.instanceType" if resources.instance_type is not None else base


def _texts(workloads: list[Workload]) -> list[str]:
    """Each candidate's hardware in words; where two read the same, with where they run."""
    hardware = [_hardware_text(w) for w in workloads]
    out = []
    for text, workload in zip(hardware, workloads, strict=True):
        resources = workload.spec.resources
        place = "/".join(p for p in (resources.provider, resources.region) if p)
        out.append(f"{text} on {place}" if hardware.count(text) > 1 and place else text)
    return out


def _hardware_text(workload: Workload) -> str:
    resources = workload.spec.resources
    accelerator: Accelerator | None = resources.accelerator
    if accelerator is not None and accelerator.type is not None:
        return f"{accelerator.count} x {accelerator.type}"
    if accelerator is not None and accelerator.memory_gib is not None:
        return f"{accelerator.count} x GPU with {accelerator.memory_gib:g} GB or more"
    return resources.instance_type or "unspecified hardware"


def _fact(candidates: list[Candidate]) -> CandidatesFact:
    failing = [c.text for c in candidates if c.runs is False]
    working = [c.text for c in candidates if c.runs is True]
    unsized = [c.text for c in candidates if c.runs is None]
    first = next((c.path for c in candidates if c.runs is False), None)
    return CandidatesFact(
        count=len(candidates),
        candidates=candidates,
        failing=failing,
        working=working,
        unsized=unsized,
        failing_text=listing(failing),
        working_text=listing(working),
        some_fail=bool(failing),
        all_fail=bool(candidates) and len(failing) == len(candidates),
        first_failing_path=first,
    )
