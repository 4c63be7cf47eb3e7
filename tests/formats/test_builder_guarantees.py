"""The workload builder's own guarantees that adapters rely on."""

from __future__ import annotations

from pathlib import Path

from linter.formats.base import InputFile
from linter.formats.builder import WorkloadBuilder
from linter.load import load_text
from linter.model.assumptions import Assumption
from linter.model.provenance import Origin

TEXT = "kind: Thing\nmetadata: {name: x}\nspec:\n  args: [a]\n"


def _builder(assumptions: tuple[Assumption, ...] = ()) -> WorkloadBuilder:
    (document,) = load_text(TEXT).documents
    file = InputFile("x.yaml", Path("x.yaml"), TEXT, assumptions)
    return WorkloadBuilder(document, file, format="test", source_kind="Thing", name="x")


def test_metadata_fields_keep_the_name() -> None:
    builder = _builder()
    builder.set("spec.profile", "inference", Origin(()))
    builder.set("metadata.namespace", "team", Origin(("metadata",)))
    (manifest,) = builder.build().manifests
    assert manifest.data["metadata"] == {"name": "x", "namespace": "team"}


def test_a_file_value_inside_an_assumed_object_leaves_the_assumption_unchanged() -> None:
    assumed = Assumption(("spec", "resources", "accelerator"), {"type": "L4"}, ".gpulint.yaml:2")
    for count in (1, 2):
        builder = _builder((assumed,))
        builder.set("spec.profile", "inference", Origin(()))
        builder.set("spec.resources.accelerator.count", count, Origin(("spec",)))
        (manifest,) = builder.build().manifests
        assert manifest.data["spec"]["resources"]["accelerator"] == {"type": "L4", "count": count}
    assert assumed.value == {"type": "L4"}


def test_a_default_points_at_what_lacks_it_and_an_object_at_its_place() -> None:
    builder = _builder()
    builder.set("spec.profile", "inference", Origin(()))
    builder.default("spec.serving.maxContextTokens", 8, "engine default", lacking=("spec", "args"))
    builder.place("spec.resources", Origin(("spec",)))
    (manifest,) = builder.build().manifests
    default = manifest.provenance.origin(("spec", "serving", "maxContextTokens"))
    assert (default.path, default.kind, default.note) == (
        ("spec", "args"),
        "default",
        "engine default",
    )
    assert manifest.provenance.origin(("spec", "resources", "nodes")).path == ("spec",)
    assert builder.value("spec.serving.maxContextTokens") == 8
    assert builder.name_of("spec.serving.maxContextTokens") is None
