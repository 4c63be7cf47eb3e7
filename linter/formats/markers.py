"""The byte markers of the formats that are imported only when a document may be theirs.

Reading a file tests its bytes against every format's markers (``linter.formats.MARKERS``), and
that must not import the formats' adapters: a run of gpulint manifests never needs them, and
they cost more to import than such a run costs in total. Each format module publishes its own
markers as ``markers`` from here (see ``linter.formats`` for why the byte test is sound).
"""

from __future__ import annotations

from linter.formats.platforms import platforms
from linter.formats.terraform_vocabulary import vocabulary
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
#: dstack's configuration types: every recognised document holds one.
DSTACK: tuple[bytes, ...] = tuple(kind.encode() for kind in platforms().dstack.types)
#: The SkyPilot keys one of which every recognised task holds.
SKYPILOT: tuple[bytes, ...] = tuple(key.encode() for key in platforms().skypilot.recognised_by)
#: The resource types the Terraform reader reads: a .tf file naming none of them is not parsed,
#: and only these become documents.
TERRAFORM: tuple[bytes, ...] = tuple(r.type.encode() for r in vocabulary().resources)
#: A batch script's directives (tested at the start of a line: linter.load.sbatch).
SLURM: tuple[bytes, ...] = tuple(magic.encode() for magic in SLURM_MAGIC)
