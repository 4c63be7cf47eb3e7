"""Attack 7: unbounded reads and hangs.

The cache key read every candidate whole before the size limit applied (a 3 GB file: 3 GB of
memory or a MemoryError); ``--baseline /dev/zero`` read until memory ran out; a FIFO baseline
blocked forever. Every file is now opened without blocking, checked on the open descriptor
(regular file, size) and read to at most its limit. Each case runs in a child process with an
address-space limit and a timeout, so a regression fails instead of taking the machine down.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from hostile_repository import SPOT_JOB, repository, run_child

GIB = 1024**3
MEMORY = GIB  # a normal run needs about 300 MiB of address space


def test_a_huge_candidate_is_not_read_for_the_cache_key(tmp_path: Path) -> None:
    repo = repository(tmp_path)
    with (repo / "big.yaml").open("wb") as handle:  # sparse: no disk space used
        handle.truncate(2 * GIB)
    env = {"GPULINT_NO_CACHE": "", "XDG_CACHE_HOME": str(tmp_path / "cache")}
    proc = run_child(["check", "--format", "json", "."], repo, memory=MEMORY, env=env)
    assert proc is not None, "the run did not finish"
    assert (proc.returncode, proc.stderr) == (1, "")
    (finding,) = json.loads(proc.stdout)["findings"]
    assert (finding["ruleId"], finding["line"], finding["message"]) == (
        "GL002",
        1,
        f"file is {2 * GIB:,} bytes, above the 10,485,760-byte limit "
        "(raise maxFileSize in .gpulint.yaml); not read",
    )


def test_baseline_from_dev_zero_is_refused(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(SPOT_JOB)
    proc = run_child(["check", "--baseline", "/dev/zero", "job.yaml"], tmp_path, memory=MEMORY)
    assert proc is not None, "the run did not finish"
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        2,
        "",
        "gpulint: error: /dev/zero: cannot read baseline: not a regular file "
        "(a pipe, socket or device?)\n",
    )


def test_a_fifo_baseline_does_not_hang(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(SPOT_JOB)
    os.mkfifo(tmp_path / "baseline.json")
    proc = run_child(["check", "--baseline", "baseline.json", "job.yaml"], tmp_path, timeout=20)
    assert proc is not None, "gpulint blocked opening the FIFO"
    assert (proc.returncode, proc.stderr) == (
        2,
        "gpulint: error: baseline.json: cannot read baseline: not a regular file "
        "(a pipe, socket or device?)\n",
    )


def test_an_oversized_baseline_is_refused_by_its_size(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(SPOT_JOB)
    with (tmp_path / "baseline.json").open("wb") as handle:
        handle.truncate(2 * GIB)
    proc = run_child(["check", "--baseline", "baseline.json", "job.yaml"], tmp_path, memory=MEMORY)
    assert proc is not None, "the run did not finish"
    assert (proc.returncode, proc.stderr) == (
        2,
        f"gpulint: error: baseline.json: cannot read baseline: file is {2 * GIB:,} bytes, "
        "above the 33,554,432-byte limit\n",
    )


def test_memory_model_config_from_dev_zero_is_refused(tmp_path: Path) -> None:
    proc = run_child(
        ["memory", "--model-config", "/dev/zero", "--gpu", "H100"], tmp_path, memory=MEMORY
    )
    assert proc is not None, "the run did not finish"
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        2,
        "",
        "gpulint: error: /dev/zero: not a regular file (a pipe, socket or device?); not read\n",
    )
