"""The byte markers of the formats that are imported only when a document may be theirs.

Reading a file tests its bytes against every format's markers (``linter.formats.MARKERS``), and
that must not import the formats' adapters: a run of gpulint manifests never needs them, and
they cost more to import than such a run costs in total. Each format module publishes its own
markers as ``markers`` from here (see ``linter.formats`` for why the byte test is sound).

dstack's, SkyPilot's and Terraform's markers are read from their vocabularies' data files, on
first use (``DSTACK``, ``SKYPILOT``, ``TERRAFORM``, below): validating those files costs a
manifest holding an earlier format's marker more than the test itself (issue 31).
"""

from __future__ import annotations

from linter.load import SLURM_MAGIC

KUBERNETES_CAPACITY: tuple[bytes, ...] = (
    b"ClusterQueue",
    b"LocalQueue",
    b"ResourceQuota",
    b"NodePool",
    b"ResourceFlavor",
)
KUBERNETES_AUTOSCALERS: tuple[bytes, ...] = (
    b"ScaledObject",
    b"ScaledJob",
    b"HorizontalPodAutoscaler",
)
PRODUCTION_STACK: tuple[bytes, ...] = (b"servingEngineSpec",)
#: Every Kubernetes object has one (the kind is checked on the parsed document).
KUBERNETES: tuple[bytes, ...] = (b"apiVersion",)
#: A batch script's directives (tested at the start of a line: linter.load.sbatch).
SLURM: tuple[bytes, ...] = tuple(magic.encode() for magic in SLURM_MAGIC)


def _dstack() -> tuple[bytes, ...]:
    """dstack's configuration types: every recognised document holds one."""
    from linter.formats.platforms import platforms

    return tuple(kind.encode() for kind in platforms().dstack.types)


def _skypilot() -> tuple[bytes, ...]:
    """The SkyPilot keys one of which every recognised task holds."""
    from linter.formats.platforms import platforms

    return tuple(key.encode() for key in platforms().skypilot.recognised_by)


def _terraform() -> tuple[bytes, ...]:
    """The resource types the Terraform reader reads: a .tf file naming none of them is not
    parsed, and only these become documents."""
    from linter.formats.terraform_vocabulary import vocabulary

    return tuple(r.type.encode() for r in vocabulary().resources)


_FROM_DATA = {"DSTACK": _dstack, "SKYPILOT": _skypilot, "TERRAFORM": _terraform}


def __getattr__(name: str) -> tuple[bytes, ...]:
    """``DSTACK``, ``SKYPILOT`` and ``TERRAFORM``, read when first asked for, then kept."""
    read = _FROM_DATA.get(name)
    if read is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    found = globals()[name] = read()
    return found
