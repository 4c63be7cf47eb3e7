"""ManifestBuilder for kinds other than Workload (CapacityLimit), and metadata set by an adapter:
values with their origins, validated into the normalised kind, every problem a finding at the
original place."""

from __future__ import annotations

from pathlib import Path

import pytest

from linter.formats.base import InputFile
from linter.formats.builder import ManifestBuilder, WorkloadBuilder
from linter.load import load_text
from linter.model.provenance import Origin

TEXT = """\
kind: Thing
metadata:
  name: trainer
  namespace: ml
spec:
  gpus: lots
"""


def _builder(cls: type[ManifestBuilder]) -> ManifestBuilder:
    document = load_text(TEXT).documents[0]
    file = InputFile("thing.yaml", Path("thing.yaml"), TEXT)
    return cls(document, file, format="test", source_kind="Thing", name="trainer")


def test_a_workload_keeps_its_name_beside_the_metadata_the_adapter_sets() -> None:
    builder = _builder(WorkloadBuilder)
    builder.set("metadata.namespace", "ml", Origin(("metadata", "namespace")))
    builder.set("spec.profile", "training", Origin(("kind",)))
    assert isinstance(builder, WorkloadBuilder)
    [manifest] = builder.build().manifests
    assert manifest.data["metadata"] == {"name": "trainer", "namespace": "ml"}
    assert (manifest.kind, manifest.source_kind, manifest.format) == ("Workload", "Thing", "test")


def test_another_kind_is_validated_and_reported_at_the_original_place() -> None:
    builder = _builder(ManifestBuilder)
    builder.set("spec.scope", "namespace", Origin(("kind",)))
    where = ("spec", "gpus")
    builder.set("spec.limits[0].vendor", "nvidia", Origin(where))
    builder.set("spec.limits[0].gpus", "lots", Origin(where), name="spec.gpus")
    adapted = builder.build_kind("CapacityLimit")
    assert adapted.manifests == []
    [finding] = adapted.findings
    assert (finding.rule_id, finding.location.span.line, finding.location.source_path) == (
        "GL001",
        6,
        where,
    )
    assert finding.message == "spec.gpus: Input should be a valid number (got 'lots')"


def test_each_kind_s_model_is_the_class_its_module_names_after_it() -> None:
    from linter.model import KINDS, kind_model

    assert [(kind_model(kind).__name__, kind_model(kind).__module__) for kind in KINDS] == [
        ("Workload", "linter.model.workload"),
        ("QuotaLedger", "linter.model.quota_ledger"),
        ("CapacityLimit", "linter.model.capacity_limit"),
        ("Autoscaler", "linter.model.autoscaler"),
    ]
    with pytest.raises(KeyError):
        kind_model("Deployment")
