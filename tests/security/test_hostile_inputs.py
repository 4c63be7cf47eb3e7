"""Hostile input through the whole CLI: each case gives its exact finding (rule id and line), or a
clean skip, and its exit code; never a traceback, a hang, or a file read that should not be.

The corpus lives in tests/hostile/ (small files, committed); large or environment-dependent cases
(a 50 MB file, symbolic-link loops, FIFOs, paths outside the repository) are built here at test
time. Every file in tests/hostile/regressions/ (where tests/security/fuzz_pipeline.py saves crashing inputs)
is run through the CLI's invariants, so a crash once found stays a test case.

Known bugs are strict xfails: they fail (as expected) until the bug is fixed, then the marker must go.
"""

from __future__ import annotations

import builtins
import io
import json
import os
import pathlib
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, run_cli
from fuzz_pipeline import HOSTILE, REGRESSIONS, check, fuzz

from linter.load.discovery import display_path

MB = 1024 * 1024
DEFAULT_LIMIT = 10 * MB
INPUT_RULES = "GL001,GL002,GL003"
HEADER = (
    "apiVersion: gpulint.dev/v1alpha1\nkind: Workload\nmetadata:\n  name: chat\nspec:\n"
    "  profile: dev\n"
)


def findings(*args: str) -> tuple[int, list[tuple[str, int]], list[dict[str, Any]], str]:
    """(exit code, [(rule, line)], raw findings, stderr) of ``gpulint check --format json``."""
    result = run_cli("check", "--format", "json", *args)
    assert "Traceback" not in result.err and "internal error" not in result.err, result.err
    assert result.code in (0, 1), (result.code, result.err)
    report = json.loads(result.out)["findings"]
    return result.code, [(f["ruleId"], f["line"]) for f in report], report, result.err


# -- the committed corpus ---------------------------------------------------------------------

# file -> (exit code, [(rule id, line)] with only input rules selected, message fragment)
CORPUS: dict[str, tuple[int, list[tuple[str, int]], str | None]] = {
    "billion-laughs.yaml": (1, [("GL002", 8)], "expands to more than 1,000,000 nodes"),
    "recursive-alias.yaml": (1, [("GL002", 4)], "alias *s refers to itself (a cycle)"),
    "undefined-alias.yaml": (1, [("GL002", 3)], "alias *nowhere refers to no anchor"),
    "deep-flow-sequence.yaml": (1, [("GL002", 3)], "nesting is deeper than 200 levels"),
    "deep-flow-mapping.yaml": (1, [("GL002", 3)], "nesting is deeper than 200 levels"),
    "deep-block-sequence.yaml": (1, [("GL002", 4)], "nesting is deeper than 200 levels"),
    "deep-block-mapping.yaml": (1, [("GL002", 203)], "nesting is deeper than 200 levels"),
    "json-deep.json": (1, [("GL002", 1)], "nesting is deeper than 200 levels"),
    "binary.yaml": (1, [("GL002", 1)], "binary content (NUL bytes)"),
    "invalid-utf8.yaml": (1, [("GL002", 8)], "not valid UTF-8: byte 0xc3 at line 8, column 16"),
    "bom-utf8.yaml": (1, [("GL001", 7)], "spec.bogus: unknown field"),
    "tab-indentation.yaml": (1, [("GL002", 8)], "YAML syntax error"),
    "crlf.yaml": (1, [("GL001", 7)], "spec.bogus: unknown field"),
    "cr-only.yaml": (1, [("GL001", 7)], "spec.bogus: unknown field"),
    "duplicate-keys.yaml": (1, [("GL002", 7)], "duplicate key 'profile' (first defined on line 6)"),
    "python-tags.yaml": (1, [("GL001", 4), ("GL001", 7)], "Input should be a valid string"),
    "complex-key.yaml": (1, [("GL002", 3)], "a mapping or sequence used as a key is not supported"),
    "huge-numbers.yaml": (
        1,
        [("GL001", 8), ("GL001", 9)],
        "spec.resources.nodes: Input should be less than or equal to 100000",
    ),
    "json-invalid.json": (1, [("GL002", 4)], "YAML syntax error"),
    "many-documents.yaml": (0, [], None),
    "yaml-directives.yaml": (0, [], None),
}
SKIPPED = ["empty.yaml", "comments-only.yaml"]


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_corpus_file_gives_its_exact_finding(name: str) -> None:
    code, found, report, _ = findings("--select", INPUT_RULES, str(HOSTILE / name))
    expected_code, expected, fragment = CORPUS[name]
    assert (code, found) == (expected_code, expected), report
    if fragment is not None:
        assert fragment in report[0]["message"]
    for finding in report:
        assert "\n" not in finding["message"]


@pytest.mark.parametrize("name", SKIPPED)
def test_empty_and_comment_only_files_are_a_clean_skip(name: str, tmp_path: Path) -> None:
    code, found, _, err = findings(str(HOSTILE / name))
    assert (code, found) == (0, [])
    shown = display_path(HOSTILE / name, Path.cwd())
    assert err == f"gpulint: skipped {shown}: no document of a format gpulint reads\n"
    (tmp_path / name).write_bytes((HOSTILE / name).read_bytes())
    assert findings(str(tmp_path)) == (0, [], [], "")  # in a directory: silent


def _corpus_files() -> list[Path]:
    return sorted(p for p in HOSTILE.rglob("*") if p.is_file() and p.suffix != ".txt")


# Regression files of bugs not fixed yet (the fuzzer's KNOWN_CRASHES); remove an entry with the fix.
KNOWN_BAD: dict[str, str] = {}


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(
            p,
            id=str(p.relative_to(HOSTILE)),
            marks=[pytest.mark.xfail(strict=True, reason=KNOWN_BAD[p.name])]
            if p.name in KNOWN_BAD
            else [],
        )
        for p in _corpus_files()
    ],
)
def test_corpus_and_regressions_hold_every_invariant(path: Path) -> None:
    """Exit 0/1, positions in the file, valid SARIF, identical output twice."""
    check([path])


# -- known bugs in the corpus -----------------------------------------------------------------


@pytest.mark.parametrize("name", ["bom-utf16le.yaml", "bom-utf16be.yaml", "bom-utf32le.yaml"])
def test_utf16_and_utf32_files_with_a_bom_are_linted(name: str) -> None:
    code, found, _, err = findings("--select", INPUT_RULES, str(HOSTILE / name))
    assert (code, found, err) == (1, [("GL001", 7)], "")


def test_truncated_utf16_is_a_decoding_finding() -> None:
    code, found, report, _ = findings(str(HOSTILE / "truncated-utf16.yaml"))
    assert (code, found) == (1, [("GL002", 1)])
    assert "not valid UTF-16" in report[0]["message"]


def test_disallowed_control_character_is_reported_where_it_is() -> None:
    _, found, report, _ = findings(str(HOSTILE / "control-character.yaml"))
    assert found == [("GL002", 8)]
    assert report[0]["column"] == 15  # "    engine: vl" is 14 characters
    assert "\n" not in report[0]["message"] and "<unicode string>" not in report[0]["message"]


@pytest.mark.xfail(
    strict=True,
    reason="valid JSON with a raw C1 control character (U+0085, "
    "U+009D) inside a string is refused with GL002 'unacceptable character "
    "#x009d' at 1:1; JSON allows every character above U+001F in strings (and "
    "YAML 1.2 allows them in double-quoted scalars)",
)
def test_json_with_c1_controls_in_a_string_is_read() -> None:
    code, found, _, _ = findings(
        "--select", INPUT_RULES, str(REGRESSIONS / "json-c1-control-in-string.json")
    )
    assert (code, found) == (1, [("GL001", 3)])  # spec.bogus: unknown field


@pytest.mark.xfail(
    strict=True,
    reason="U+2028 inside a comment (legal YAML 1.2) is taken as a "
    "line break by ruamel's reader: the file is refused (GL002 'could not find "
    "expected :') and every later position is one line too far (line 9 of an "
    "8-line file)",
)
def test_line_separator_in_a_comment_is_not_a_line_break() -> None:
    code, found, _, _ = findings(
        "--select", INPUT_RULES, str(HOSTILE / "line-separator-in-comment.yaml")
    )
    assert (code, found) == (1, [("GL001", 8)])


def test_colon_inside_a_plain_scalar_in_flow_style_is_read() -> None:
    code, found, _, _ = findings(
        "--select", INPUT_RULES, str(REGRESSIONS / "bedrock-model-id-in-flow-mapping.yaml")
    )
    assert (code, found) == (0, [])


def test_merge_key_with_non_mappings_is_reported_at_the_merge() -> None:
    code, found, _, _ = findings("--select", "GL002", str(HOSTILE / "merge-key-abuse.yaml"))
    assert (code, found) == (1, [("GL002", 5), ("GL002", 6)])  # <<: *b (a sequence), <<: [1]


def test_unicode_everywhere_is_data_but_not_a_name(tmp_path: Path) -> None:
    code, found, report, _ = findings(str(HOSTILE / "unicode-everywhere.yaml"))
    assert (code, found) == (1, [("GL001", 4)])  # a bidi override and an emoji in metadata.name
    assert report[0]["message"].startswith("metadata.name: String should match pattern")
    plain = tmp_path / "plain-name.yaml"
    text = (HOSTILE / "unicode-everywhere.yaml").read_text(encoding="utf-8")
    plain.write_text(text.replace('"\u202eevil\U0001f600"', "evil"), encoding="utf-8")
    # 'H100\u200b' (a zero-width space) is not a catalogued GPU; the rest is data
    # (GL201 speaks to idle-prone serving only: a plain inference workload is not)
    assert findings(str(plain))[:2] == (0, [("GL406", 8), ("GL007", 9)])


# -- tags never construct objects -------------------------------------------------------------

TAGS = [
    "!!python/object/apply:os.system ['touch {target}']",
    "!!python/object/apply:subprocess.check_call [['touch', '{target}']]",
    "!!python/object/new:subprocess.Popen [['touch', '{target}']]",
    "!!python/name:os.system",
    "!!python/module:os",
    "!ruby/object:Gem::Installer {{i: x}}",
    "!<tag:yaml.org,2002:python/object/apply:os.system> ['touch {target}']",
]


@pytest.mark.parametrize("tag", TAGS)
def test_python_tags_construct_nothing(
    tag: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "pwned"
    monkeypatch.chdir(tmp_path)
    manifest = tmp_path / "job.yaml"
    manifest.write_text(HEADER.replace("name: chat", "name: " + tag.format(target=target)))
    code, found, _, _ = findings("--select", INPUT_RULES, str(manifest))
    assert not target.exists()
    assert (code, found) == (1, [("GL001", 4)])
    # the committed corpus file uses a relative target: run from tmp_path, nothing appears there
    findings(str(HOSTILE / "python-tags.yaml"))
    assert not (tmp_path / "gpulint-pwned").exists()


# -- size limits ------------------------------------------------------------------------------


def _sparse(path: Path, size: int, head: bytes = b"") -> Path:
    with path.open("wb") as handle:
        handle.write(head)
        handle.truncate(size)
    return path


def test_50_mb_file_is_refused_with_gl002(tmp_path: Path) -> None:
    big = _sparse(tmp_path / "big.yaml", 50 * MB, HEADER.encode())
    code, found, report, _ = findings(str(big))
    assert (code, found) == (1, [("GL002", 1)])
    assert report[0]["column"] == 1
    assert report[0]["message"] == (
        f"file is {50 * MB:,} bytes, above the {DEFAULT_LIMIT:,}-byte limit "
        "(raise maxFileSize in .gpulint.yaml); not read"
    )
    # in a directory too, and without our marker (the size is checked before anything is read)
    _sparse(tmp_path / "other.yaml", 50 * MB)
    code, found, _, _ = findings(str(tmp_path))
    assert (code, found) == (1, [("GL002", 1), ("GL002", 1)])


def _config(tmp_path: Path, text: str) -> Path:
    config = tmp_path / ".gpulint.yaml"
    config.write_text(text)
    return config


def test_max_file_size_config_lowers_and_raises_the_limit(tmp_path: Path) -> None:
    small = tmp_path / "small.yaml"
    small.write_text(HEADER)
    config = _config(tmp_path, "maxFileSize: 50\n")
    code, found, report, _ = findings("--config", str(config), str(small))
    assert (code, found) == (1, [("GL002", 1)])
    assert report[0]["message"] == (
        f"file is {len(HEADER):,} bytes, above the 50-byte limit "
        "(raise maxFileSize in .gpulint.yaml); not read"
    )
    # raised above 50 MB: a 50 MB file is read (ours: parsed; foreign: one read, then skipped)
    big = _sparse(tmp_path / "big.yaml", 50 * MB)
    config = _config(tmp_path, f"maxFileSize: {64 * MB}\n")
    code, found, _, err = findings("--config", str(config), str(big))
    assert (code, found) == (0, [])
    assert err == f"gpulint: skipped {big}: no document of a format gpulint reads\n"
    assert findings("--config", str(config), str(small))[:2] == (0, [])


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("0", "maxFileSize: Input should be greater than or equal to 1 (got 0)"),
        ("'10MB'", "maxFileSize: Input should be a valid integer (got '10MB')"),
        ("true", "maxFileSize: Input should be a valid integer (got True)"),
        ("-5", "maxFileSize: Input should be greater than or equal to 1 (got -5)"),
    ],
)
def test_bad_max_file_size_is_a_config_error(value: str, message: str, tmp_path: Path) -> None:
    config = _config(tmp_path, f"# limits\nmaxFileSize: {value}\n")
    result = run_cli("check", "--config", str(config), str(tmp_path))
    assert (result.code, result.err) == (2, f"gpulint: error: {config}:2:1: {message}\n")


# -- the file system --------------------------------------------------------------------------


def test_symlink_loops_and_dangling_links(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "job.yaml").write_text(HEADER + "  bogus: 1\n")
    os.symlink(tree, tree / "loop")  # a directory linked to itself: not followed
    os.symlink("..", tree / "up")
    os.symlink(tree / "missing.yaml", tree / "dangling.yaml")
    os.symlink("self.yaml", tree / "self.yaml")  # ELOOP
    code, _, report, _ = findings("--select", INPUT_RULES, str(tree))
    found = [(Path(f["file"]).name, f["ruleId"], f["line"], f["message"]) for f in report]
    assert code == 1
    assert found == [
        ("dangling.yaml", "GL002", 1, "cannot read file: No such file or directory"),
        ("job.yaml", "GL001", 7, "spec.bogus: unknown field"),
        ("self.yaml", "GL002", 1, "cannot read file: Too many levels of symbolic links"),
    ]
    # named directly, a dangling link is a finding too, not a usage error
    code, found, _, _ = findings(str(tree / "dangling.yaml"))
    assert (code, found) == (1, [("GL002", 1)])
    # a loop named on the command line is walked once
    code, found, _, _ = findings("--select", INPUT_RULES, str(tree / "loop"))
    assert (code, found) == (1, [("GL002", 1), ("GL001", 7), ("GL002", 1)])


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a chmod 000 file")
def test_unreadable_file(tmp_path: Path) -> None:
    locked = tmp_path / "locked.yaml"
    locked.write_text(HEADER)
    locked.chmod(0)
    try:
        code, found, report, _ = findings(str(tmp_path))
    finally:
        locked.chmod(0o644)
    assert (code, found) == (1, [("GL002", 1)])
    assert report[0]["message"] == "cannot read file: Permission denied"


def _cli_subprocess(
    args: list[str], timeout: float, cwd: Path
) -> subprocess.CompletedProcess[str] | None:
    env = {**os.environ, "GPULINT_NO_CACHE": "1", "PYTHONPATH": str(REPO)}
    try:
        return subprocess.run(
            [sys.executable, "-m", "linter", "check", "--format", "json", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=cwd,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None


@pytest.mark.parametrize("named", [False, True], ids=["in-directory", "named"])
def test_fifo_does_not_hang_the_run(named: bool, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    os.mkfifo(tree / "pipe.yaml")
    (tree / "job.yaml").write_text(HEADER)
    proc = _cli_subprocess([str(tree / "pipe.yaml") if named else str(tree)], 6, tmp_path)
    assert proc is not None, "gpulint check did not finish in 6 s"
    assert (proc.returncode, proc.stderr) == (1, "")
    report = json.loads(proc.stdout)["findings"]
    assert [(Path(f["file"]).name, f["ruleId"], f["line"]) for f in report] == [
        ("pipe.yaml", "GL002", 1)
    ]


# -- model.config may not leave the repository -------------------------------------------------

INFERENCE = """\
apiVersion: gpulint.dev/v1alpha1
kind: Workload
metadata:
  name: chat
spec:
  profile: inference
  model:
    config: {config}
  resources:
    accelerator: {{type: L4, count: 1}}
  lifecycle: {{scaleToZero: true}}
"""


class _OpenSpy:
    """Records every path opened through the usual Python entry points."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.opened: list[str] = []
        real_open, real_io_open, real_os_open = builtins.open, io.open, os.open
        lock = threading.Lock()

        def note(path: Any) -> None:
            if isinstance(path, (str, bytes, os.PathLike)):
                with lock:
                    self.opened.append(os.path.realpath(os.fsdecode(path)))

        def spy_open(file: Any, *args: Any, **kwargs: Any) -> Any:
            note(file)
            return real_open(file, *args, **kwargs)

        def spy_io_open(file: Any, *args: Any, **kwargs: Any) -> Any:
            note(file)
            return real_io_open(file, *args, **kwargs)

        def spy_os_open(path: Any, *args: Any, **kwargs: Any) -> Any:
            note(path)
            return real_os_open(path, *args, **kwargs)

        monkeypatch.setattr(builtins, "open", spy_open)
        monkeypatch.setattr(io, "open", spy_io_open)
        monkeypatch.setattr(os, "open", spy_os_open)
        monkeypatch.setattr(pathlib.Path, "open", lambda self, *a, **k: spy_io_open(self, *a, **k))


@pytest.fixture
def outside_layout(tmp_path: Path) -> tuple[Path, Path]:
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    (repo / ".git").mkdir(parents=True)
    (repo / "models").mkdir()
    outside.mkdir()
    config = {
        "model_type": "llama",
        "hidden_size": 4096,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "intermediate_size": 14336,
        "vocab_size": 128256,
    }
    (outside / "config.json").write_text(json.dumps(config))
    os.symlink(outside / "config.json", repo / "models" / "link.json")
    (repo / "models" / "inside.json").write_text(json.dumps(config))
    return repo, outside


@pytest.mark.parametrize(
    "reference",
    [
        "../outside/config.json",
        "{outside}/config.json",
        "/proc/self/environ",
        "/etc/passwd",
        "models/link.json",
        "models/../../outside/config.json",
    ],
)
def test_model_config_outside_the_repository_is_not_read(
    reference: str, outside_layout: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, outside = outside_layout
    reference = reference.format(outside=outside)
    manifest = repo / "job.yaml"
    manifest.write_text(INFERENCE.format(config=reference))
    spy = _OpenSpy(monkeypatch)
    code, found, report, _ = findings("--select", "GL003", str(manifest))
    monkeypatch.undo()
    assert (code, found) == (0, [("GL003", 8)])
    message = report[0]["message"]
    assert f"model.config {reference!r} points outside the repository" in message
    assert "not read" in message
    forbidden = (str(outside), "/proc", "/etc/passwd")
    assert not [p for p in spy.opened if p.startswith(forbidden)], spy.opened


def test_model_config_inside_the_repository_is_read(
    outside_layout: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The control case: the spy does see the config when it may be read."""
    repo, _ = outside_layout
    manifest = repo / "job.yaml"
    manifest.write_text(INFERENCE.format(config="models/inside.json"))
    spy = _OpenSpy(monkeypatch)
    code, found, _, _ = findings("--select", "GL003", str(manifest))
    monkeypatch.undo()
    assert (code, found) == (0, [])
    assert str((repo / "models" / "inside.json").resolve()) in spy.opened


def test_model_config_fifo_outside_the_repository_is_not_opened(
    outside_layout: tuple[Path, Path],
) -> None:
    """Opening a FIFO blocks: a run that finishes never opened it."""
    repo, outside = outside_layout
    os.mkfifo(outside / "pipe.json")
    manifest = repo / "job.yaml"
    manifest.write_text(INFERENCE.format(config="../outside/pipe.json"))
    proc = _cli_subprocess(["--select", "GL003", str(manifest)], 20, repo)
    assert proc is not None, "the run blocked: it opened the FIFO outside the repository"
    assert proc.returncode == 0
    assert [(f["ruleId"], f["line"]) for f in json.loads(proc.stdout)["findings"]] == [("GL003", 8)]


# -- many files -------------------------------------------------------------------------------


def test_a_thousand_unrelated_yaml_files(tmp_path: Path) -> None:
    for index in range(1000):
        folder = tmp_path / f"chart{index % 10}" / "templates"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"deploy{index}.yaml").write_text(
            f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app{index}\n"
            "spec:\n  replicas: 3\n  template: {spec: {containers: [{image: nginx}]}}\n"
        )
    result = run_cli("check", "--format", "json", str(tmp_path))
    assert (result.code, result.err) == (0, "")
    report = json.loads(result.out)
    assert report["findings"] == []
    assert report["summary"]["filesChecked"] == 0


# -- the fuzzer, bounded, as a CI test --------------------------------------------------------

FUZZ_SEED = 20241202


def test_fuzz_pipeline_with_fixed_seeded_cases(tmp_path: Path) -> None:
    """tests/security/fuzz_pipeline.py: 60 seeded cases (manifests, configuration files, rule files,
    baselines); a crashing input is saved under tmp_path and named in the failure."""
    stats = fuzz(FUZZ_SEED, cases=60, out=tmp_path)
    assert (stats.cases, stats.crashes) == (60, [])


@pytest.mark.slow
def test_fuzz_pipeline_long(tmp_path: Path) -> None:
    """The same, at length: ``pytest -m slow`` (GPULINT_FUZZ_CASES sets the number)."""
    cases = int(os.environ.get("GPULINT_FUZZ_CASES", "2000"))
    stats = fuzz(FUZZ_SEED + 1, cases=cases, out=tmp_path)
    assert (stats.cases, stats.crashes) == (cases, [])
