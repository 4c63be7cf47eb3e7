"""SkyServe's ``service`` section: replicas, autoscaling and on-demand fallback (the SkyPilot YAML
reference, "SkyServe Service"; ``get_service_schema`` in ``sky/utils/schemas.py``).

- ``replicas: N`` is a fixed number of replicas; ``replica_policy.min_replicas`` the fewest the
  autoscaler keeps (0: it scales to zero) and ``max_replicas`` the most (absent: fixed).
- ``base_ondemand_fallback_replicas`` keeps that many replicas on on-demand capacity when the
  rest are spot; ``dynamic_ondemand_fallback: true`` replaces spot replicas that cannot be had
  with on-demand ones, so every replica the service keeps has an on-demand fallback (read as
  that many fallback replicas).
- ``readiness_probe`` is a path or ``{path, ...}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from linter.formats.builder import WorkloadBuilder
from linter.formats.platforms import SkyPilotVocabulary
from linter.load.positions import Path

SERVICE: Path = ("service",)
POLICY: Path = (*SERVICE, "replica_policy")
NAMES = {
    "spec.serving.replicas": "`replica_policy.min_replicas` under service",
    "spec.serving.maxReplicas": "`replica_policy.max_replicas` under service",
    "spec.serving.onDemandFallbackReplicas": (
        "`base_ondemand_fallback_replicas` under service.replica_policy"
    ),
    "spec.lifecycle.scaleToZero": "`min_replicas: 0` under service.replica_policy",
    "spec.lifecycle.idleShutdownMinutes": "an idle shutdown (SkyServe has none: scale to zero)",
}


def read_service(
    builder: WorkloadBuilder, service: Mapping[str, Any], vocab: SkyPilotVocabulary
) -> None:
    for path, name in NAMES.items():
        builder.call(path, name)
    builder.place("spec.serving", builder.at(SERVICE))
    builder.place("spec.lifecycle", builder.at(SERVICE))
    for key in service:
        if key not in vocab.service_keys:
            builder.problem(builder.at((*SERVICE, key)), f"`{key}` is not a SkyServe field")
    _probe(builder, service)
    if "replicas" in service:
        fixed = _count(builder, service["replicas"], (*SERVICE, "replicas"))
        if fixed is not None:
            _replicas(builder, fixed, fixed, (*SERVICE, "replicas"), "`replicas` under service")
    policy = service.get("replica_policy")
    if policy is None:
        return
    if not isinstance(policy, Mapping):
        builder.problem(builder.at(POLICY), "replica_policy is a mapping (min_replicas, ...)")
        return
    low = _count(builder, policy.get("min_replicas"), (*POLICY, "min_replicas"))
    if low is None:
        return
    high = low
    if "max_replicas" in policy:
        high = _count(builder, policy["max_replicas"], (*POLICY, "max_replicas")) or low
        builder.set("spec.serving.maxReplicas", high, builder.at((*POLICY, "max_replicas")))
    _replicas(builder, low, high, (*POLICY, "min_replicas"), NAMES["spec.serving.replicas"])
    _fallback(builder, policy, max(low, 1))


def _probe(builder: WorkloadBuilder, service: Mapping[str, Any]) -> None:
    probe = service.get("readiness_probe")
    path = (*SERVICE, "readiness_probe")
    if probe is None or isinstance(probe, str):
        return
    if not isinstance(probe, Mapping) or not isinstance(probe.get("path"), str):
        builder.problem(builder.at(path), "readiness_probe is a path or {path: ..., ...}")


def _count(builder: WorkloadBuilder, value: object, path: Path) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        builder.problem(builder.at(path), f"{path[-1]} is a whole number, got {value!r}")
        return None
    return value


def _replicas(builder: WorkloadBuilder, low: int, high: int, path: Path, name: str) -> None:
    origin = builder.at(path)
    if low == 0:
        builder.set(
            "spec.lifecycle.scaleToZero", True, origin, name=NAMES["spec.lifecycle.scaleToZero"]
        )
        return
    builder.set("spec.serving.replicas", low, origin, name=name)
    if high == low:
        builder.set("spec.serving.maxReplicas", high, origin)


def _fallback(builder: WorkloadBuilder, policy: Mapping[str, Any], kept: int) -> None:
    base_key, dynamic_key = "base_ondemand_fallback_replicas", "dynamic_ondemand_fallback"
    base_path, dynamic_path = (*POLICY, base_key), (*POLICY, dynamic_key)
    base = _count(builder, policy[base_key], base_path) if base_key in policy else None
    dynamic = policy.get(dynamic_key)
    if dynamic is not None and not isinstance(dynamic, bool):
        builder.problem(
            builder.at(dynamic_path), f"dynamic_ondemand_fallback is true or false, got {dynamic!r}"
        )
        dynamic = None
    if dynamic and not base:
        builder.set("spec.serving.onDemandFallbackReplicas", kept, builder.at(dynamic_path))
    elif base is not None:
        builder.set("spec.serving.onDemandFallbackReplicas", base, builder.at(base_path))
