"""A git repository built in a test's tmp_path, with workloads to cost."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def new_repo(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "test@example.com")
    git(root, "config", "user.name", "test")
    git(root, "config", "commit.gpgsign", "false")
    return root


def commit(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def service(
    name: str,
    *,
    replicas: int = 2,
    instance_type: str = "g5.xlarge",
    labels: str = "{team: support}",
    extra: str = "",
) -> str:
    """An always-on inference service in us-east-1 (g5.xlarge: $1.006/h, $734.38 a month)."""
    return f"""\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata:
  name: {name}
  labels: {labels}
spec:
  profile: inference
  serving: {{replicas: {replicas}}}
  resources: {{provider: aws, region: us-east-1, instanceType: {instance_type}}}
  lifecycle: {{alwaysOn: customer-facing{extra}}}
"""


def working_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty repository that is also the working directory (for a test's ``repo``
    fixture)."""
    root = new_repo(tmp_path / "repo")
    monkeypatch.chdir(root)
    return root
