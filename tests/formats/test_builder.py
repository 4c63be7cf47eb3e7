"""The adapter toolkit: a normalised workload from another format, with provenance."""

from __future__ import annotations

from pathlib import Path

import pytest

from linter.config import ConfigError, load_config
from linter.formats.base import InputFile
from linter.formats.builder import WorkloadBuilder
from linter.load import load_text
from linter.model.assumptions import AssumeBlock, Assumption, assumptions_for, read_annotation
from linter.model.values import ValueProblem

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: chat
  annotations:
    gpulint.dev/region: eu-west-1
    gpulint.dev/residency: "EU, UK"
    gpulint.dev/personal-data: "true"
spec:
  template:
    spec:
      containers:
        - name: vllm
          args: ["vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 9000"]
          resources: {limits: {nvidia.com/gpu: 1}}
"""
ARGS = ("spec", "template", "spec", "containers", 0, "args", 0)


def _builder(text: str = DEPLOYMENT, assumptions: tuple[Assumption, ...] = ()) -> WorkloadBuilder:
    loaded = load_text(text)
    file = InputFile("deploy.yaml", Path("deploy.yaml"), loaded.text, assumptions)
    return WorkloadBuilder(
        loaded.documents[0], file, format="kubernetes", source_kind="Deployment", name="chat"
    )


def test_values_keep_their_origins_and_names() -> None:
    builder = _builder()
    builder.set("spec.profile", "inference", builder.at(("kind",)))
    start = DEPLOYMENT.splitlines()[13].index("9000") - DEPLOYMENT.splitlines()[13].index('"') - 1
    builder.set(
        "spec.serving.maxContextTokens",
        9000,
        builder.at_word(ARGS, start, start + 4),
        name="--max-model-len in the vllm container's args",
    )
    builder.default("spec.serving.gpuMemoryUtilization", 0.9, "vLLM default")
    (manifest,) = builder.build().manifests
    span, original = manifest.provenance.locate(
        ("spec", "serving", "maxContextTokens"), manifest.source_map
    )
    assert (span.line, span.column, span.end_column, original) == (14, 79, 83, ARGS)
    assert manifest.provenance.name(("spec", "serving", "maxContextTokens")) == (
        "--max-model-len in the vllm container's args"
    )
    default = manifest.provenance.origin(("spec", "serving", "gpuMemoryUtilization"))
    assert (default.kind, default.note, default.path) == ("default", "vLLM default", ())
    # annotations set what the format has no place for, typed for their fields
    spec = manifest.data["spec"]
    assert (
        spec["resources"]["region"],
        spec["data"]["residency"],
        spec["data"]["personalData"],
    ) == (
        "eu-west-1",
        ["EU", "UK"],
        True,
    )
    assert manifest.provenance.origin(("spec", "resources", "region")).path == (
        "metadata",
        "annotations",
        "gpulint.dev/region",
    )


def test_an_invalid_value_is_reported_where_it_was_written_in_the_files_words() -> None:
    builder = _builder()
    builder.set("spec.profile", "inference", builder.at(("kind",)))
    builder.set(
        "spec.serving.gpuMemoryUtilization",
        1.5,
        builder.at_word(ARGS, 0, 4),
        name="--gpu-memory-utilization",
    )
    adapted = builder.build()
    assert adapted.manifests == []
    (finding,) = adapted.findings
    assert (finding.rule_id, finding.location.span.line, finding.location.span.column) == (
        "GL001",
        14,
        19,
    )
    assert (
        finding.message
        == "--gpu-memory-utilization: Input should be less than or equal to 1 (got 1.5)"
    )


def test_a_bad_annotation_is_a_finding_at_the_annotation() -> None:
    builder = _builder(DEPLOYMENT.replace('"true"', '"sometimes"'))
    builder.set("spec.profile", "inference", builder.at(("kind",)))
    adapted = builder.build()
    (finding,) = adapted.findings
    assert (finding.location.span.line, finding.message) == (
        8,
        "annotation gpulint.dev/personal-data: Input should be a valid boolean (got 'sometimes')",
    )
    assert len(adapted.manifests) == 1  # the rest of the object is still linted


def test_assumptions_fill_what_the_file_does_not_say_and_never_override_it() -> None:
    assumed = (
        Assumption(("spec", "resources", "provider"), "aws", ".gpulint.yaml:4"),
        Assumption(("spec", "resources", "region"), "us-east-1", ".gpulint.yaml:5"),
    )
    builder = _builder(assumptions=assumed)
    builder.set("spec.profile", "inference", builder.at(("kind",)))
    (manifest,) = builder.build().manifests
    resources = manifest.data["spec"]["resources"]
    assert (resources["provider"], resources["region"]) == ("aws", "eu-west-1")
    origin = manifest.provenance.origin(("spec", "resources", "provider"))
    assert (origin.kind, origin.note) == ("assumed", "assumed from .gpulint.yaml:4")


def test_assume_blocks_match_paths_and_later_blocks_win() -> None:
    first = AssumeBlock(("deploy/**",), (Assumption(("spec", "resources", "region"), "a", "x:1"),))
    later = AssumeBlock(
        ("deploy/eu/*",), (Assumption(("spec", "resources", "region"), "b", "x:2"),)
    )
    assert [a.value for a in assumptions_for("deploy/eu/chat.yaml", [first, later])] == ["b"]
    assert [a.value for a in assumptions_for("deploy/us/chat.yaml", [first, later])] == ["a"]
    assert assumptions_for("other/chat.yaml", [first, later]) == ()


def test_annotations_are_typed_for_their_fields() -> None:
    assert read_annotation("residency", "[EU, CH]") == (("spec", "data", "residency"), ["EU", "CH"])
    assert read_annotation("hours-per-month", "200") == (
        ("spec", "lifecycle", "hoursPerMonth"),
        200,
    )
    with pytest.raises(ValueProblem, match=r"unknown annotation gpulint\.dev/regoin"):
        read_annotation("regoin", "eu-west-1")


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("set: {regoin: eu-west-1}", ":4:11: assume[0].set.regoin: 'regoin' cannot be assumed"),
        (
            "set: {capacity: cheap}",
            ":4:11: assume[0].set.capacity: Input should be 'on-demand', 'spot' or 'reserved' (got 'cheap')",
        ),
    ],
)
def test_assume_errors_name_the_config_line(tmp_path: Path, entry: str, message: str) -> None:
    config = tmp_path / ".gpulint.yaml"
    config.write_text(f"assume:\n  - paths: ['deploy/**']\n\n    {entry}\n")
    with pytest.raises(ConfigError) as raised:
        load_config(config)
    assert str(raised.value).startswith(f"{config}{message}")
