"""SkyPilot task and service YAML (``sky launch``, ``sky jobs launch``, ``sky serve up``).

Recognition: SkyPilot files have no ``apiVersion`` or ``kind``, so a document is SkyPilot's when
every top-level key is a SkyPilot task key (``sky/utils/schemas.py``, ``get_task_schema``: name,
resources, num_nodes, envs, secrets, file_mounts, setup, run, service, ...) and it holds one of
``resources``, ``service``, ``run`` or ``setup`` of the right shape: ``resources`` with at least
one SkyPilot resources key, ``service`` with ``readiness_probe``, ``replicas`` or
``replica_policy``, or a ``run`` / ``setup`` script. GitHub workflows (``on``, ``jobs``),
docker-compose files (``services``), Kubernetes objects (``apiVersion``), Helm values (``image``,
``replicaCount``; ``resources.limits``) and dstack files (``type``) all fail it. A file named
``*.sky.yaml`` (SkyPilot's own examples) is recognised with any extra top-level key, which is
then reported. Those four keys are the byte markers: every recognised document has one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from linter.formats.base import Adapted, InputFile
from linter.formats.markers import SKYPILOT
from linter.formats.platforms import platforms
from linter.formats.skypilot.task import FORMAT
from linter.formats.skypilot.task import adapt as _adapt
from linter.load import Document

name: str = FORMAT
markers: tuple[bytes, ...] = SKYPILOT

_SUFFIXES = (".sky.yaml", ".sky.yml")
_RESOURCES_KEY = re.compile(r"^resources:", re.M)
_SCRIPT_KEY = re.compile(r"^(run|setup|service):", re.M)
_SERVICE_SIGNS = ("readiness_probe", "replicas", "replica_policy")


def recognises(data: Mapping[str, Any], source: InputFile) -> bool:
    vocab = platforms().skypilot
    named = source.fs_path.name.endswith(_SUFFIXES)
    if not named and not all(isinstance(k, str) and k in vocab.task_keys for k in data):
        return False
    resources, service = data.get("resources"), data.get("service")
    if resources is not None and not (
        isinstance(resources, Mapping) and any(k in vocab.resource_keys for k in resources)
    ):
        return False
    if service is not None and not (
        isinstance(service, Mapping) and any(k in service for k in _SERVICE_SIGNS)
    ):
        return False
    scripts = [data[k] for k in ("run", "setup") if k in data]
    if any(not isinstance(s, str) for s in scripts if s is not None):
        return False
    return resources is not None or service is not None or bool(scripts)


def claims(text: str) -> bool:
    """A broken file that has SkyPilot's top-level ``resources`` and a script or service."""
    if not (_RESOURCES_KEY.search(text) and _SCRIPT_KEY.search(text)):
        return False
    return any(
        # [ \t], not \s: blanks that may span lines are sought again from every line start
        re.search(rf"^[ \t]+{key}:", text, re.M)
        for key in ("accelerators", "use_spot", "infra")
    )


def adapt(document: Document, source: InputFile) -> Adapted:
    return _adapt(document, source)


__all__ = ["adapt", "claims", "markers", "name", "recognises"]
