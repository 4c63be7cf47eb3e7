"""What the attack tests share: a repository under review, the result cache switched on, and a
CLI run in a child process (for attacks that hang or exhaust memory when they succeed)."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# GL202 (training on spot without checkpointing) at line 8, column 5.
SPOT_JOB = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata: {name: job}
spec:
  profile: training
  resources:
    accelerator: {type: H100, count: 8}
    capacity: spot
  lifecycle: {maxRuntimeHours: 4}
"""


def repository(tmp_path: Path) -> Path:
    """An empty git work tree (a ``.git`` folder is all gpulint looks for)."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


def cache_on(monkeypatch: pytest.MonkeyPatch, home: Path) -> Path:
    """Caching on, with the user's cache directory at ``home``/cache (tests/conftest.py turns it
    off for every test); returns that directory."""
    monkeypatch.delenv("GPULINT_NO_CACHE", raising=False)
    monkeypatch.delenv("GPULINT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    return home / "cache"


def files_under(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` (links not followed) and its bytes."""
    out = {}
    for directory, _, names in os.walk(folder):
        for name in names:
            path = Path(directory, name)
            out[str(path.relative_to(folder))] = (
                b"link:" + os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
            )
    return out


def run_child(
    args: list[str],
    cwd: Path,
    timeout: float = 60,
    memory: int | None = None,
    file_size: int | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str] | None:
    """``gpulint ARGS`` in a child process with optional address-space and file-size limits;
    None if it ran past ``timeout`` (a hang)."""

    def limit() -> None:
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        if file_size is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past it fails with EFBIG
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))

    full_env = {**os.environ, "GPULINT_NO_CACHE": "1", "PYTHONPATH": str(REPO), **(env or {})}
    preexec: Callable[[], None] | None = limit if memory or file_size else None
    try:
        return subprocess.run(
            [sys.executable, "-m", "linter", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=cwd,
            env=full_env,
            preexec_fn=preexec,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None
