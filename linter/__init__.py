"""gpulint: lint AI/GPU workload manifests before a GPU is provisioned.

The version is written once, in pyproject.toml; ``version()`` (and ``linter.__version__``)
reads it from the installed package's metadata, on first use: finding the metadata costs a few
milliseconds that a run which never prints the version does not pay.
"""

from __future__ import annotations

import functools

#: What ``version()`` says when gpulint runs from a source tree that was never installed.
NOT_INSTALLED = "0+unknown"


@functools.cache
def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("gpulint")
    except PackageNotFoundError:
        return NOT_INSTALLED


def __getattr__(name: str) -> str:
    if name == "__version__":
        return version()
    raise AttributeError(f"module 'linter' has no attribute {name!r}")
