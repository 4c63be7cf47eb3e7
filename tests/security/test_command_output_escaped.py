"""Output of the other commands: control characters and workflow commands from files.

``gpulint check`` escaped every value from the repository it printed, but ``memory --from-log``
printed the model a log names at the start of a line, ``gpulint test`` printed fixture file
names and messages as they were (text and JUnit), and ``gpulint convert`` wrote file names and
notes into comments and C1 controls into values. A name with a line break and ``::error::``, or
an escape sequence, reached the terminal or the CI log as an instruction, and a fixture name
with a control character (or not UTF-8) made the JUnit report ill-formed XML that CI rejects.
Now each value is made printable, a line never starts with ``::`` from a file, and JUnit text
holds only characters XML allows.
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from conftest import ORG_RULE, run_cli
from ruamel.yaml import YAML

HOSTILE = "\n::error::pwned\x1b[2K\x9b2K"
#: What must never reach a terminal or a log from a file: control characters (line feeds
#: between lines aside), C1 controls and the Unicode line separators.
_RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def _clean(output: str) -> None:
    assert _RAW.search(output) is None, _RAW.search(output)
    assert not [line for line in output.splitlines() if line.lstrip().startswith("::")]


LOG = """\
(APIServer pid=1) INFO 04-18 20:22:57 [utils.py:299] version 0.19.0
(APIServer pid=1) INFO [utils.py:233] non-default args: {{'model': '{model}', 'max_model_len': 4096}}
(EngineCore_DP0 pid=2) INFO [gpu_model_runner.py:3659] Model loading took 13.72 GiB memory
(EngineCore_DP0 pid=2) INFO [gpu_worker.py:360] Available KV cache memory: 36.56 GiB
"""
MODEL_CONFIG = {
    "model_type": "llama",
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "vocab_size": 128256,
    "max_position_embeddings": 8192,
    "torch_dtype": "bfloat16",
}


def test_memory_from_log_escapes_what_the_log_says(tmp_path: Path) -> None:
    log = tmp_path / f"vllm{HOSTILE}.log"
    log.write_text(LOG.format(model="::add-mask::token\x1b[2K"))
    (tmp_path / "config.json").write_text(json.dumps(MODEL_CONFIG))
    config = str(tmp_path / "config.json")
    result = run_cli(
        "memory", "--from-log", str(log), "--model-config", config, "--gpu", "A100-80GB"
    )
    assert result.code == 0, result.err
    _clean(result.out)
    assert result.out.startswith("\\x3a:add-mask::token\\x1b[2K on 1 x A100-80GB")
    assert '      source: "start-up log ' in result.out


JOB = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata: {name: job}
spec:
  profile: training
  resources: {accelerator: {type: H100, count: 8}, capacity: spot}
  lifecycle: {maxRuntimeHours: 4}
"""


@pytest.fixture
def policies(tmp_path: Path) -> Path:
    """A rules folder whose fixtures have hostile names: a line break, a workflow command and
    escape sequences in one, bytes that are not UTF-8 in another."""
    folder = tmp_path / "policies"
    rule = ORG_RULE.format(
        number="001",
        name="no-spot",
        extra="",
        violation='document.spec.resources.capacity == "spot"',
        path="spec.resources.capacity",
        message="spot",
    )
    (folder / "tests" / "ACME001" / "bad").mkdir(parents=True)
    (folder / "tests" / "ACME001" / "good").mkdir()
    (folder / "ACME001.yaml").write_text(rule)
    (folder / "tests" / "ACME001" / "bad" / f"{HOSTILE}.yaml").write_text(JOB)
    not_utf8 = os.fsdecode(b"job-\xff.yaml")
    (folder / "tests" / "ACME001" / "good" / not_utf8).write_text(JOB)
    return folder


def test_gpulint_test_escapes_names_and_messages(policies: Path) -> None:
    result = run_cli("test", str(policies))
    assert result.code == 1
    _clean(result.out)
    assert f"{policies}/tests/ACME001/bad/\\n::error::pwned\\x1b[2K\\x9b2K.yaml:1: ACME001" in (
        result.out
    )


@pytest.mark.parametrize("to_file", [False, True], ids=["stdout", "file"])
def test_junit_is_well_formed_for_any_fixture_name(
    policies: Path, tmp_path: Path, to_file: bool
) -> None:
    report = tmp_path / "junit.xml"
    args = ["-o", str(report)] if to_file else []
    result = run_cli("test", "--format", "junit", *args, str(policies))
    text = report.read_text(encoding="utf-8") if to_file else result.out
    root = ElementTree.fromstring(text.encode("utf-8"))
    names = [case.get("name") for case in root.iter("testcase")]
    assert "ACME001/bad/\\n::error::pwned\\x1b[2K\\x9b2K.yaml" in names
    assert "ACME001/good/job-\\udcff.yaml" in names
    _clean(text)


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
  annotations:
    gpulint.dev/justification-self-hosting: "latency\\n::error::pwned \\x9b2K\\u2028x"
spec:
  replicas: 1
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: ["--model", "meta-llama/Llama-3.1-8B-Instruct"]
          resources:
            limits:
              nvidia.com/gpu: 1
"""


def test_convert_escapes_names_notes_and_values(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    name = f"deploy{HOSTILE}.yaml"
    (tmp_path / name).write_text(DEPLOYMENT)
    result = run_cli("convert", name)
    _clean(result.out)
    document = YAML(typ="safe").load(result.out)
    annotations = document["metadata"]["annotations"]
    assert annotations["gpulint.dev/justification-self-hosting"] == (
        "latency\n::error::pwned \x9b2K\u2028x"
    )


def test_check_never_starts_a_line_with_a_file_named_like_a_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A finding's line starts with its file's name: one named ``::stop-commands::token.yaml``
    would have switched off the workflow commands after it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "::stop-commands::token.yaml").write_text(JOB)
    result = run_cli("check", ".")
    _clean(result.out)
    assert result.out.startswith("\\x3a:stop-commands::token.yaml:6:")
