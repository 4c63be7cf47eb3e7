"""What a serving pod that requests no GPU runs its engine on instead: a TPU, Neuron, Gaudi or
Intel GPU it requests (``google.com/tpu`` in a container's resources), else the build its
engine's image names (``vllm-cpu-release-repo``). None: it runs a GPU build without a GPU."""

from __future__ import annotations

from linter.formats.builder import unrendered
from linter.formats.cmdline.devices import image_device, resource_device
from linter.formats.kubernetes.containers import LaunchedProgram
from linter.formats.kubernetes.labels import gpu_resources
from linter.formats.kubernetes.pods import PodSpec, containers, mapping
from linter.formats.kubernetes.scheduling import StatedValue

_SECTIONS = ("limits", "requests")


def writes_gpu_request(pod: PodSpec) -> bool:
    """Whether any container names a GPU resource in its limits or requests, readable or not,
    or leaves its resources, limits or requests to a template placeholder (``limits: {{ toYaml
    .Values.limits }}``), which may hold one."""
    for container in containers(pod):
        resources = container.data.get("resources")
        sections = [mapping(resources).get(section) for section in _SECTIONS]
        if any(_placeholder(value) for value in (resources, *sections)):
            return True
        if any(
            resource in mapping(section) for section in sections for resource in gpu_resources()
        ):
            return True
    return False


def _placeholder(value: object) -> bool:
    return isinstance(value, str) and unrendered("", value) is not None


def requested_device(pod: PodSpec, program: LaunchedProgram | None) -> StatedValue | None:
    for container in containers(pod):
        resources = mapping(container.data.get("resources"))
        for section in _SECTIONS:
            for resource in mapping(resources.get(section)):
                device = resource_device(resource) if isinstance(resource, str) else None
                if device is not None:
                    path = (*container.path, "resources", section, resource)
                    name = f"{resource} in the {container.name} container's resources"
                    return StatedValue.at(device, path, name)
    if program is not None and program.image is not None:
        image, path = program.image
        device = image_device(image)
        if device is not None:
            return StatedValue.at(device, path, f"the image {image} of {program.owner}")
    return None
