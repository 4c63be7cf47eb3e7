"""What the first pass keeps of a manifest for the run-wide rules: the values they read, and
where each path they may point at is, located only where they may point."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from linter import facts
from linter.config import load_config
from linter.facts import Facts
from linter.load.discovery import find_candidates
from linter.load.positions import parse_path
from linter.model.manifest import Manifest
from linter.policy.evaluator import is_run_wide
from linter.policy.loader import Rulebook
from linter.policy.selection import RuleSettings
from linter.run.first_pass import FirstPass
from linter.run.runner import collect
from linter.run.wide_parts import Anchors, defer

WORKLOAD = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata:
  name: chat
spec:
  profile: inference
  model: {id: Qwen/Qwen2.5-7B}
  resources:
    provider: aws
    accelerator: {type: L4, count: 1}
    pool: serving
  endpoints:
    - {provider: bedrock, region: eu-central-1}
"""


def manifest(tmp_path: Path) -> Manifest:
    (tmp_path / "w.yaml").write_text(WORKLOAD)
    (found,) = collect(find_candidates([str(tmp_path)], []).candidates).manifests
    return found


def paths(*written: str) -> frozenset[tuple[str | int, ...]]:
    return frozenset(parse_path(path) for path in written)


def test_exact_anchors_are_located_alone_and_subtrees_whole(tmp_path: Path) -> None:
    anchors = Anchors(
        exact=paths("spec.resources.accelerator", "spec.resources.region", "kind"),
        subtrees=paths("spec.endpoints"),
    )
    part = defer(manifest(tmp_path), {}, anchors)
    assert set(part.spots) == {
        "kind",
        "spec.resources.accelerator",  # not what is below it; region is absent
        "spec.endpoints",
        "spec.endpoints[0]",
        "spec.endpoints[0].provider",
        "spec.endpoints[0].region",
        "spec",  # ancestors, located whether present or not
        "spec.resources",
        "<document>",
    }
    assert part.spots["spec.endpoints[0].region"][:2] == (13, 27)
    assert part.location(parse_path("spec.resources.accelerator.type")).span.line == 10


def test_a_placeholder_path_points_where_its_facts_say(rulebook: Rulebook) -> None:
    wide = [(rule, RuleSettings()) for rule in rulebook if is_run_wide(rule)]
    anchors = FirstPass.plan(wide, load_config(None), False).anchors
    capacity = facts.PROVIDERS["capacity"].run
    assert capacity is not None
    # GL307 points at '{item.path}': the paths facts.capacity names, not the whole workload
    assert paths(*capacity.points_at["Workload"]) <= anchors["Workload"].subtrees
    assert () not in anchors["Workload"].subtrees
    assert paths("spec.endpoints") <= anchors["Workload"].subtrees  # GL305's static start
    assert paths("spec.resources.instanceType", "metadata.name") <= anchors["Workload"].exact
    assert anchors["CapacityLimit"].subtrees == paths(*capacity.points_at["CapacityLimit"])


def test_membership_in_facts_computes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    computed: list[str] = []
    for name, provider in facts.PROVIDERS.items():
        if provider.compute is not None:
            counted = dataclasses.replace(provider, compute=lambda _, n=name: computed.append(n))
            monkeypatch.setitem(facts.PROVIDERS, name, counted)
    found = Facts(manifest(tmp_path))
    assert "memory" in found and "quota" in found and "nothing" not in found
    assert computed == []
