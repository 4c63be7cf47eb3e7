"""What a benchmark run ran on and with: the machine and its load, the versions of every tool,
the commit, and the anchor tools (check-jsonschema, yamllint, checkov), installed into their own
virtual environment when asked (``--install-anchors``)."""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
import venv
from pathlib import Path

ANCHORS = ("check-jsonschema", "yamllint", "checkov")


def anchors_venv(work: Path) -> Path:
    return work / "anchors-venv"


def install_anchors(work: Path) -> None:
    """pip install the anchors into ``work/anchors-venv`` (once; PyPI must be reachable)."""
    target = anchors_venv(work)
    if all(_script(target, name).exists() for name in ANCHORS):
        return
    venv.create(target, with_pip=True, clear=True)
    pip = [str(_script(target, "python")), "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, *ANCHORS], check=True)


def find_anchor(name: str, work: Path, given: str | None) -> str | None:
    """The anchor's executable: as given, else from ``work/anchors-venv``, else on PATH."""
    if given:
        return given
    installed = _script(anchors_venv(work), name)
    if installed.exists():
        return str(installed)
    from shutil import which

    return which(name)


def _script(environment: Path, name: str) -> Path:
    folder = "Scripts" if sys.platform == "win32" else "bin"
    return environment / folder / name


def tool_version(argv: list[str]) -> str:
    """The first version number ``argv`` prints (``checkov --version``: ``3.3.30``)."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    found = re.search(r"\d+(?:\.\d+)+\S*", done.stdout + done.stderr)
    return found.group(0) if found else "unknown"


def load() -> list[float]:
    """The 1, 5 and 15 minute load averages now: how busy the machine was around the run."""
    return [round(value, 2) for value in os.getloadavg()] if hasattr(os, "getloadavg") else []


def machine() -> dict[str, object]:
    return {
        "cpu": _cpu_model(),
        "cpus": os.cpu_count(),
        "cpus_available": len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else os.cpu_count(),
        "memory_gib": _memory_gib(),
        "os": platform.platform(),
        "python": platform.python_version(),
    }


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return None


def commit(repo: Path) -> str:
    """The commit measured, with ``+changes`` when the work tree differs from it (apart from the
    files a run writes: RESULTS.md and ``results/``, which a second run finds changed)."""

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(repo), *args], capture_output=True, text=True, check=False
        )
        return done.stdout.strip()

    head = git("rev-parse", "--short=12", "HEAD") or "unknown"
    outputs = (":(exclude)benchmarks/RESULTS.md", ":(exclude)benchmarks/results")
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".", *outputs)
    return f"{head}+changes" if dirty else head


def measured_env(cache: Path) -> dict[str, str]:
    """The environment of every measured command: the user's, with gpulint's caches in ``cache``
    and bytecode written as after any ``pip install`` (``PYTHONDONTWRITEBYTECODE`` would make
    every run compile every module again, which no user's run does)."""
    dropped = ("PYTHONDONTWRITEBYTECODE", "GPULINT_NO_CACHE")
    env = {name: value for name, value in os.environ.items() if name not in dropped}
    env["GPULINT_CACHE_DIR"] = str(cache)
    return env
