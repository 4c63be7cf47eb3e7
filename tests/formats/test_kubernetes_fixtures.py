"""Kubernetes and production-stack fixtures through the whole pipeline (each one's marked lines
are checked in test_fixture_folders.py): every kind covered, findings across files, a Helm
chart's rendered output, and the normalised workloads linted natively giving the same rules."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from conftest import lint, run_cli

from linter.findings import Finding, Severity
from linter.formats import recognise
from linter.formats.base import InputFile
from linter.load import Document, load_text
from linter.policy.loader import Rulebook

HERE = Path(__file__).parent
FIXTURES = sorted(
    path
    for folder in ("kubernetes", "production_stack")
    for kind in ("good", "bad")
    for path in (HERE / folder / kind).glob("*.yaml")
)


def _shown(findings: Iterable[Finding]) -> set[tuple[str, int]]:
    return {
        (f.rule_id, f.location.span.line)
        for f in findings
        if f.level in (Severity.ERROR, Severity.WARNING)
    }


def test_every_kind_has_a_good_and_a_bad_fixture() -> None:
    kinds: dict[str, set[str]] = {"good": set(), "bad": set()}
    for path in FIXTURES:
        text = path.read_text()
        kinds[path.parent.name] |= set(re.findall(r"^kind: (\w+)", text, re.MULTILINE))
    assert kinds["good"] >= {
        "Deployment",
        "StatefulSet",
        "Pod",
        "Job",
        "CronJob",
        "LeaderWorkerSet",
        "InferenceService",
        "ServingRuntime",
        "LLMInferenceService",
        "RayService",
        "RayCluster",
        "RayJob",
        "PyTorchJob",
        "TrainJob",
        "ClusterTrainingRuntime",
    }
    assert kinds["bad"] >= {
        "Deployment",
        "Job",
        "LeaderWorkerSet",
        "InferenceService",
        "RayService",
    }


def test_the_opening_scenario_of_issue_11(rulebook: Rulebook) -> None:
    """Llama-3.1-70B with vLLM on 2 x L4 spot nodes at --max-model-len 131072: vLLM never
    starts, and the finding is on the GPU count the weights do not fit."""
    path = HERE / "kubernetes" / "bad" / "opening-scenario.yaml"
    findings = {f.rule_id: f for f in lint([path], rulebook).findings}
    weights = findings["GL101"]
    assert weights.level == Severity.ERROR
    assert (weights.location.span.line, weights.location.span.column) == (22, 15)
    assert "usable on 2 x L4: vLLM does not start" in weights.message
    assert weights.location.source_path == (
        "spec",
        "template",
        "spec",
        "containers",
        0,
        "resources",
        "limits",
        "nvidia.com/gpu",
    )
    assert findings["GL204"].location.span.line == 13  # the spot node selector


def test_a_finding_points_at_the_argument_inside_a_shell_string(rulebook: Rulebook) -> None:
    path = HERE / "kubernetes" / "bad" / "context-in-shell-string.yaml"
    (finding,) = [f for f in lint([path], rulebook).findings if f.rule_id == "GL102"]
    line = path.read_text().splitlines()[14]
    span = finding.location.span
    assert line[span.column - 1 : span.end_column - 1] == "131072"
    assert "--max-model-len in the vllm container's command" in (finding.fix or "")


def test_the_vllm_default_context_is_named_and_pointed_where_the_flag_is_missing(
    rulebook: Rulebook,
) -> None:
    path = HERE / "kubernetes" / "bad" / "default-context.yaml"
    (finding,) = [f for f in lint([path], rulebook).findings if f.rule_id == "GL102"]
    assert finding.location.source_path == ("spec", "template", "spec", "containers", 0, "args")
    assert finding.message.startswith("one 131072-token sequence (default) needs")
    assert finding.fix is not None
    assert (
        "the context is 131072 tokens (the model's maximum context: the engine's default, as "
        "--max-model-len in the vllm container's args is unset)" in finding.fix
    )
    assert (
        "at vLLM 0.11.0's default GPU memory utilization 0.9, as --gpu-memory-utilization in the "
        "vllm container's args is unset; vLLM says: " in finding.fix
    )
    assert finding.fix.startswith("set --max-model-len in the vllm container's args to at most ")


def test_a_training_job_and_a_service_on_one_node_pool_across_files(rulebook: Rulebook) -> None:
    folder = HERE / "kubernetes" / "shared-pool"
    findings = [f for f in lint([folder], rulebook).findings if f.rule_id == "GL205"]
    by_file = {Path(f.location.file).name: f for f in findings}
    assert sorted(by_file) == ["chat-deployment.yaml", "finetune-job.yaml"]
    for name, other in (
        ("chat-deployment.yaml", "finetune-job.yaml"),
        ("finetune-job.yaml", "chat-deployment.yaml"),
    ):
        finding = by_file[name]
        assert finding.location.span.line == 12
        assert "pool cloud.google.com/gke-nodepool=a100-pool" in finding.message
        (related,) = finding.related
        assert (Path(related.file).name, related.span.line) == (other, 12)


def test_a_broken_document_does_not_hide_the_others(rulebook: Rulebook) -> None:
    path = HERE / "kubernetes" / "bad" / "placeholders.yaml"
    findings = lint([path], rulebook).findings
    template = [f for f in findings if f.rule_id in ("GL002", "GL010")]
    # one note a file, at its first placeholder (the unparsable line 34 is the second)
    assert [(f.rule_id, f.location.span.line, f.location.span.column) for f in template] == [
        ("GL010", 14, 9)
    ]
    assert template[0].message == (
        "this file is a template (${GPU_TYPE}): gpulint lints what renders it"
    )
    assert (template[0].fix or "").endswith(
        "; ${GPU_TYPE} in nodeSelector cloud.google.com/gke-accelerator is filled in only when "
        "rendered"
    )
    assert any(f.rule_id == "GL102" and f.location.span.line == 54 for f in findings)


# -- a Helm chart's rendered output ----------------------------------------------------------------

CHART = HERE / "kubernetes" / "chart"
_ACTION = re.compile(r"\{\{\s*\.(Values|Release)\.(\w+)\s*\}\}")


def _render(release: str) -> str:
    """``helm template`` of the test chart, by hand: each template with its values filled in,
    after a ``---`` and the ``# Source:`` comment Helm writes."""
    from linter.load import load_text

    values = load_text((CHART / "values.yaml").read_text()).documents[0].data

    def fill(match: re.Match[str]) -> str:
        scope, key = match.groups()
        return release if scope == "Release" else str(values[key])

    parts = []
    for template in sorted((CHART / "templates").glob("*.yaml")):
        body = _ACTION.sub(fill, template.read_text())
        parts.append(f"---\n# Source: llm-server/templates/{template.name}\n{body}")
    return "".join(parts)


def test_the_chart_templates_themselves_are_not_linted_and_say_so(rulebook: Rulebook) -> None:
    result = lint([CHART], rulebook)
    assert (result.files_checked, result.findings) == (0, [])
    templates = f"{CHART.relative_to(Path.cwd()).as_posix()}/templates"
    assert [tuple(skipped) for skipped in result.skipped] == [
        (
            templates,
            "a Helm chart's templates, YAML only once rendered: "
            f"helm template {templates[: -len('/templates')]} | gpulint check -",
        )
    ]


def test_a_rendered_chart_lints_with_findings_on_its_lines(
    rulebook: Rulebook, tmp_path: Path
) -> None:
    rendered = tmp_path / "rendered.yaml"
    rendered.write_text(_render("demo"))
    lines = rendered.read_text().splitlines()
    findings = [f for f in lint([rendered], rulebook).findings if f.level == Severity.ERROR]
    assert [(f.rule_id, lines[f.location.span.line - 1].strip()) for f in findings] == [
        ("GL102", '- "131072"')
    ]
    assert lines[0:2] == ["---", "# Source: llm-server/templates/deployment.yaml"]


# -- the normalised workload, linted natively --------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "kubernetes/bad/opening-scenario.yaml",
        "kubernetes/bad/default-context.yaml",
        "kubernetes/bad/spot-job-no-checkpoint.yaml",
        "kubernetes/good/rayservice-llm.yaml",
        "production_stack/bad/values.yaml",
    ],
)
def test_normalised_workloads_give_the_same_rules_natively(
    name: str, rulebook: Rulebook, tmp_path: Path
) -> None:
    """What ``gpulint convert`` prints, linted as gpulint.dev/v1alpha1, reports the same rule ids
    (the values and their meaning survive the mapping; only the names and lines differ)."""
    result = run_cli("facts", str(HERE / name))
    workloads = [entry["workload"] for entry in json.loads(result.out)]
    documents = tmp_path / "native.yaml"
    documents.write_text("---\n".join(json.dumps(w) + "\n" for w in workloads))
    problems = ("GL001", "GL002", "GL010")  # the file's form, not its workload
    original = sorted(
        f.rule_id for f in lint([HERE / name], rulebook).findings if f.rule_id not in problems
    )
    converted = sorted(f.rule_id for f in lint([documents], rulebook).findings)
    assert workloads
    assert converted == original


# -- untrusted input ----------------------------------------------------------------------------

_ODD_VALUES = (None, 7, "{{x}}", [1, "a"])


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterable[tuple[Any, ...]]:
    yield prefix
    children = (
        node.items()
        if isinstance(node, dict)
        else enumerate(node)
        if isinstance(node, list)
        else ()
    )
    for key, child in children:
        yield from _paths(child, (*prefix, key))


def _replaced(data: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    copied = copy.deepcopy(data)
    node = copied
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return copied


@pytest.mark.parametrize(
    "path", FIXTURES, ids=lambda p: f"{p.parent.parent.name}/{p.parent.name}/{p.name}"
)
def test_any_value_of_the_wrong_type_anywhere_is_no_traceback(path: Path) -> None:
    """Every node of every fixture replaced by a value of another type: adapting never raises
    (what is wrong becomes a finding, or is not read)."""
    text = path.read_text()
    source = InputFile(str(path), path, text)
    for document in load_text(text).documents:
        for where in list(_paths(document.data)):
            for value in _ODD_VALUES:
                data = _replaced(document.data, where, value)
                found = recognise(data, source) if isinstance(data, dict) else None
                if found is not None:
                    found.adapt(Document(document.index, data, document.source_map), source)


def test_a_template_that_does_not_parse_is_told_to_render_not_to_assume(
    rulebook: Rulebook, tmp_path: Path
) -> None:
    """Values that parse can be given in an ``assume:`` block; a file that is not YAML until
    rendered can only be rendered."""
    findings = lint([HERE / "kubernetes" / "bad" / "placeholders.yaml"], rulebook).findings
    (parsed,) = [f for f in findings if f.rule_id == "GL010"]
    assert parsed.fix == (
        "lint the rendered output instead: envsubst < FILE | gpulint check - "
        "(or give the values in an `assume:` block of .gpulint.yaml); ${GPU_TYPE} in "
        "nodeSelector cloud.google.com/gke-accelerator is filled in only when rendered"
    )
    broken = tmp_path / "deployment.yaml"
    broken.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n"
        "  replicas: {{ .Values.replicas }}\n",
        encoding="utf-8",
    )
    (unparsed,) = [f for f in lint([broken], rulebook).findings if f.rule_id == "GL010"]
    assert (unparsed.location.span.line, unparsed.fix) == (
        5,
        "lint the rendered output instead: helm template CHART | gpulint check -; "
        "{{ .Values.replicas }} on this line is not YAML until rendered",
    )
