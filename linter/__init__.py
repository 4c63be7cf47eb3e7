"""gpulint: lint AI/GPU workload manifests before a GPU is provisioned.

The version is written once, here: pyproject.toml takes it from this file when the package is
built (``[tool.hatch.version]``), so the installed metadata says the same, and a run reads it
as a constant. Reading it back from the metadata searched ``sys.path`` for the distribution on
every run that wrote a report or used the start-up cache, which is every run.
"""

from __future__ import annotations

__version__ = "0.2.0"


def version() -> str:
    """gpulint's version, as ``gpulint --version`` and the reports give it."""
    return __version__
