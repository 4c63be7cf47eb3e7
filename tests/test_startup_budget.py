"""Start-up budget of a pre-commit run (issue 31): what ``gpulint check`` on one manifest
imports and builds, counted (never timed) in a fresh interpreter.

Class creation and imports are most of a one-file run's CPU (dataclasses, pydantic models and
the validators built on their first use), so the counts are the budget: a change that makes a
one-file run import the Terraform reader, the CEL parser or SARIF's object model, or build more
classes or validators, fails here and says by how much. The ceilings are today's counts plus a
little room for a new fact or rule; raise one only with a reason in the commit, and prefer a
lazy import. ``benchmarks/RESULTS.md`` has the times.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

#: A serving workload, as a pre-commit run sees one staged file.
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "inference-chat.yaml"

#: Counts the probe prints: modules imported (gpulint's and all), classes created by class
#: statements, sources compiled by ``exec`` (each a dataclass method, a record's ``__init__``
#: template: linter/records.py), and pydantic models whose validator was built.
PROBE = """\
import builtins, contextlib, io, json, sys
created = 0
original = builtins.__build_class__
def counting(*args, **kwargs):
    global created
    created += 1
    return original(*args, **kwargs)
builtins.__build_class__ = counting
compiled = 0
run = builtins.exec
def counting_exec(source, *args, **kwargs):
    global compiled
    compiled += isinstance(source, str)
    return run(source, *args, **kwargs)
builtins.exec = counting_exec
from linter.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(["check", "--no-cache", "--format", "json", "--fail-on", "never", "job.yaml"])
imported = sorted(sys.modules)
from pydantic import BaseModel
def subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from subclasses(sub)
models = {m for m in subclasses(BaseModel) if m.__module__.startswith("linter.")}
print(json.dumps({
    "code": code,
    "modules": imported,
    "classes": created,
    "compiled": compiled,
    "models": len(models),
    "validators": sum(1 for m in models if m.__pydantic_complete__),
}))
"""

#: Modules a run over one gpulint manifest never needs (prefixes).
NOT_IMPORTED = (
    "linter.formats.platforms",
    "linter.formats.terraform_vocabulary",
    "linter.memory.calibration",
    "linter.catalog.jurisdictions",
    "linter.catalog.hf_cache",
    "linter.model.assumptions",
    "linter.commands.output_files",
    "linter.memory.training",
    "linter.load.hcl",
    "linter.load.terraform",
    "linter.load.sbatch",
    "linter.cel.lexer",
    "linter.cel.syntax",
    "linter.policy.checking",
    "linter.facts.entry",  # the facts schema's pydantic twins
    "linter.model.capacity_limit",  # kinds other than Workload: linter.model.kind_model
    "linter.model.autoscaler",
    "linter.model.quota_ledger",
    "linter.report.sarif",
    "sarif_om",
    "jsonschema",
    "lark",
    "importlib.metadata",  # pydantic's plugin search: gpulint runs with plugins off (cli.py)
    "difflib",  # suggestions, in messages of names that resolve to nothing
    "email",
    "linter.declared.twins",  # declared records' pydantic twins: valid data is not theirs
    # a valid manifest is checked without pydantic (linter/declared/checking.py); its plugin
    # loader is the stub linter/cli.py puts in its place, so no import of pydantic's own
    "pydantic.main",
    "pydantic_core",
)
#: Ceilings: today's counts (in the comment) and a little room.
BUDGET = {
    "linter_modules": 167,  # 163
    "modules": 345,  # 335
    "classes": 965,  # 936
    "compiled": 130,  # 120: 48 record templates, the rest the standard library's
    "models": 0,  # 0: every record a run defines is declared (linter/declared), the facts are
    # records (linter/facts/base.py)
    "validators": 0,  # 0: valid data is checked without pydantic (linter/declared/checking.py)
}


#: A GPU Deployment: Kubernetes documents are offered to the Terraform and Slurm formats first.
KUBERNETES_EXAMPLE = EXAMPLE.parent / "kubernetes" / "vllm-llama-3b.yaml"
#: Modules a run over one Kubernetes manifest never needs (prefixes).
NOT_IMPORTED_FOR_KUBERNETES = (
    "linter.formats.terraform_vocabulary",
    "linter.formats.terraform.",
    "linter.formats.slurm.",
    "linter.formats.dstack.",  # the packages themselves are registered, to load lazily
    "linter.formats.skypilot.",
    "linter.load.hcl",
    "linter.load.terraform",
    "linter.load.sbatch",
    "pydantic.main",  # the Deployment's workload is valid: checked without pydantic
    "pydantic_core",
)


def _probe(folder: Path, example: Path = EXAMPLE, plugins: str | None = None) -> dict[str, Any]:
    shutil.copyfile(example, folder / "job.yaml")
    environment = {**os.environ, "GPULINT_CACHE_DIR": str(folder / "cache")}
    environment.pop("GPULINT_NO_CACHE", None)
    environment.pop("PYDANTIC_DISABLE_PLUGINS", None)
    if plugins is not None:
        environment["PYDANTIC_DISABLE_PLUGINS"] = plugins
    command = [sys.executable, "-c", PROBE]
    # the first run fills the start-up cache (parsed rules, catalogues) a user's runs have
    subprocess.run(command, cwd=folder, env=environment, capture_output=True, check=True)
    done = subprocess.run(
        command, cwd=folder, env=environment, capture_output=True, text=True, check=True
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_a_one_file_run_stays_within_its_start_up_budget(tmp_path: Path) -> None:
    counts = _probe(tmp_path)
    modules = counts["modules"]
    assert counts["code"] == 0
    assert [m for m in modules if m.startswith(NOT_IMPORTED)] == []
    measured = {
        "linter_modules": sum(1 for m in modules if m.startswith("linter")),
        "modules": len(modules),
        "classes": counts["classes"],
        "compiled": counts["compiled"],
        "models": counts["models"],
        "validators": counts["validators"],
    }
    over = {name: value for name, value in measured.items() if value > BUDGET[name]}
    assert over == {}, f"over the start-up budget {BUDGET}: {measured}"


def test_a_kubernetes_manifest_reads_no_other_format(tmp_path: Path) -> None:
    """Recognising it runs the Terraform and Slurm formats' ``recognises`` (by shape and file
    name), which must not read Terraform's vocabulary or import either reader."""
    counts = _probe(tmp_path, KUBERNETES_EXAMPLE)
    assert counts["code"] == 0
    assert [m for m in counts["modules"] if m.startswith(NOT_IMPORTED_FOR_KUBERNETES)] == []


def test_pydantic_plugins_a_user_leaves_on_are_still_looked_up(tmp_path: Path) -> None:
    """gpulint turns pydantic's plugins off and skips their search only where the user's
    environment does not say otherwise: a value that disables some plugins keeps the rest. A
    manifest with a schema error is validated by pydantic, which then looks plugins up."""
    invalid = tmp_path / "invalid.yaml"
    text = EXAMPLE.read_text(encoding="utf-8").replace("maxBatchSize: 16", 'maxBatchSize: "16"')
    invalid.write_text(text, encoding="utf-8")
    counts = _probe(tmp_path, example=invalid, plugins="some-plugin")
    assert counts["code"] == 0
    assert "pydantic.plugin._loader" in counts["modules"]
    assert "importlib.metadata" in counts["modules"]
