"""The pre-commit hook, run by the real pre-commit: ``pre-commit try-repo`` on this repository.

try-repo installs the hook from a commit, so the working tree (tracked and untracked files that
git does not ignore, uncommitted changes included) is copied into a scratch repository and
committed there. pre-commit then pip-installs it into a fresh environment, with the dependencies
from PyPI: this needs the network and takes about ten seconds per run, so the tests are marked
``slow``: a plain ``pytest`` skips them, ``pytest -m slow`` runs them. try-repo keeps that environment in a temporary store
of its own, whatever PRE_COMMIT_HOME says, so each run installs again; PRE_COMMIT_HOME points at
a scratch folder only so that nothing touches the user's cache.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from linter.commands.init import template

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
]

BAD = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata: {name: finetune}
spec:
  profile: fine-tuning
  resources:
    accelerator: {type: A100-80GB, count: 8}
    capacity: spot
  lifecycle: {maxRuntimeHours: 10}
"""
GIT = [
    "git",
    "-c",
    "user.name=gpulint tests",
    "-c",
    "user.email=tests@gpulint.invalid",
    "-c",
    "commit.gpgsign=false",
    "-c",
    "init.defaultBranch=main",
]


def _git(cwd: Path, *args: str) -> str:
    proc = subprocess.run([*GIT, *args], cwd=cwd, capture_output=True, text=True, check=True)
    return proc.stdout


def _repository(path: Path, files: dict[str, str]) -> Path:
    path.mkdir()
    _git(path, "init", "--quiet")
    for name, text in files.items():
        (path / name).write_text(text)
    _git(path, "add", "--all")
    return path


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This working tree, committed in a scratch repository."""
    target = tmp_path_factory.mktemp("hook") / "gpulint"
    listed = _git(REPO, "ls-files", "--cached", "--others", "--exclude-standard", "-z")
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():  # deleted but not yet committed: leave it out
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    _git(target, "init", "--quiet")
    _git(target, "add", "--all")
    _git(target, "commit", "--quiet", "-m", "working tree under test")
    return target


def _try_repo(project: Path, hook_repo: Path, *files: str) -> subprocess.CompletedProcess[str]:
    """The hook on ``files`` (pre-commit's ``--files``), else on every file (``--all-files``)."""
    home = project.parent / "pre-commit-home"
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    env.pop("GPULINT_NO_CACHE", None)
    env["GPULINT_CACHE_DIR"] = str(project.parent / "gpulint-cache")
    which = ["--files", *files] if files else ["--all-files"]
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo), "gpulint", *which],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )


def test_hook_passes_a_good_manifest(tmp_path: Path, hook_repo: Path) -> None:
    project = _repository(tmp_path / "good", {"workload.yaml": template("inference.yaml")})
    proc = _try_repo(project, hook_repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "gpulint" in proc.stdout
    assert "Passed" in proc.stdout


def test_hook_fails_a_bad_manifest(tmp_path: Path, hook_repo: Path) -> None:
    project = _repository(tmp_path / "bad", {"job.yaml": BAD})
    proc = _try_repo(project, hook_repo)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Failed" in proc.stdout
    assert "job.yaml:8:5: GL202 [error] fine-tuning on spot capacity" in proc.stdout


def test_hook_judges_quota_on_the_whole_repository(tmp_path: Path, hook_repo: Path) -> None:
    """examples/quota-repo with train-a.yaml staged: the ledger in quotas.yaml covers it (no
    false GL301), and the shortfall it makes with train-b.yaml is reported (GL302); train-b's own
    findings are not (it was not staged)."""
    quota = REPO / "examples" / "quota-repo"
    files = {p.name: p.read_text() for p in sorted(quota.iterdir()) if p.suffix == ".yaml"}
    project = _repository(tmp_path / "quota", files)
    _git(project, "commit", "--quiet", "-m", "quota repository")
    (project / "train-a.yaml").write_text(files["train-a.yaml"] + "# staged edit\n")
    _git(project, "add", "train-a.yaml")
    proc = _try_repo(project, hook_repo, "train-a.yaml")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Failed" in proc.stdout
    assert (
        "train-a.yaml:19:5: GL302 [error] gcp quota NVIDIA_A100_GPUS in us-central1: 16 GPU "
        "needed, 8 approved; short by 8 GPU" in proc.stdout
    )
    assert "GL301" not in proc.stdout
    assert "train-b.yaml:" not in proc.stdout
    assert "Found 1 error, 0 warnings and 1 note in 1 file." in proc.stdout
