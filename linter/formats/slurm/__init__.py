"""Slurm batch scripts (``.sbatch``, ``.slurm``, and ``.sh`` files with ``#SBATCH`` directives).

``linter.load.sbatch`` reads a script as sbatch does (the directives before the first command,
their arguments with positions, the commands after them); its document has the shape
``{"#SBATCH": [argument, ...]}``, recognised here in a shell script's file. ``job.py`` reads what
the directives ask for and what the commands run into a ``Workload``; recognition and the
markers import nothing of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.formats.base import Adapted, InputFile
from linter.formats.markers import SLURM
from linter.load import Document, syntax_of

name: str = "slurm"
markers: tuple[bytes, ...] = SLURM


def recognises(data: Mapping[str, Any], source: InputFile) -> bool:
    return syntax_of(source.fs_path) == "shell" and list(data) == ["#SBATCH"]


def claims(text: str) -> bool:
    """A batch script always reads (a problem is a finding at its directive)."""
    return False


def adapt(document: Document, source: InputFile) -> Adapted:
    from linter.formats.slurm.job import adapt as read

    return read(document, source)


__all__ = ["adapt", "claims", "markers", "name", "recognises"]
