"""The ``recovery`` fact: what a job has toward surviving a spot preemption, in the file's words,
for messages that say what was found as well as what is missing.

Surviving a preemption takes three things: checkpoints written somewhere that outlives the node,
a start that resumes from the latest one, and a launcher that restarts the job on new capacity
(SkyPilot managed-job recovery, dstack ``retry`` on interruption). Where one of those settings is
the launcher's or trainer's default (or an assumption) rather than the file's, the fact names
whose default it is, as the adapter wrote it; rule GL202 words what is missing.
"""

from linter.facts.base import Fact, described
from linter.facts.subject import Subject
from linter.load.positions import Path, parse_path
from linter.model.provenance import Provenance
from linter.wording import listing

_ENABLED = parse_path("spec.checkpointing.enabled")
_RESUME = parse_path("spec.checkpointing.resumeFromLatest")
_RESTART = parse_path("spec.lifecycle.restartOnPreemption")


class RecoveryFact(Fact):
    found: list[str] = described("What the job has toward surviving a preemption.")
    found_text: str = described("The same, listed ('none' if nothing).")
    saving_default: str | None = described(
        "The default or assumption checkpointing.enabled rests on, in the file's "
        "words ('OpenRLHF's default: --save_steps -1'); null when the file states it."
    )
    resume_default: str | None = described("The same for checkpointing.resumeFromLatest.")
    restart_default: str | None = described("The same for lifecycle.restartOnPreemption.")


def compute(subject: Subject) -> RecoveryFact:
    spec = subject.workload.spec
    provenance = subject.manifest.provenance
    checkpointing, lifecycle = spec.checkpointing, spec.lifecycle
    names = provenance.name
    found = []
    if checkpointing.enabled and checkpointing.uri:
        found.append(f"checkpoints written to {checkpointing.uri}")
    elif checkpointing.enabled:
        found.append("checkpoints written on the node only")
    if checkpointing.interval_minutes is not None:
        found.append(f"a checkpoint every {checkpointing.interval_minutes:g} minutes")
    if checkpointing.resume_from_latest:
        found.append(f"a resume from the latest checkpoint ({names(_RESUME)})")
    if lifecycle.restart_on_preemption:
        found.append(f"a restart after a preemption ({names(_RESTART)})")
    return RecoveryFact(
        found=found,
        found_text=listing(found),
        saving_default=_default(provenance, _ENABLED),
        resume_default=_default(provenance, _RESUME),
        restart_default=_default(provenance, _RESTART),
    )


def _default(provenance: Provenance, path: Path) -> str | None:
    """The note of the default or assumption the value at ``path`` rests on, if it does."""
    origin = provenance.origins.get(path)
    if origin is not None and origin.kind != "file" and origin.note:
        return origin.note
    return None
