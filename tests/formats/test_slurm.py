"""Slurm batch scripts: directives read as sbatch reads them, what they ask for, the commands
read through the launcher readers behind ``srun``, and hostile input (the fixtures run in
test_fixture_folders.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import lint, run_cli

from linter.formats.base import InputFile
from linter.formats.slurm import adapt, recognises
from linter.formats.slurm.options import read_directives
from linter.formats.slurm.requests import minutes, requests
from linter.load import load_source
from linter.load.positions import Span
from linter.load.sbatch import MAX_ARGUMENTS, ScriptDocument, has_directives, read_script
from linter.model.manifest import Manifest
from linter.policy.loader import Rulebook

HERE = Path(__file__).parent / "slurm"
FIXTURES = sorted(p for kind in ("good", "bad") for p in (HERE / kind).iterdir())


def _workload(tmp_path: Path, text: str, name: str = "job.sbatch") -> Manifest:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    loaded = load_source(path.read_bytes(), syntax="shell")
    (document,) = loaded.documents
    file = InputFile(name, path, loaded.text)
    assert recognises(document.data, file)
    adapted = adapt(document, file)
    assert [f.message for f in adapted.findings] == []
    (manifest,) = adapted.manifests
    return manifest


def _spec(tmp_path: Path, text: str) -> dict[str, Any]:
    spec: dict[str, Any] = _workload(tmp_path, text).data["spec"]
    return spec


def test_directives_stop_at_the_first_command_and_keep_their_columns() -> None:
    script = read_script(
        "#!/bin/bash\n"
        "#SBATCH -N 2 --job-name='a b' # a comment\n"
        " #SBATCH --indented-is-a-comment\n"
        "##SBATCH --doubled-too\n"
        "#SBATCH --time=10\n"
        "\n"
        "echo start\n"
        "#SBATCH --gres=gpu:8\n"
    )
    assert [(a.text, a.span) for a in script.arguments] == [
        ("-N", Span(2, 9, 2, 11)),
        ("2", Span(2, 12, 2, 13)),
        ("--job-name=a b", Span(2, 14, 2, 30)),
        ("--time=10", Span(5, 9, 5, 18)),
    ]
    assert (script.body_line, script.ignored) == (7, [Span(8, 1, 8, 21)])
    found = read_directives(script.arguments).found
    assert [(d.option, d.value, d.written, d.span) for d in found] == [
        ("nodes", "2", "-N 2", Span(2, 9, 2, 13)),
        ("job-name", "a b", "--job-name=a b", Span(2, 14, 2, 30)),
        ("time", "10", "--time=10", Span(5, 9, 5, 18)),
    ]


@pytest.mark.parametrize(
    ("directives", "per_node"),
    [
        ("--gres=gpu:a100:4", ("a100", 4)),
        ("--gres=gres/gpu:2,shard:4", (None, 2)),
        ("--gres=gpu", (None, 1)),
        ("--gpus-per-node=h100:8", ("h100", 8)),
        ("--gpus-per-n=8", (None, 8)),  # a unique prefix, as getopt_long takes it
        ("--ntasks-per-node=4 --gpus-per-task=2", (None, 8)),
        ("--nodes=4 --ntasks=4 --gpus-per-task=8", (None, 8)),
        ("-N 2 -G l40s:8", ("l40s", 4)),
        ("--gpus=1k", (None, 1024)),
    ],
)
def test_gpus_per_node(directives: str, per_node: tuple[str | None, int]) -> None:
    asked = requests(read_directives(read_script(f"#SBATCH {directives}\n").arguments))
    assert asked.gpus is not None
    assert (asked.gpus.type, asked.gpus.count) == per_node


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("90", 90),
        ("05:30", 6),  # seconds round up
        ("2:00:00", 120),
        ("1-12", 2160),
        ("1-00:30", 1470),
        ("2-00:00:01", 2881),
        ("UNLIMITED", 0),
        ("infinite", 0),
        ("soon", None),
    ],
)
def test_slurm_times(text: str, expected: int | None) -> None:
    assert minutes(text) == expected


def test_a_job_read_with_its_commands_behind_srun(tmp_path: Path) -> None:
    spec = _spec(
        tmp_path,
        "#!/bin/bash\n"
        "#SBATCH --job-name=tune\n"
        "#SBATCH --partition=a100,a100-spare\n"
        "#SBATCH --nodes=2\n"
        "#SBATCH --gres=gpu:a100:8\n"
        "#SBATCH --time=12:00:00\n"
        "#SBATCH --requeue\n"
        "\n"
        "srun --ntasks-per-node 1 --jobid $SLURM_JOB_ID torchrun --nnodes $SLURM_NNODES \\\n"
        "  --nproc_per_node $SLURM_GPUS_ON_NODE tune.py --model_name_or_path Qwen/Qwen2.5-7B \\\n"
        "  --use_peft --lora_r 8 --output_dir /tmp/out --save_steps 100\n",
    )
    assert spec["profile"] == "fine-tuning"
    assert spec["resources"] == {
        "accelerator": {"type": "a100", "count": 8},
        "nodes": 2,
        "pool": "a100",
    }
    assert spec["lifecycle"] == {"maxRuntimeHours": 12.0, "restartOnPreemption": True}
    assert spec["model"] == {"id": "Qwen/Qwen2.5-7B"}
    assert spec["fineTuning"]["method"] == "lora"
    assert spec["checkpointing"]["enabled"] is True
    assert "uri" not in spec["checkpointing"]  # /tmp is the node's own disk


def test_a_launcher_inside_a_bash_c_string_and_gpus_of_unknown_type(tmp_path: Path) -> None:
    manifest = _workload(
        tmp_path,
        "#!/bin/bash\n"
        "#SBATCH --nodes=1\n"
        "#SBATCH --gres=gpu:4\n"
        "#SBATCH --time=30\n"
        'LAUNCHER="python -u -m torch.distributed.run --nproc_per_node 4"\n'
        'CMD="train.py --output_dir /shared/ckpt --save_steps 50"\n'
        'srun bash -c "$LAUNCHER $CMD"\n',
    )
    spec = manifest.data["spec"]
    assert spec["resources"]["gpusOfUnknownType"] == 4
    assert spec["checkpointing"] == {
        "enabled": True,
        "uri": "/shared/ckpt",
        "decidedIn": "train.py",
    }
    span, _ = manifest.provenance.locate(("spec", "checkpointing", "uri"), manifest.source_map)
    assert (span.line, span.column, span.end_column) == (6, 15, 40)


def test_requeue_absent_claims_nothing_and_a_comment_names_the_gpu(tmp_path: Path) -> None:
    manifest = _workload(
        tmp_path,
        "#!/bin/bash\n"
        '# gpulint.dev/accelerator: "{type: H100-80GB}"\n'
        "#SBATCH --gpus-per-node=4\n"
        "#SBATCH --time=60\n"
        "python train.py --output_dir /shared/out\n",
    )
    spec = manifest.data["spec"]
    assert spec["resources"]["accelerator"] == {"type": "H100-80GB", "count": 4}
    assert "restartOnPreemption" not in spec["lifecycle"]
    assert manifest.provenance.name(("spec", "lifecycle", "restartOnPreemption")) == (
        "--requeue (unset: the cluster's JobRequeue setting decides)"
    )


def test_training_and_serving_on_one_partition(tmp_path: Path, rulebook: Rulebook) -> None:
    (tmp_path / "train.sbatch").write_text(
        "#SBATCH -p shared-h100\n#SBATCH --gres=gpu:h100:8\n#SBATCH -t 60\n"
        "torchrun --nproc_per_node 8 train.py --output_dir /shared/x\n"
    )
    (tmp_path / "serve.slurm").write_text(
        "#SBATCH -p shared-h100\n#SBATCH --gres=gpu:h100:1\n"
        "vllm serve Qwen/Qwen2.5-1.5B-Instruct --max-model-len 8192\n"
    )
    findings = lint([tmp_path], rulebook, select=("GL205",)).findings
    assert sorted((Path(f.location.file).name, f.location.span.line) for f in findings) == [
        ("serve.slurm", 1),
        ("train.sbatch", 1),
    ]


def test_a_repositorys_other_shell_scripts_are_not_parsed(
    tmp_path: Path, rulebook: Rulebook
) -> None:
    assert not has_directives(b"#!/bin/sh\necho '#SBATCH is not at a line start'\n")
    assert has_directives(b"#SBATCH -N 1\n")
    assert load_source(b"#!/bin/sh\nmake all\n", syntax="shell").unrelated
    (tmp_path / "build.sh").write_text("#!/bin/sh\nmake all\n")
    result = lint([tmp_path], rulebook)
    assert (result.findings, result.files_checked) == ([], 0)


def test_suppressions_are_shell_comments(tmp_path: Path, rulebook: Rulebook) -> None:
    path = tmp_path / "job.sbatch"
    path.write_text(
        "#SBATCH --gres=gpu:a100:1\n"
        "#SBATCH --gpu=1 # gpulint: ignore[GL001] the site's wrapper rewrites it\n"
        "python train.py\n"
    )
    (finding,) = lint([path], rulebook, select=("GL001",)).findings
    assert (finding.location.span.line, finding.suppressed_reason) == (
        2,
        "the site's wrapper rewrites it",
    )


def test_hostile_scripts_are_bounded(tmp_path: Path) -> None:
    long_line = "#SBATCH --comment=" + "x" * 300_000 + "\n"
    many = "".join(f"#SBATCH --comment=n{n}\n" for n in range(MAX_ARGUMENTS + 5))
    unmatched = "#SBATCH --job-name='open\n"
    for name, text in (("long.sbatch", long_line), ("many.sbatch", many), ("q.sbatch", unmatched)):
        path = tmp_path / name
        path.write_text(text)
        result = run_cli("check", "--format", "json", str(path))
        assert "Traceback" not in result.err
    many_document = read_script(many)
    assert isinstance(many_document, ScriptDocument)
    assert len(many_document.arguments) == MAX_ARGUMENTS
    assert many_document.problems[0][1] == (
        f"more than {MAX_ARGUMENTS} directive arguments: the rest is not read"
    )
    result = run_cli("check", "--format", "json", str(tmp_path / "q.sbatch"))
    findings = [(f["ruleId"], f["line"], f["message"]) for f in json.loads(result.out)["findings"]]
    assert ("GL001", 1, "unmatched ' in the directive") in findings


SITE_GRES = (
    "#!/bin/bash\n"
    "#SBATCH --partition=big\n"
    "#SBATCH --gres=gpu:80g:2\n"
    "vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 2 --max-model-len 8192\n"
)


def test_a_site_gres_type_is_a_gpu_request_of_unknown_type(tmp_path: Path) -> None:
    """``80g`` names a site's GRES type, not a GPU: the count is of GPUs the file does not
    pin (sized on every GPU it may land on), not an unknown accelerator (GL007)."""
    resources = _spec(tmp_path, SITE_GRES)["resources"]
    assert resources == {"gpusOfUnknownType": 2, "pool": "big"}
    pinned = _spec(tmp_path, SITE_GRES.replace("gpu:80g:2", "gpu:tesla_v100:2"))["resources"]
    assert pinned == {"accelerator": {"type": "tesla_v100", "count": 2}, "pool": "big"}


@pytest.mark.parametrize(
    ("inventory", "expected"),
    [
        ("cluster:\n  pools:\n    big: {gpus: [L4]}\n", [("GL110", 3, "error")]),
        ("cluster:\n  pools:\n    big: {gpus: [L4, H100]}\n", [("GL110", 3, "warning")]),
        ("cluster:\n  pools:\n    big: {gpus: [A100-80GB]}\n", []),
        (None, [("GL110", 3, "note")]),
    ],
)
def test_a_site_gres_type_is_sized_on_the_partitions_gpus(
    tmp_path: Path, inventory: str | None, expected: list[tuple[str, int, str]]
) -> None:
    (tmp_path / "serve.sbatch").write_text(SITE_GRES, encoding="utf-8")
    args = ["check", "--no-cache", "--format", "json", "--select", "GL007,GL110"]
    if inventory is not None:
        (tmp_path / "inventory.yaml").write_text(inventory, encoding="utf-8")
        args += ["--config", str(tmp_path / "inventory.yaml")]
    result = run_cli(*args, str(tmp_path / "serve.sbatch"))
    findings = json.loads(result.out)["findings"]
    assert [(f["ruleId"], f["line"], f["severity"]) for f in findings] == expected
