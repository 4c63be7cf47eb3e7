"""The bounded reader, everywhere.

Manifests, configuration, rule files and baselines were read through ``linter/load/reader.py``
(regular files only, opened without blocking, at most a size limit), but ``memory --from-log``
and ``memory --calibration`` opened their file plainly: a FIFO blocked forever and
``/dev/zero`` was read until memory ran out. They, and ``gpulint test``'s ``# expect:`` markers,
now read through the same reader. Each case runs in a child process with an address-space
limit and a timeout, so a regression fails instead of taking the machine down.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from hostile_repository import REPO, run_child

GIB = 1024**3
NOT_REGULAR = "not a regular file (a pipe, socket or device?); not read"
COMMANDS = {
    "from-log": (["memory", "--from-log"], "{path}: " + NOT_REGULAR),
    "calibration": (
        ["memory", "--model", "Qwen/Qwen2.5-7B", "--gpu", "L4", "--calibration"],
        "{path}: cannot be read: " + NOT_REGULAR,
    ),
}


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "vllm.log"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize(("command", "error"), COMMANDS.values(), ids=COMMANDS.keys())
def test_a_fifo_is_refused_without_blocking(
    tmp_path: Path, fifo: Path, command: list[str], error: str
) -> None:
    proc = run_child([*command, str(fifo)], tmp_path, timeout=20)
    assert proc is not None, "gpulint blocked opening the FIFO"
    expected = "gpulint: error: " + error.format(path=fifo) + "\n"
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", expected)


@pytest.mark.parametrize(("command", "error"), COMMANDS.values(), ids=COMMANDS.keys())
def test_dev_zero_is_refused_without_reading(
    tmp_path: Path, command: list[str], error: str
) -> None:
    proc = run_child([*command, "/dev/zero"], tmp_path, timeout=60, memory=GIB)
    assert proc is not None, "the run did not finish"
    expected = "gpulint: error: " + error.format(path="/dev/zero") + "\n"
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", expected)


def test_a_too_large_log_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "huge.log"
    with log.open("wb") as handle:  # sparse: no disk space used
        handle.truncate(65 * 1024 * 1024)
    proc = run_child(["memory", "--from-log", str(log)], tmp_path, memory=GIB)
    assert proc is not None, "the run did not finish"
    assert (proc.returncode, proc.stderr) == (
        2,
        f"gpulint: error: {log}: file is 68,157,440 bytes, above the 67,108,864-byte limit; "
        "not read\n",
    )


@pytest.mark.parametrize("special", ["fifo", "/dev/zero"])
def test_fixture_markers_of_a_special_file_are_none(fifo: Path, special: str) -> None:
    """``gpulint test`` lists only regular fixture files; its marker reader refuses the rest
    too (the lint of such a file reports why). In a child process: it used to block or fill
    memory."""
    path = fifo if special == "fifo" else Path(special)
    probe = (
        "from pathlib import Path\n"
        "from linter.run.fixtures import expected_markers\n"
        f"print(expected_markers(Path({str(path)!r})))\n"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", probe],
            capture_output=True,
            text=True,
            timeout=20,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (GIB, GIB)),
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("reading the fixture blocked")
    assert (done.returncode, done.stdout, done.stderr[-300:]) == (0, "set()\n", "")
