"""``gpulint init``: starter files that lint without errors, and no silent overwrites."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli

from linter.commands.init import PROFILES


@pytest.mark.parametrize("profile", PROFILES)
def test_starter_passes_check(
    profile: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = run_cli("init", "--profile", profile, "--dir", str(tmp_path / "new"))
    manifest = tmp_path / "new" / "workload.yaml"
    assert (result.code, result.err) == (0, "")
    config = tmp_path / "new" / ".gpulint.yaml"
    assert result.out == (
        f"Wrote {manifest} ({profile} profile) and {config}.\n"
        f"Edit them, then run: gpulint check {manifest}\n"
    )
    assert f"profile: {profile} " in manifest.read_text()
    monkeypatch.chdir(tmp_path / "new")  # so that the written .gpulint.yaml is the config used
    check = run_cli("check", "--format", "json", ".")
    assert check.err == ""
    report = json.loads(check.out)
    assert report["summary"]["filesChecked"] == 1
    problems = [
        (f["ruleId"], f["line"], f["message"])
        for f in report["findings"]
        if f["ruleId"].startswith("GL0") or f["severity"] == "error"
    ]
    assert problems == []
    assert check.code == 0


def test_default_profile_is_inference(tmp_path: Path) -> None:
    assert run_cli("init", "--dir", str(tmp_path)).code == 0
    assert "  profile: inference " in (tmp_path / "workload.yaml").read_text()
    assert (
        (tmp_path / ".gpulint.yaml")
        .read_text()
        .splitlines()[1]
        .startswith("# gpulint configuration")
    )


def test_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    (tmp_path / ".gpulint.yaml").write_text("failOn: never\n")
    result = run_cli("init", "--dir", str(tmp_path))
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        f"gpulint: error: {tmp_path / '.gpulint.yaml'} already exists; use --force to overwrite\n"
    )
    assert not (tmp_path / "workload.yaml").exists()
    assert (tmp_path / ".gpulint.yaml").read_text() == "failOn: never\n"
    assert run_cli("init", "--dir", str(tmp_path), "--force", "--profile", "dev").code == 0
    assert "  profile: dev " in (tmp_path / "workload.yaml").read_text()
    assert (tmp_path / ".gpulint.yaml").read_text() != "failOn: never\n"


def test_dir_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    result = run_cli("init", "--dir", str(tmp_path / "file"))
    assert result.code == 2
    assert result.err == f"gpulint: error: --dir {tmp_path / 'file'}: not a directory\n"


def test_a_link_planted_at_a_starter_name_is_never_written_through(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere" / "profile.sh"
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "workload.yaml").symlink_to(target)  # dangling
    result = run_cli("init", "--dir", str(tmp_path / "new"))
    assert (result.code, result.err) == (
        2,
        f"gpulint: error: {tmp_path / 'new' / 'workload.yaml'} already exists; "
        "use --force to overwrite\n",
    )
    refused = run_cli("init", "--force", "--dir", str(tmp_path / "new"))
    assert (refused.code, "workload.yaml is a symbolic link" in refused.err) == (2, True)
    assert not target.exists()
