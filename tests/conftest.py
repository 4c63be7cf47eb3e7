"""Shared helpers: lint text or files through the real pipeline, run the CLI in-process."""

from __future__ import annotations

import gc
import io
import itertools
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import is_hypothesis_test

from linter.bundled import bundled
from linter.cli import main
from linter.config import LoadedConfig, load_config
from linter.policy.loader import Rulebook, load_rulebook
from linter.policy.selection import Selection
from linter.run import garbage_collection
from linter.run.runner import RunResult, lint_paths

REPO = Path(__file__).resolve().parent.parent

#: An organisation rule file to fill in (``number``, ``name``, ``extra`` lines, ``violation``,
#: ``path``, ``message``), for tests of the engine on rules of their own.
ORG_RULE = """\
id: ACME{number}
name: {name}
severity: warning
summary: test rule
scope: {{kinds: [Workload]}}
{extra}
checks:
  - violation: '{violation}'
    path: '{path}'
    message: '{message}'
docs:
  whatItDoes: x
  whyIsThisBad: x
  example: "x: 1"
  useInstead: "x: 1"
"""


@pytest.fixture(autouse=True)
def no_result_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test lints afresh; tests/run/test_result_cache.py turns the cache on where it is the subject."""
    monkeypatch.setenv("GPULINT_NO_CACHE", "1")


@pytest.fixture(autouse=True)
def no_hugging_face_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees the machine's own Hugging Face cache (linter/catalog/hf_cache.py); the tests
    of that reader give it a folder of their own."""
    monkeypatch.setenv("HF_HUB_CACHE", os.devnull)


#: Tests between full collections (see ``collector_as_found``).
COLLECT_EVERY = 100
_tests_run = itertools.count(1)


@pytest.fixture(autouse=True)
def collector_as_found() -> Iterator[None]:
    """The CLI freezes what start-up made (linter/run/garbage_collection.py), for a process that ends soon;
    the tests run thousands of commands in one, so each test's objects are let go after it.
    Objects let go join the oldest generation without counting towards its next collection,
    so every hundred tests one is run: without it the suite's peak went from 450 MB to 950."""
    yield
    gc.unfreeze()
    gc.set_threshold(*garbage_collection.DEFAULT_THRESHOLD)
    if next(_tests_run) % COLLECT_EVERY == 0:
        gc.collect()


@pytest.fixture(scope="session")
def rulebook() -> Rulebook:
    return load_rulebook([bundled("rules")])


def lint(
    paths: Sequence[Path | str],
    rulebook: Rulebook,
    select: Sequence[str] = (),
    config: LoadedConfig | None = None,
    root: Path | None = None,
) -> RunResult:
    config = config or load_config(None)
    return lint_paths([str(p) for p in paths], rulebook, config, Selection(config, select), root)


@dataclass
class CliResult:
    code: int
    out: str
    err: str


def imported_by_check(args: Sequence[str], cwd: Path, cache: Path, prefixes: Sequence[str]) -> str:
    """``"<exit code> [<modules>]"``: what ``gpulint check ARGS`` run in a fresh interpreter in
    ``cwd``, with its caches in ``cache``, returns and which modules starting with ``prefixes``
    it imported. Tests of what a run must not need to import."""
    probe = (
        "import contextlib, io, sys\n"
        "from linter.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main(['check', *{list(args)!r}])\n"
        f"print(code, sorted(m for m in sys.modules if m.startswith({tuple(prefixes)!r})))\n"
    )
    environment = {**os.environ, "GPULINT_CACHE_DIR": str(cache)}
    environment.pop("GPULINT_NO_CACHE", None)
    run = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    return run.stdout


def run_cli(*args: str) -> CliResult:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))
    return CliResult(code, out.getvalue(), err.getvalue())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every property test (hypothesis: hundreds of generated inputs each) is marked
    ``property``: ``pytest`` leaves them out (pyproject's addopts) and CI runs them as a step of
    their own with ``pytest -m property``."""
    for item in items:
        if isinstance(item, pytest.Function) and is_hypothesis_test(item.obj):
            item.add_marker(pytest.mark.property)


def document_paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into a document (its keys and list items, at every depth), the root's not."""
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            out += document_paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += document_paths(item, (*prefix, index))
    return out


def parent_of(document: Any, path: tuple[Any, ...]) -> Any:
    """The mapping or list that holds the value at ``path``."""
    for part in path[:-1]:
        document = document[part]
    return document
