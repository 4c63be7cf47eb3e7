"""The format registry: every format's markers in the byte pre-filter, and the adapters imported
only when a document may be theirs."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from linter.formats import FORMATS, MARKERS, markers_for

WORKLOAD = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata:
  name: chat
spec:
  profile: inference
  model: {id: meta-llama/Llama-3.1-8B-Instruct}
  resources: {provider: aws, region: us-east-1, instanceType: g6e.xlarge}
"""
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:latest
          args: ["--model", "meta-llama/Llama-3.1-8B-Instruct"]
          resources: {limits: {nvidia.com/gpu: 1}}
"""
ADAPTERS = (
    "linter.formats.terraform.readers",
    "linter.formats.slurm.job",
    "linter.formats.kubernetes.capacity",
    "linter.formats.kubernetes.autoscalers",
    "linter.formats.kubernetes.production_stack",
    "linter.formats.kubernetes.objects",
    "linter.formats.dstack",
    "linter.formats.skypilot",
)


OWN_PARSERS = ("terraform", "slurm")  # formats whose files are not YAML


def test_the_pre_filter_holds_every_formats_markers_in_registry_order() -> None:
    yaml = tuple(m for f in FORMATS if f.name not in OWN_PARSERS for m in f.markers)
    assert yaml == MARKERS == markers_for("yaml") == markers_for("json")
    by_name = {f.name: f.markers for f in FORMATS}
    assert (markers_for("hcl"), markers_for("shell")) == (by_name["terraform"], by_name["slurm"])
    assert b"google_container_node_pool" in markers_for("hcl")
    assert markers_for("shell") == (b"#SBATCH", b"#SLURM")


def _adapters_imported(tmp_path: Path, text: str) -> list[str]:
    """Lint one file in a fresh interpreter; which adapters did that import? (A module whose
    import is deferred is registered at once, of a subclass of ModuleType until it runs.)"""
    target = tmp_path / "manifest.yaml"
    target.write_text(text, encoding="utf-8")
    script = textwrap.dedent(
        f"""
        import contextlib, io, json, sys, types
        from linter.cli import main
        with contextlib.redirect_stdout(io.StringIO()):
            main(["check", "--no-cache", "--format", "json", {str(target)!r}])
        ran = [n for n, m in sys.modules.items() if type(m) is types.ModuleType]
        print(json.dumps([name for name in {list(ADAPTERS)!r} if name in ran]))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={"GPULINT_NO_CACHE": "1", "PATH": ""},
    )
    imported: list[str] = json.loads(done.stdout)
    return imported


def test_gpulint_manifests_import_no_adapter(tmp_path: Path) -> None:
    assert _adapters_imported(tmp_path, WORKLOAD) == []


def test_a_kubernetes_document_imports_the_formats_before_it(tmp_path: Path) -> None:
    """Recognition asks the formats in order: those up to Kubernetes, not the ones after it."""
    assert _adapters_imported(tmp_path, DEPLOYMENT) == [
        "linter.formats.kubernetes.capacity",
        "linter.formats.kubernetes.autoscalers",
        "linter.formats.kubernetes.production_stack",
        "linter.formats.kubernetes.objects",
    ]
