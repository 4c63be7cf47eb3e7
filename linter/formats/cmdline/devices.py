"""The hardware a serving engine's build runs on when it is not a GPU: read from the words of
its container image (``vllm-cpu-release-repo``, ``latest-intel-cpu``) or from the device a pod
requests instead of a GPU (``google.com/tpu``). Data in ``data/engine_devices.yaml``, with
sources."""

from __future__ import annotations

import functools
import re

from linter.catalog.base import Catalogue, SourcedName
from linter.declared import Field
from linter.formats.vocabulary import read_vocabulary
from linter.model.workload import Device

_WORD = re.compile(r"[a-z0-9]+")


class DeviceName(SourcedName):
    device: Device


class DeviceTables(Catalogue):
    """``data/engine_devices.yaml``."""

    image_words: list[DeviceName] = Field(min_length=1)
    resources: list[DeviceName] = Field(min_length=1)


@functools.cache
def tables() -> DeviceTables:
    return read_vocabulary("engine_devices.yaml", DeviceTables)


@functools.cache
def _image_words() -> dict[str, Device]:
    return {entry.name: entry.device for entry in tables().image_words}


@functools.cache
def _resources() -> dict[str, Device]:
    return {entry.name: entry.device for entry in tables().resources}


def image_device(image: str) -> Device | None:
    """The device an image's build targets, from the first of its words that names one."""
    words = _image_words()
    for word in _WORD.findall(image.lower()):
        if word in words:
            return words[word]
    return None


def resource_device(resource: str) -> Device | None:
    """The device a Kubernetes extended resource requests (``google.com/tpu``: tpu)."""
    return _resources().get(resource)
