"""Configuration per file, as ruff finds it: the nearest ``.gpulint.yaml`` / ``[tool.gpulint]``
above each file decides its rules; ``extend`` starts from another; the run's configuration alone
holds the run-wide keys. One test per rule of precedence (README "Configuration")."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import REPO, run_cli
from test_config import JOB, write

from linter.config import MAX_EXTEND_DEPTH, ConfigError, load_config


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with the same job at its root and in ml/, the working directory its root."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    write(root / "job.yaml", JOB)
    write(root / "ml" / "job.yaml", JOB)
    monkeypatch.chdir(root)
    return root


def found(*args: str) -> tuple[int, list[str]]:
    """The exit status and ``file:line:column: rule [severity]`` of each finding."""
    result = run_cli("check", *args)
    assert result.err == "", result.err
    lines = [line.split("] ", 1)[0] + "]" for line in result.out.splitlines() if " [" in line]
    return result.code, lines


def test_without_configurations_every_file_has_the_defaults(repo: Path) -> None:
    assert found() == (
        0,
        [
            "job.yaml:7:3: GL203 [note]",
            "job.yaml:10:5: GL201 [warning]",
            "ml/job.yaml:7:3: GL203 [note]",
            "ml/job.yaml:10:5: GL201 [warning]",
        ],
    )


def test_the_nearest_configuration_above_a_file_applies_to_it(repo: Path) -> None:
    """gpulint init --dir ml/ and a run from the root: ml/'s configuration decides ml/'s files."""
    assert run_cli("init", "--dir", "ml", "--profile", "fine-tuning").code == 0
    (repo / "ml" / "workload.yaml").unlink()
    config = repo / "ml" / ".gpulint.yaml"
    text = config.read_text(encoding="utf-8").replace("ignore: []", "ignore: [GL203]")
    config.write_text(text + "rules:\n  GL201: {severity: error}\n", encoding="utf-8")
    result = run_cli("check")
    assert result.code == 1
    assert found() == (
        1,
        [
            "job.yaml:7:3: GL203 [note]",
            "job.yaml:10:5: GL201 [warning]",
            "ml/job.yaml:10:5: GL201 [error]",
        ],
    )
    # the summary says what each configuration changed, and where
    assert result.out.splitlines()[-1] == (
        "Configuration turned off 1 rule (GL203 under ml/) and changed the severity of 1 rule "
        "(GL201 from warning to error under ml/)."
    )


def test_a_file_without_a_configuration_of_its_own_takes_the_runs(repo: Path) -> None:
    write(repo / ".gpulint.yaml", "ignore: [GL203]\n")
    assert found() == (0, ["job.yaml:10:5: GL201 [warning]", "ml/job.yaml:10:5: GL201 [warning]"])


def test_pyproject_tool_gpulint_is_a_folders_configuration(repo: Path) -> None:
    write(repo / "ml" / "pyproject.toml", "[tool.gpulint]\nignore = ['GL203']\n")
    write(repo / "pyproject.toml", "[project]\nname = 'x'\n")  # no table: not a configuration
    assert found() == (
        0,
        [
            "job.yaml:7:3: GL203 [note]",
            "job.yaml:10:5: GL201 [warning]",
            "ml/job.yaml:10:5: GL201 [warning]",
        ],
    )


def test_a_nested_configuration_does_not_inherit_without_extend(repo: Path) -> None:
    write(repo / ".gpulint.yaml", "ignore: [GL203]\n")
    write(
        repo / "ml" / ".gpulint.yaml", "rules:\n  GL201: {options: {maxIdleShutdownMinutes: 120}}\n"
    )
    assert found() == (0, ["job.yaml:10:5: GL201 [warning]", "ml/job.yaml:7:3: GL203 [note]"])


def test_extend_starts_from_the_parent_and_the_childs_keys_win(repo: Path) -> None:
    write(
        repo / ".gpulint.yaml",
        "ignore: [GL203]\nrules:\n  GL201: {severity: error}\n  GL105: {severity: note}\n",
    )
    write(
        repo / "ml" / ".gpulint.yaml",
        "extend: ../.gpulint.yaml\nrules:\n  GL201: {options: {maxIdleShutdownMinutes: 120}}\n",
    )
    # ml/: ignore from the parent; GL201 replaced whole (its options, the default severity)
    assert found() == (1, ["job.yaml:10:5: GL201 [error]"])
    write(repo / "ml" / ".gpulint.yaml", "extend: ../.gpulint.yaml\nignore: []\n")
    assert found() == (
        1,
        [
            "job.yaml:10:5: GL201 [error]",
            "ml/job.yaml:7:3: GL203 [note]",
            "ml/job.yaml:10:5: GL201 [error]",
        ],
    )


def test_extended_assumptions_apply_each_relative_to_its_own_file(repo: Path) -> None:
    write(
        repo / ".gpulint.yaml",
        "assume:\n"
        "  - paths: ['ml/**']\n    set: {provider: gcp, region: europe-west4}\n"
        "  - paths: ['other/**']\n    set: {provider: aws}\n",
    )
    child = write(
        repo / "ml" / ".gpulint.yaml",
        "extend: ../.gpulint.yaml\nassume:\n  - paths: ['*.yaml']\n    set: {region: us-central1}\n",
    )
    loaded = load_config(child, repo)
    assumed = loaded.assumptions(str(repo / "ml" / "job.yaml"), "ml/job.yaml")
    assert [(a.path, a.value, a.where) for a in assumed] == [
        (("spec", "resources", "provider"), "gcp", ".gpulint.yaml:3"),
        (("spec", "resources", "region"), "us-central1", ".gpulint.yaml:4"),
    ]


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (
            {"ml/.gpulint.yaml": "extend: ../../outside.yaml\n"},
            "ml/.gpulint.yaml:1:1: extend: '../../outside.yaml' is outside the repository",
        ),
        (
            {"ml/.gpulint.yaml": "extend: ../missing.yaml\n"},
            "ml/.gpulint.yaml:1:1: extend: '../missing.yaml' is not a file",
        ),
        (
            {
                "ml/.gpulint.yaml": "extend: ../.gpulint.yaml\n",
                ".gpulint.yaml": "extend: ml/.gpulint.yaml\n",
            },
            ".gpulint.yaml:1:1: extend: a cycle (",
        ),
    ],
)
def test_extend_is_bounded_inside_the_repository_without_cycles(
    repo: Path, files: dict[str, str], message: str
) -> None:
    write(repo.parent / "outside.yaml", "ignore: [GL203]\n")
    for name, text in files.items():
        write(repo / name, text)
    result = run_cli("check")
    assert (result.code, result.out) == (2, "")
    assert result.err.startswith(f"gpulint: error: {repo}/"), result.err
    assert message in result.err
    assert len(result.err.splitlines()) == 1


def test_extend_chains_are_at_most_max_extend_depth_long(repo: Path) -> None:
    for level in range(MAX_EXTEND_DEPTH + 2):
        write(repo / f"c{level}.yaml", f"extend: c{level + 1}.yaml\n")
    write(repo / f"c{MAX_EXTEND_DEPTH + 2}.yaml", "ignore: [GL203]\n")
    with pytest.raises(ConfigError, match=f"more than {MAX_EXTEND_DEPTH} configurations"):
        load_config(repo / "c0.yaml", repo)
    assert load_config(repo / f"c{3}.yaml", repo).config.ignore == ["GL203"]


def test_run_wide_keys_come_from_the_runs_configuration(repo: Path) -> None:
    """A nested configuration may repeat them (the starter's failOn: error), not change them."""
    write(repo / "ml" / ".gpulint.yaml", "failOn: error\nexclude: []\n")
    assert found()[0] == 0
    write(repo / "ml" / ".gpulint.yaml", "failOn: warning\n")
    result = run_cli("check")
    assert (result.code, result.out) == (2, "")
    assert result.err == (
        f"gpulint: error: {repo / 'ml' / '.gpulint.yaml'}:1:1: failOn applies to the whole run "
        "and is read from the run's configuration (no configuration: the defaults), which gives "
        "'error': remove it here, or set it there\n"
    )
    write(repo / ".gpulint.yaml", "failOn: warning\n")
    assert found()[0] == 1


def test_config_on_the_command_line_applies_to_every_file(repo: Path) -> None:
    write(repo / "ml" / ".gpulint.yaml", "ignore: [GL201]\n")
    chosen = write(repo / "chosen.yaml", "ignore: [GL203]\n")
    assert found("--config", str(chosen)) == (
        0,
        ["job.yaml:10:5: GL201 [warning]", "ml/job.yaml:10:5: GL201 [warning]"],
    )


def test_run_wide_rules_see_files_of_every_configuration(repo: Path) -> None:
    """examples/quota-repo with train-a.yaml in ml/, whose configuration turns GL302 off: the
    quota is still summed over both jobs, and train-b.yaml at the root reports the shortfall."""
    for path in (repo / "job.yaml", repo / "ml" / "job.yaml"):
        path.unlink()
    quota = REPO / "examples" / "quota-repo"
    shutil.copy(quota / "quotas.yaml", repo / "quotas.yaml")
    shutil.copy(quota / "train-b.yaml", repo / "train-b.yaml")
    shutil.copy(quota / "train-a.yaml", repo / "ml" / "train-a.yaml")
    write(repo / "ml" / ".gpulint.yaml", "ignore: [GL302]\n")
    assert found() == (
        1,
        [
            "ml/train-a.yaml:20:5: GL203 [note]",
            "train-b.yaml:19:5: GL302 [error]",
            "train-b.yaml:20:5: GL203 [note]",
        ],
    )


def test_a_changed_nested_configuration_is_not_answered_from_the_cache(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GPULINT_NO_CACHE")
    monkeypatch.setenv("GPULINT_CACHE_DIR", str(tmp_path / "cache"))
    write(repo / "ml" / ".gpulint.yaml", "ignore: [GL203]\n")
    before = found()
    write(repo / "ml" / ".gpulint.yaml", "ignore: [GL201]\n")
    assert before != found()
    assert found() == (
        0,
        [
            "job.yaml:7:3: GL203 [note]",
            "job.yaml:10:5: GL201 [warning]",
            "ml/job.yaml:7:3: GL203 [note]",
        ],
    )
