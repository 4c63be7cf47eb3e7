"""Writing through a committed link.

A pull request committed a symbolic link at the path CI writes to (``gpulint.sarif``, the
Action's default; a baseline; the report of ``cost`` or ``gpulint test``; the folder ``init``
writes into), pointing at a file outside the repository (a shell start-up file). The report
replaced that file. Now every command that writes refuses an output file that is a link, and a
link among the folders of its path inside the working directory, names it, exits 2 and leaves
the link's target as it was. Folders above the working directory are the user's own and are
followed (``/tmp`` is a link on macOS), and so is a link to a pipe or device (``/dev/stdout``).

And a report is written whole or not at all: on a full or read-only disk ``--output`` was an
internal error that left an empty file; the report goes to a temporary beside it, renamed over it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import REPO, run_cli
from hostile_repository import SPOT_JOB, run_child

SHELL_RC = "export PATH=/usr/bin\n"
REFUSAL = (
    "is a symbolic link; gpulint does not write through links (remove it, or name another path)"
)

# Each command that writes a file, with the output option placed last so the path can follow.
WRITERS = {
    "check --output": ("check", "job.yaml", "--output"),
    "check --format sarif -o": ("check", "--format", "sarif", "job.yaml", "-o"),
    "check --write-baseline": ("check", "job.yaml", "--write-baseline"),
    "cost --output": ("cost", "job.yaml", "--output"),
}


@pytest.fixture
def repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A working directory holding a manifest, and a file outside it a link may point at."""
    outside = tmp_path / "home"
    outside.mkdir()
    (outside / ".bashrc").write_text(SHELL_RC)
    work = tmp_path / "repo"
    work.mkdir()
    (work / "job.yaml").write_text(SPOT_JOB)
    monkeypatch.chdir(work)
    return work, outside


@pytest.mark.parametrize("command", WRITERS.values(), ids=WRITERS.keys())
def test_a_link_at_the_output_path_is_refused(
    repository: tuple[Path, Path], command: tuple[str, ...]
) -> None:
    work, outside = repository
    (work / "gpulint.sarif").symlink_to(outside / ".bashrc")
    result = run_cli(*command, "gpulint.sarif")
    assert result.code == 2
    assert result.err.endswith(f"gpulint.sarif {REFUSAL}\n")
    assert (outside / ".bashrc").read_text() == SHELL_RC
    assert (work / "gpulint.sarif").is_symlink()


@pytest.mark.parametrize("command", WRITERS.values(), ids=WRITERS.keys())
def test_a_linked_folder_on_the_output_path_is_refused(
    repository: tuple[Path, Path], command: tuple[str, ...]
) -> None:
    work, outside = repository
    (work / "reports").symlink_to(outside)
    result = run_cli(*command, "reports/.bashrc")
    assert result.code == 2
    assert result.err.endswith(f"reports {REFUSAL}\n")
    assert (outside / ".bashrc").read_text() == SHELL_RC


def test_a_dangling_link_is_refused_and_nothing_is_created(repository: tuple[Path, Path]) -> None:
    work, outside = repository
    (work / "gpulint.sarif").symlink_to(outside / "new-file")
    assert run_cli("check", "job.yaml", "-o", "gpulint.sarif").code == 2
    assert sorted(p.name for p in outside.iterdir()) == [".bashrc"]


def test_an_absolute_path_into_the_working_directory_is_checked(
    repository: tuple[Path, Path],
) -> None:
    work, outside = repository
    (work / "gpulint.sarif").symlink_to(outside / ".bashrc")
    result = run_cli("check", "job.yaml", "-o", str(work / "gpulint.sarif"))
    assert result.code == 2
    assert (outside / ".bashrc").read_text() == SHELL_RC


def test_gpulint_test_refuses_a_linked_report(repository: tuple[Path, Path]) -> None:
    work, outside = repository
    rules = work / "policies"
    shutil.copytree(REPO / "examples" / "policies", rules)  # a folder with rules to test
    (work / "junit.xml").symlink_to(outside / ".bashrc")
    result = run_cli("test", str(rules), "--format", "junit", "-o", "junit.xml")
    assert result.code == 2
    assert result.err.endswith(f"junit.xml {REFUSAL}\n")
    assert (outside / ".bashrc").read_text() == SHELL_RC


def test_init_refuses_a_linked_directory(repository: tuple[Path, Path]) -> None:
    work, outside = repository
    (work / "ml").symlink_to(outside)
    result = run_cli("init", "--dir", "ml")
    assert (result.code, result.err) == (2, f"gpulint: error: --dir ml: ml {REFUSAL}\n")
    assert sorted(p.name for p in outside.iterdir()) == [".bashrc"]


def test_init_refuses_to_replace_a_link_even_with_force(repository: tuple[Path, Path]) -> None:
    work, outside = repository
    (work / "workload.yaml").symlink_to(outside / ".bashrc")
    result = run_cli("init", "--force")
    assert result.code == 2
    assert result.err.endswith(f"workload.yaml {REFUSAL}\n")
    assert (outside / ".bashrc").read_text() == SHELL_RC


def test_a_linked_folder_outside_the_working_directory_is_the_users(
    repository: tuple[Path, Path], tmp_path: Path
) -> None:
    _, outside = repository
    (tmp_path / "reports").symlink_to(outside)
    report = tmp_path / "reports" / "report.json"
    assert run_cli("check", "job.yaml", "--format", "json", "-o", str(report)).code == 1
    assert (outside / "report.json").read_text().startswith("{")


def test_a_link_outside_the_working_directory_is_refused_too(
    repository: tuple[Path, Path], tmp_path: Path
) -> None:
    _, outside = repository
    (tmp_path / "latest.json").symlink_to(outside / ".bashrc")
    result = run_cli("check", "job.yaml", "-o", str(tmp_path / "latest.json"))
    assert (result.code, result.err.endswith(f"latest.json {REFUSAL}\n")) == (2, True)
    assert (outside / ".bashrc").read_text() == SHELL_RC


def test_a_link_to_a_device_is_written_to(repository: tuple[Path, Path]) -> None:
    work, _ = repository
    (work / "out").symlink_to("/dev/null")
    assert run_cli("check", "job.yaml", "-o", "out").code == 1
    assert (work / "out").is_symlink()


def test_a_plain_file_in_a_plain_folder_is_written(repository: tuple[Path, Path]) -> None:
    work, _ = repository
    (work / "out").mkdir()
    assert run_cli("check", "job.yaml", "--format", "json", "-o", "out/report.json").code == 1
    assert (work / "out" / "report.json").read_text().startswith("{")


def test_output_to_a_full_disk_is_a_clean_error(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(SPOT_JOB)
    result = run_cli("check", "--output", "/dev/full", str(tmp_path / "job.yaml"))
    assert (result.code, result.out, result.err) == (
        2,
        "",
        "gpulint: error: /dev/full: cannot write the report: No space left on device\n",
    )


def test_a_failed_output_write_keeps_the_previous_report(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(SPOT_JOB)
    (tmp_path / "report.txt").write_text("the previous report\n")
    # files may grow to 100 bytes in this process: the report is longer
    proc = run_child(["check", "-o", "report.txt", "job.yaml"], tmp_path, file_size=100)
    assert proc is not None
    assert (proc.returncode, proc.stderr) == (
        2,
        "gpulint: error: report.txt: cannot write the report: File too large\n",
    )
    assert (tmp_path / "report.txt").read_text() == "the previous report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job.yaml", "report.txt"]
