"""Numbers of hundreds of digits, and one document that stops the run.

YAML integers have no size limit. An ``activeDeadlineSeconds``, a dstack ``max_duration`` or a
Kueue ``nominalQuota`` of four hundred digits overflowed the arithmetic on it (an hours or
minutes conversion, a float) and ended the whole run with an internal error: one committed file
hid every other file's findings. Now a whole number above Kubernetes' int64 range, and a
quantity that is not a finite number, is a GL001 finding at its line; and whatever else goes
wrong in one document is a GL002 finding at that document while the run goes on.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli
from hostile_repository import SPOT_JOB

HUGE = "9" * 400
OUT_OF_RANGE = "is out of range (at most 9,223,372,036,854,775,807)"

JOB = f"""\
apiVersion: batch/v1
kind: Job
metadata: {{name: train}}
spec:
  activeDeadlineSeconds: {HUGE}
  template:
    spec:
      containers:
        - name: t
          image: pytorch/pytorch
          command: ["torchrun", "train.py"]
          resources: {{limits: {{nvidia.com/gpu: 8}}}}
"""
DSTACK = f"""\
type: task
commands: [python train.py]
resources: {{gpu: H100:8}}
max_duration: {HUGE}
"""
CLUSTER_QUEUE = """\
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata: {{name: q}}
spec:
  resourceGroups:
    - coveredResources: [nvidia.com/gpu]
      flavors:
        - name: h100
          resources:
            - name: nvidia.com/gpu
              nominalQuota: {quota}
"""
CASES = {
    "activeDeadlineSeconds": ("job.yaml", JOB, 5, "spec.activeDeadlineSeconds " + OUT_OF_RANGE),
    "max_duration": (
        "train.dstack.yml",
        DSTACK,
        4,
        f"max_duration: {HUGE} seconds {OUT_OF_RANGE} or off",
    ),
    "nominalQuota": (
        "queue.yaml",
        CLUSTER_QUEUE.format(quota=HUGE),
        11,
        f"nominalQuota of nvidia.com/gpu in flavor h100: quantity {int(HUGE)!r} {OUT_OF_RANGE}",
    ),
    "nominalQuota-string": (
        "queue.yaml",
        CLUSTER_QUEUE.format(quota='"1e999"'),
        11,
        f"nominalQuota of nvidia.com/gpu in flavor h100: quantity '1e999' {OUT_OF_RANGE}",
    ),
}


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "spot.yaml").write_text(SPOT_JOB)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _report(*args: str) -> tuple[int, list[tuple[str, str, int, str]]]:
    result = run_cli("check", "--format", "json", *args)
    found = json.loads(result.out)["findings"]
    return result.code, [(f["file"], f["ruleId"], f["line"], f["message"]) for f in found]


@pytest.mark.parametrize(("name", "text", "line", "message"), CASES.values(), ids=CASES.keys())
def test_an_out_of_range_number_is_a_finding_at_its_line(
    work: Path, name: str, text: str, line: int, message: str
) -> None:
    (work / name).write_text(text)
    code, found = _report(name, "spot.yaml")
    assert code == 1
    assert (name, "GL001", line, message) in found
    assert ("spot.yaml", "GL202", 8) in [f[:3] for f in found]


def test_a_document_gpulint_fails_on_stops_only_itself(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever else raises while one document is adapted is a GL002 finding at it."""
    from linter.formats.kubernetes.objects import KINDS

    def overflow(*args: object) -> None:
        raise OverflowError("int too large to convert to float")

    monkeypatch.setitem(KINDS, ("batch", "Job"), overflow)
    (work / "both.yaml").write_text(JOB.replace(HUGE, "3600") + "---\n" + SPOT_JOB)
    code, found = _report("both.yaml")
    assert code == 1
    assert [f[:3] for f in found] == [("both.yaml", "GL002", 1), ("both.yaml", "GL202", 21)]
    assert found[0][3] == (
        "gpulint failed on this document (OverflowError: int too large to convert to float) "
        "and did not lint it; the rest of the run went on (please report it)"
    )


def test_a_manifest_whose_rules_fail_stops_only_itself(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same for the rules and facts of one manifest."""
    from linter.run import first_pass

    activation = first_pass.activation

    def failing(manifest: object, residency: object, **keywords: object) -> object:
        if getattr(manifest, "file", "") == "bad.yaml":
            raise RecursionError("maximum recursion depth exceeded")
        return activation(manifest, residency, **keywords)  # type: ignore[arg-type]

    monkeypatch.setattr(first_pass, "activation", failing)
    (work / "bad.yaml").write_text(SPOT_JOB)
    _, found = _report("bad.yaml", "spot.yaml")
    assert [f[:3] for f in found] == [("bad.yaml", "GL002", 1), ("spot.yaml", "GL202", 8)]
