"""The release as users install it (issue 30): ``python -m build`` makes an sdist and a wheel
(the wheel built from the sdist, so the sdist is complete), and the wheel installs with
``pip install --no-index`` from a folder of wheels into a fresh virtual environment, where
``gpulint`` runs with its bundled rules and schemas. Slow (a minute) and it needs the package
index once, for the build backend and the dependencies' wheels: ``pytest -m slow``.
docs/releasing.md runs the same steps by hand."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from conftest import REPO

VERSION = re.search(
    r'^__version__ = "([^"]+)"$', (REPO / "linter" / "__init__.py").read_text(), re.M
).group(1)  # type: ignore[union-attr]


def _run(*command: str | Path, cwd: Path) -> str:
    done = subprocess.run([str(part) for part in command], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("build") is None, reason="needs build")
def test_the_wheel_installs_offline_and_runs(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    _run(sys.executable, "-m", "build", "--outdir", dist, REPO, cwd=tmp_path)
    wheel = dist / f"gpulint-{VERSION}-py3-none-any.whl"
    sdist = dist / f"gpulint-{VERSION}.tar.gz"
    assert sorted(p.name for p in dist.iterdir()) == sorted([sdist.name, wheel.name])
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert {
        "linter/_bundled/rules/GL101.yaml",
        "linter/_bundled/schemas/gpulint.schema.json",
        "linter/catalog/data/prices_instances.csv",
    } <= names
    with tarfile.open(sdist) as archive:
        shipped = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {"action.yml", "action/ci_steps.py", "CHANGELOG.md", "docs/releasing.md"} <= shipped

    wheels = tmp_path / "wheels"
    _run(
        sys.executable, "-m", "pip", "wheel", "--quiet", "--wheel-dir", wheels, wheel, cwd=tmp_path
    )
    venv = tmp_path / "fresh"
    _run(sys.executable, "-m", "venv", venv, cwd=tmp_path)
    pip = venv / "bin/pip"
    _run(pip, "install", "--quiet", "--no-index", "--find-links", wheels, "gpulint", cwd=tmp_path)

    gpulint = venv / "bin/gpulint"
    assert _run(gpulint, "--version", cwd=tmp_path) == f"gpulint {VERSION}\n"
    manifest = tmp_path / "70b.yaml"
    manifest.write_text((REPO / "examples/memory/70b-on-one-gpu.yaml").read_text())
    done = subprocess.run(
        [gpulint, "check", "--no-cache", "--format", "json", manifest.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done.stderr
    assert '"ruleId":"GL101"' in done.stdout
    bundled = _run(
        venv / "bin/python",
        "-c",
        "import linter.bundled as b; print(b.bundled('rules'))",
        cwd=tmp_path,
    )
    assert bundled.strip().endswith("site-packages/linter/_bundled/rules")


README = (REPO / "README.md").read_text(encoding="utf-8")


def test_the_readme_pins_one_commit_of_this_repository_for_the_hook_and_the_action() -> None:
    """No version is tagged yet: the README's pre-commit `rev:` and the Action's `uses:` name
    the same commit, which holds the hook and an action (docs/releasing.md, "Before the first
    tag")."""
    (rev,) = re.findall(r"^    rev: ([0-9a-f]{40})\b", README, re.M)
    (uses,) = re.findall(r"uses: gpulint/gpulint@([0-9a-f]{40})$", README, re.M)
    assert rev == uses
    assert "v0.2.0" not in README
    if not (REPO / ".git").exists():
        pytest.skip("the commit is checked in a git checkout")
    hooks = _run("git", "show", f"{rev}:.pre-commit-hooks.yaml", cwd=REPO)
    assert re.search(r"^- id: gpulint$", hooks, re.M)
    assert "name: gpulint" in _run("git", "show", f"{rev}:action.yml", cwd=REPO)
