"""The engine release a container image runs, set on a workload: it decides vLLM's start-up
memory accounting (``serving.engineVersion``). A Kubernetes container's ``image``, SkyPilot's
``image_id: docker:...`` and dstack's ``image`` all name one."""

from __future__ import annotations

from linter.formats.builder import WorkloadBuilder
from linter.formats.cmdline.engines import release_of_image
from linter.model.provenance import Origin

RELEASE_FIELD = "spec.serving.engineVersion"


def set_release(
    builder: WorkloadBuilder, engine: str, image: object, origin: Origin, name: str
) -> None:
    """Set the release of ``engine`` that ``image`` names, unless the file already says one."""
    if not isinstance(image, str) or builder.has(RELEASE_FIELD):
        return
    release = release_of_image(image, engine)
    if release is not None:
        builder.set(RELEASE_FIELD, release, origin, name=name)
