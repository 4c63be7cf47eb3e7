"""The ``recovery`` fact: what a job has, and lacks, to survive a spot preemption, in the file's
words, for messages that say what was found as well as what is missing.

Surviving a preemption takes three things: checkpoints written somewhere that outlives the node,
a start that resumes from the latest one, and a launcher that restarts the job on new capacity
(SkyPilot managed-job recovery, dstack ``retry`` on interruption). Where a value is the
launcher's or trainer's default rather than the file's, the text says whose default it is.
"""

from __future__ import annotations

from pydantic import Field

from linter.facts.base import Fact
from linter.facts.subject import Subject
from linter.load.positions import Path, parse_path
from linter.model.provenance import Provenance
from linter.wording import listing

NOTHING = "nothing that survives a preemption"
_ENABLED = parse_path("spec.checkpointing.enabled")
_RESUME = parse_path("spec.checkpointing.resumeFromLatest")
_RESTART = parse_path("spec.lifecycle.restartOnPreemption")


class RecoveryFact(Fact):
    found: list[str] = Field(description="What the job has toward surviving a preemption.")
    found_text: str = Field(description="The same as a message says it ('nothing ...' if none).")
    saving_off_text: str | None = Field(
        description="Checkpoint saving is off, and whose default that is when it is one."
    )
    no_resume_text: str | None = Field(
        description="The job does not resume from the latest checkpoint, and whose default that is."
    )
    no_restart_text: str | None = Field(
        description="The launcher does not restart the job after a preemption, and whose "
        "default that is."
    )


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
        found_text=listing(found) if found else NOTHING,
        saving_off_text=_said(
            "checkpoint saving is turned off", checkpointing.enabled is False, provenance, _ENABLED
        ),
        no_resume_text=_said(
            "the job does not resume from the latest checkpoint",
            checkpointing.enabled is True and checkpointing.resume_from_latest is not True,
            provenance,
            _RESUME,
        ),
        no_restart_text=_said(
            "the launcher does not restart the job after a preemption",
            lifecycle.restart_on_preemption is False,
            provenance,
            _RESTART,
        ),
    )


def _said(text: str, holds: bool, provenance: Provenance, path: Path) -> str | None:
    """``text`` when ``holds``, followed by the default or assumption it rests on."""
    if not holds:
        return None
    origin = provenance.origins.get(path)
    if origin is not None and origin.kind != "file" and origin.note:
        return f"{text} ({origin.note})"
    return text
