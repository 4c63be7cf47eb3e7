"""Fuzz the loader and the whole lint pipeline with mutated manifests, configuration files, rule
files and baselines: everything a repository under review can hand gpulint.

Standalone (a number of cases and/or a time bound; crashing inputs are written to a new temporary
folder, or ``--out DIR``, and the exit status is 1)::

    python tests/security/fuzz_pipeline.py --cases 2000 [--seconds 600] [--seed N] [--out DIR]

Commit a crashing input you want to keep as a test case to tests/hostile/regressions/ yourself.

A "crash" is any broken invariant of a lint run on a file we wrote ourselves:

* an exception escapes ``linter.cli.main``, or it exits with anything but 0 or 1, or writes
  "internal error" / a traceback to stderr;
* a finding has a rule id that is not ``^[A-Z]+[0-9]{3}$``, names a file that was not linted, or
  has a position outside the file (line 1..lines+1, column >= 1, end not before start);
* the JSON report is not valid JSON, the SARIF report does not validate against the OASIS 2.1.0
  schema, or the same input gives different output on a second run;
* one input takes longer than ``--case-timeout`` seconds (a hang);
* for a mutated configuration, rule file or baseline (which may be refused, exit 2): a refusal
  that is not exactly one ``gpulint: error:`` line, or a raw control character on stdout or
  stderr (linter/printable.py escapes them).

The invariant checker (:func:`check`) is shared by tests/security/test_robustness.py and
tests/security/test_hostile_inputs.py; tests/security/test_hostile_inputs.py also runs every file in
tests/hostile/regressions/ so that a crash once found stays a test case, and runs this fuzzer for a
fixed number of seeded cases.
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import hashlib
import json
import os
import random
import re
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from conftest import CliResult, run_cli

from linter.load import decode

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
if str(REPO) not in sys.path:  # standalone: python tests/security/fuzz_pipeline.py
    sys.path.insert(0, str(REPO))

HOSTILE = TESTS / "hostile"
REGRESSIONS = HOSTILE / "regressions"
SARIF_SCHEMA = TESTS / "data" / "sarif-schema-2.1.0.json"
RULE_ID = re.compile(r"^[A-Z]+[0-9]{3}$")
MARKER = "apiVersion: gpulint.dev/v1alpha1\n"
# Every sequence a YAML reader (ruamel: YAML 1.1 breaks too) or str.splitlines() treats as a line
# break; a position is inside the file when its line is at most the larger of the two counts.
_YAML_BREAKS = re.compile(r"\r\n|[\r\n\x85\u2028\u2029]")


# -- running the CLI --------------------------------------------------------------------------


class InvariantError(AssertionError):
    """A lint run broke one of the invariants above."""


def _fail(message: str, result: CliResult | None = None) -> None:
    if result is not None:
        message += f"\n--- exit {result.code}\n--- stderr:\n{result.err[-2000:]}\n--- stdout:\n{result.out[:2000]}"
    raise InvariantError(message)


# -- invariants -------------------------------------------------------------------------------


def decode_for_lines(raw: bytes) -> str:
    text, _ = decode(raw)  # as the loader decodes; undecodable bytes count as UTF-8 with U+FFFD
    return text if text is not None else raw.decode("utf-8", errors="replace")


def line_count(raw: bytes) -> int:
    """Lines of a file, counted the generous way (see ``_YAML_BREAKS``)."""
    text = decode_for_lines(raw)
    return max(len(_YAML_BREAKS.split(text)), len(text.splitlines()), 1)


@lru_cache(maxsize=1)
def _sarif_validator() -> Any:
    import jsonschema

    return jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text(encoding="utf-8")))


def _file_of(display: str) -> Path:
    path = Path(display)
    return path if path.is_absolute() else Path.cwd() / path


def check_positions(findings: Sequence[dict[str, Any]], linted: set[Path]) -> None:
    """Rule ids and positions of a JSON report's findings (and their related locations)."""
    lines: dict[Path, int] = {}
    for finding in findings:
        rule_id = finding.get("ruleId")
        if not isinstance(rule_id, str) or not RULE_ID.match(rule_id):
            _fail(f"finding with a bad rule id: {finding}")
        for where in (finding, *finding.get("related", [])):
            file = where.get("file")
            if not isinstance(file, str) or not file:
                _fail(f"finding without a file: {finding}")
            path = _file_of(file)
            if linted and path.resolve() not in linted and path not in linted:
                _fail(f"finding in a file that was not linted ({file}): {finding}")
            line, column = where.get("line"), where.get("column")
            end_line, end_column = where.get("endLine"), where.get("endColumn")
            if not all(isinstance(v, int) for v in (line, column, end_line, end_column)):
                _fail(f"finding without a position: {finding}")
            if path not in lines:
                try:
                    lines[path] = line_count(path.read_bytes()) if path.is_file() else 1
                except OSError:
                    lines[path] = 1
            if not 1 <= line <= lines[path] + 1:
                _fail(f"line {line} outside the file ({lines[path]} lines): {finding}")
            if column < 1:
                _fail(f"column {column} < 1: {finding}")
            if (end_line, end_column) < (line, column):
                _fail(f"span ends before it starts: {finding}")


def check_sarif(text: str) -> dict[str, Any]:
    document = json.loads(text)
    errors = sorted(_sarif_validator().iter_errors(document), key=lambda e: list(e.path))
    if errors:
        _fail(f"SARIF does not validate: {errors[0].message} at {list(errors[0].path)}")
    for run in document["runs"]:
        for result in run.get("results", []):
            if not RULE_ID.match(result.get("ruleId", "")):
                _fail(f"SARIF result with a bad rule id: {result}")
            for location in result.get("locations", []):
                region = location.get("physicalLocation", {}).get("region", {})
                if region.get("startLine", 0) < 1 or region.get("startColumn", 1) < 1:
                    _fail(f"SARIF result without a position: {result}")
    return document  # type: ignore[no-any-return]


def lint_ok(*args: str) -> CliResult:
    """``gpulint check ARGS``: exit 0 or 1, no internal error, no traceback."""
    result = run_cli("check", *args)
    if result.code not in (0, 1):
        _fail(f"exit code {result.code} for {args}", result)
    if "internal error" in result.err or "Traceback" in result.err:
        _fail(f"internal error for {args}", result)
    return result


RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")  # C0 but line feed, DEL, C1


def check_refusable(args: Sequence[str], linted: Sequence[Path]) -> CliResult:
    """``gpulint check --format json ARGS`` where ARGS name a mutated configuration, rule file or
    baseline: it may be refused (exit 2, one ``gpulint: error:`` line), never crash; a run that
    goes ahead keeps every invariant of :func:`check`; nothing printed holds a raw control
    character."""
    result = run_cli("check", "--format", "json", "--jobs", "1", *args)
    if "internal error" in result.err or "Traceback" in result.err:
        _fail(f"internal error for {args}", result)
    if RAW_CONTROL.search(result.err):
        _fail(f"a raw control character on stderr for {args}", result)
    if result.code == 2:
        lines = result.err.splitlines()
        if result.out or len(lines) != 1 or not lines[0].startswith("gpulint: error: "):
            _fail(f"a refusal that is not one error line for {args}", result)
        return result
    if result.code not in (0, 1):
        _fail(f"exit code {result.code} for {args}", result)
    try:
        report = json.loads(result.out)
    except ValueError:
        _fail("the JSON report is not JSON", result)
    check_positions(report["findings"], _linted(linted))
    return result


def check(
    paths: Sequence[Path],
    *,
    sarif: bool = True,
    twice: bool = True,
    jobs: bool = False,
    extra: Sequence[str] = (),
) -> dict[str, Any]:
    """Lint ``paths`` and assert every invariant; returns the JSON report."""
    args = [*extra, *(str(p) for p in paths)]
    linted = _linted(paths)
    first = lint_ok("--format", "json", "--jobs", "1", *args)
    try:
        report = json.loads(first.out)
    except ValueError:
        _fail("the JSON report is not JSON", first)
    check_positions(report["findings"], linted)
    if twice:
        again = lint_ok("--format", "json", "--jobs", "1", *args)
        if (again.code, again.out, again.err) != (first.code, first.out, first.err):
            _fail("a second run of the same input gave different output", again)
    if jobs:
        parallel = lint_ok("--format", "json", "--jobs", "2", *args)
        if (parallel.code, parallel.out) != (first.code, first.out):
            _fail("--jobs 2 gave different output from --jobs 1", parallel)
    if sarif:
        out = lint_ok("--format", "sarif", "--jobs", "1", *args)
        if out.code != first.code:
            _fail("--format sarif gave another exit code than --format json", out)
        check_sarif(out.out)
        if twice:
            repeat = lint_ok("--format", "sarif", "--jobs", "1", *args)
            if repeat.out != out.out:
                _fail("a second SARIF run of the same input gave different output", repeat)
    return report  # type: ignore[no-any-return]


def _linted(paths: Sequence[Path]) -> set[Path]:
    out: set[Path] = set()
    for path in paths:
        if path.is_dir():
            out |= {Path(d, f) for d, _, files in os.walk(path) for f in files}
            out |= {p.resolve() for p in list(out)}
        out |= {path, Path(os.path.abspath(path))}
    return out


# -- mutation ---------------------------------------------------------------------------------

YAML_TOKENS = (
    "&a ",
    "*a",
    "&a [*a]",
    "<<: *a\n",
    "!!python/object/apply:os.system ['true']",
    "!!binary ",
    "!!str ",
    "!!int ",
    "!!float ",
    "!!map ",
    "!!seq ",
    "!!set ",
    "!!omap ",
    "!local ",
    "!<tag:x> ",
    "? ",
    ": ",
    "- ",
    "---\n",
    "...\n",
    "%YAML 1.1\n---\n",
    "%TAG ! tag:x,2000:\n---\n",
    "|\n",
    ">-\n",
    "|+2\n",
    "[",
    "]",
    "{",
    "}",
    ",",
    "'",
    '"',
    "#",
    "\t",
    "\r",
    "\r\n",
    "\x00",
    "\ufeff",
    "\u2028",
    "\u2029",
    "\x85",
    "\x0c",
    "\x1b[31m",
    "~",
    "null",
    ".nan",
    "-.inf",
    "1e400",
    "0x_",
    "0o8",
    "9" * 400,
    "-" + "9" * 40,
    "true",
    "yes",
    "on",
    "'unterminated",
    '"\\x',
    '"\\uD800"',
    "\U0001f600",
    "\u202e",
    "a" * 300,
    "{a: [b, {c: d}]}",
    "[[[[[[[[[[",
    "@",
    "`",
    "&",
    "*",
    "!",
    "|",
    ">",
    "%",
    "gpulint.dev",
    "apiVersion: gpulint.dev/v1alpha1",
    "kind: Workload",
    "kind: QuotaLedger",
    "# gpulint: ignore[GL202] reason",
    "# gpulint: ignore[] ",
    "# gpulint: ignore[XX999]",
    "# gpulint: ignore[GL001",
    "$(touch x)",
)
INTERESTING_VALUES = (
    "",
    "~",
    "0",
    "-1",
    "1.5",
    "1e308",
    "1e400",
    "-0",
    ".inf",
    ".nan",
    "true",
    "null",
    "[]",
    "{}",
    "[1, 2]",
    "{a: 1}",
    "''",
    "'x'",
    '"\\u0000"',
    "70B",
    "1.5T",
    "0B",
    "-7B",
    "H100-80GB",
    "L4",
    "A100-80GB",
    "T4",
    "p4d.24xlarge",
    "g6e.xlarge",
    "spot",
    "on-demand",
    "fp8",
    "int4",
    "meta-llama/Llama-3.1-8B-Instruct",
    "../../../etc/passwd",
    "/proc/self/environ",
    "*a",
    "&a x",
    "!!python/object/apply:os.system ['true']",
    "9" * 500,
    "\U0001f600" * 3,
    "a\u2028b",
)


def _files(*tops: Path, pattern: str = "*") -> list[bytes]:
    out: list[bytes] = []
    for top in tops:
        for path in sorted(top.rglob(pattern)):
            if (
                path.is_file()
                and not path.is_symlink()
                and path.stat().st_size <= 256 * 1024
                and path.suffix.lower() in (".yaml", ".yml", ".json")
            ):
                out.append(path.read_bytes())
    return out


def seeds() -> list[bytes]:
    """The manifests the mutator starts from: tests/hostile (regressions included), examples/ and
    the compliant manifests."""
    out = _files(HOSTILE, REPO / "examples", TESTS / "compliant")
    return out or [MARKER.encode() + b"kind: Workload\n"]


FUZZ_SEEDS = TESTS / "data" / "fuzz-seeds"
# What a mutated case is given to gpulint as, and the seeds of each: a repository can hand it a
# manifest, a configuration file, an organisation rule file or a baseline.
TARGETS = ("manifest", "manifest", "manifest", "manifest", "config", "rule", "baseline")


def target_seeds() -> dict[str, list[bytes]]:
    return {
        "manifest": seeds(),
        "config": _files(FUZZ_SEEDS, REPO / "linter" / "templates", pattern="config*.yaml"),
        "rule": _files(REPO / "rules"),
        "baseline": _files(FUZZ_SEEDS, pattern="baseline*.json"),
    }


def _line_starts(data: bytes) -> list[int]:
    return [0, *(i + 1 for i, b in enumerate(data) if b == 0x0A)]


def mutate(data: bytes, rng: random.Random, corpus: Sequence[bytes]) -> bytes:
    """One to four random edits, structure-aware where it is cheap to be."""
    for _ in range(rng.randint(1, 4)):
        data = rng.choice(_MUTATORS)(data, rng, corpus)
        if len(data) > 2_000_000:
            data = data[:2_000_000]
    return data


def _flip(data: bytes, rng: random.Random, _: Sequence[bytes]) -> bytes:
    if not data:
        return bytes([rng.randrange(256)])
    i = rng.randrange(len(data))
    return data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1 :]


def _insert_bytes(data: bytes, rng: random.Random, _: Sequence[bytes]) -> bytes:
    i = rng.randint(0, len(data))
    return data[:i] + rng.randbytes(rng.randint(1, 16)) + data[i:]


def _insert_token(data: bytes, rng: random.Random, _: Sequence[bytes]) -> bytes:
    token = rng.choice(YAML_TOKENS).encode("utf-8")
    i = rng.choice(_line_starts(data)) if rng.random() < 0.6 else rng.randint(0, len(data))
    return data[:i] + token + data[i:]


def _replace_value(data: bytes, rng: random.Random, _: Sequence[bytes]) -> bytes:
    lines = data.split(b"\n")
    candidates = [n for n, line in enumerate(lines) if b": " in line]
    if not candidates:
        return data
    n = rng.choice(candidates)
    key, _, _ = lines[n].partition(b": ")
    lines[n] = key + b": " + rng.choice(INTERESTING_VALUES).encode("utf-8")
    return b"\n".join(lines)


def _delete_lines(data: bytes, rng: random.Random, _: Sequence[bytes]) -> bytes:
    lines = data.split(b"\n")
    if len(lines) < 2:
        return data
    i = rng.randrange(len(lines))
    del lines[i : i + rng.randint(1, 3)]
    return b"\n".join(lines)


def _duplicate_lines(data: bytes, rng: random.Random, _: Sequence[bytes]) -> bytes:
    lines = data.split(b"\n")
    i = rng.randrange(len(lines))
    chunk = lines[i : i + rng.randint(1, 4)]
    j = rng.randrange(len(lines) + 1)
    return b"\n".join(lines[:j] + chunk + lines[j:])


def _reindent(data: bytes, rng: random.Random, _: Sequence[bytes]) -> bytes:
    lines = data.split(b"\n")
    i = rng.randrange(len(lines))
    if rng.random() < 0.5:
        lines[i] = b" " * rng.randint(1, 6) + lines[i]
    else:
        lines[i] = lines[i].lstrip(b" ")
    return b"\n".join(lines)


def _splice(data: bytes, rng: random.Random, corpus: Sequence[bytes]) -> bytes:
    other = rng.choice(corpus)
    a, b = sorted(rng.randint(0, len(other)) for _ in range(2))
    i = rng.randint(0, len(data))
    return data[:i] + other[a:b] + data[i:]


def _truncate(data: bytes, rng: random.Random, _: Sequence[bytes]) -> bytes:
    return data[: rng.randint(0, len(data))]


def _deepen(data: bytes, rng: random.Random, _: Sequence[bytes]) -> bytes:
    depth = rng.choice((50, 199, 200, 201, 1000, 20_000))
    kind = rng.randrange(3)
    if kind == 0:
        nested = "[" * depth + "]" * depth
    elif kind == 1:
        nested = "{a: " * depth + "1" + "}" * depth
    else:
        nested = "\n" + "- " * depth + "x"
    return data + f"\nx{rng.randrange(99)}: {nested}\n".encode()


def _aliases(data: bytes, rng: random.Random, _: Sequence[bytes]) -> bytes:
    width, depth = rng.randint(2, 12), rng.randint(2, 9)
    lines = [f"b0: &b0 [{', '.join(['x'] * width)}]"]
    for n in range(1, depth):
        lines.append(f"b{n}: &b{n} [{', '.join([f'*b{n - 1}'] * width)}]")
    return data + ("\n" + "\n".join(lines) + "\n").encode()


def _encoding(data: bytes, rng: random.Random, _: Sequence[bytes]) -> bytes:
    choice = rng.randrange(5)
    text = data.decode("utf-8", errors="replace")
    if choice == 0:
        return codecs.BOM_UTF8 + data
    if choice == 1:
        return codecs.BOM_UTF16_LE + text.encode("utf-16-le")
    if choice == 2:
        return codecs.BOM_UTF32_BE + text.encode("utf-32-be")
    if choice == 3:
        return data.replace(b"\n", b"\r\n")
    return data.replace(b"\n", b"\r")


def _ensure_marker(data: bytes, rng: random.Random, _: Sequence[bytes]) -> bytes:
    return MARKER.encode() + data if b"gpulint.dev" not in data else data


_MUTATORS = (
    _flip,
    _insert_bytes,
    _insert_token,
    _insert_token,
    _replace_value,
    _replace_value,
    _delete_lines,
    _duplicate_lines,
    _reindent,
    _splice,
    _truncate,
    _deepen,
    _aliases,
    _encoding,
    _ensure_marker,
)


# -- the loop ---------------------------------------------------------------------------------

# Crashes already reported and pinned by strict-xfail tests (tests/security/test_hostile_inputs.py, files in
# tests/hostile/regressions/). The fuzzer counts a failure matching one of these as known, not new;
# delete the entry when the bug is fixed (the xfail test then fails until its marker goes too).
KNOWN_CRASHES: dict[str, str] = {}  # pattern -> reason, for crashes not fixed yet


def known_crash(why: str) -> str | None:
    for pattern, reason in KNOWN_CRASHES.items():
        if re.search(pattern, why):
            return reason
    return None


class Hang(BaseException):
    """One input ran past its time (BaseException: the CLI's catch-all must not swallow it)."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    if seconds <= 0 or not hasattr(signal, "setitimer"):
        yield
        return

    def alarm(signum: int, frame: Any) -> None:
        raise Hang(f"no result after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass
class FuzzStats:
    out: Path  # where crashing inputs are saved
    cases: int = 0
    findings: int = 0
    refused: int = 0  # configuration, rule files and baselines refused with exit 2
    crashes: list[Path] = field(default_factory=list)
    known: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def save_crash(data: bytes, suffix: str, out: Path, why: str) -> Path:
    """Write a crashing input (and why, beside it) to ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    name = f"crash-{hashlib.sha256(data).hexdigest()[:16]}{suffix}"
    target = out / name
    target.write_bytes(data)
    (out / f"{name}.txt").write_text(why[-8000:], encoding="utf-8")
    return target


def run_one(data: bytes, suffix: str, work: Path, *, sarif: bool, timeout: float) -> int:
    """Lint one manifest with every invariant; returns its number of findings or raises."""
    case = work / f"case{suffix}"
    case.write_bytes(data)
    with time_limit(timeout):
        report = check([case], sarif=sarif, twice=sarif)
    return len(report["findings"])


def run_setup_case(target: str, data: bytes, work: Path, manifest: bytes, timeout: float) -> int:
    """Lint a fixed manifest with a mutated configuration, rule file or baseline; returns the
    exit code (2 when the input was refused) or raises."""
    job = work / "job.yaml"
    job.write_bytes(manifest)
    rules = work / "rules"
    rules.mkdir(exist_ok=True)
    for old in rules.iterdir():
        old.unlink()
    if target == "config":
        (work / "config.yaml").write_bytes(data)
        args = ["--config", str(work / "config.yaml")]
    elif target == "rule":
        (rules / "ACME001.yaml").write_bytes(data)
        args = ["--rules-dir", str(rules)]
    else:
        (work / "baseline.json").write_bytes(data)
        args = ["--baseline", str(work / "baseline.json")]
    with time_limit(timeout):
        return check_refusable([*args, str(job)], [job]).code


def fuzz(
    seed: int,
    cases: int | None = None,
    seconds: float | None = None,
    out: Path | None = None,
    case_timeout: float = 20.0,
    log: Any = None,
    count_known: bool = False,
) -> FuzzStats:
    """Mutate the seeds for ``cases`` inputs and/or ``seconds``; every failing input is saved
    under ``out`` (a new temporary folder when not given; see ``FuzzStats.out``)."""
    if cases is None and seconds is None:
        raise ValueError("give fuzz() a number of cases, a time bound, or both")
    rng = random.Random(seed)
    corpora = target_seeds()
    manifest = corpora["manifest"][0]
    stats = FuzzStats(out=out or Path(tempfile.mkdtemp(prefix="gpulint-fuzz-crashes-")))
    started = time.monotonic()
    os.environ["GPULINT_NO_CACHE"] = "1"
    with tempfile.TemporaryDirectory(prefix="gpulint-fuzz-") as tmp:
        work = Path(tmp)
        while (cases is None or stats.cases < cases) and (
            seconds is None or time.monotonic() - started < seconds
        ):
            target = rng.choice(TARGETS)
            corpus = corpora[target]
            data = mutate(rng.choice(corpus), rng, corpus)
            suffix = ".json" if target == "baseline" or rng.random() < 0.1 else ".yaml"
            stats.cases += 1
            try:
                if target == "manifest":
                    sarif = stats.cases % 5 == 0
                    stats.findings += run_one(data, suffix, work, sarif=sarif, timeout=case_timeout)
                else:
                    code = run_setup_case(target, data, work, manifest, case_timeout)
                    stats.refused += int(code == 2)
            except (Exception, Hang, SystemExit) as err:
                why = "".join(traceback.format_exception(type(err), err, err.__traceback__))
                known = None if count_known else known_crash(why)
                if known is not None:
                    stats.known[known] = stats.known.get(known, 0) + 1
                    continue
                path = save_crash(data, f".{target}{suffix}", stats.out, why)
                stats.crashes.append(path)
                if log is not None:
                    print(
                        f"CRASH {path}: {type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}",
                        file=log,
                    )
                if len(data) < 4096:
                    corpus.append(data)  # keep digging near what broke
    stats.seconds = time.monotonic() - started
    return stats


def main(argv: Sequence[str] | None = None) -> int:
    os.environ["GPULINT_NO_CACHE"] = "1"  # what the tests' conftest does: lint afresh
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=None, help="how many inputs to try")
    parser.add_argument("--seconds", type=float, default=None, help="how long to fuzz at most")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: random)")
    parser.add_argument(
        "--out", type=Path, default=None, help="where crashing inputs go (default: a new temp dir)"
    )
    parser.add_argument(
        "--case-timeout",
        type=float,
        default=20.0,
        help="seconds one input may take before it counts as a hang",
    )
    parser.add_argument(
        "--fail-on-known",
        action="store_true",
        help="treat crashes listed in KNOWN_CRASHES as new ones (save, exit 1)",
    )
    args = parser.parse_args(argv)
    cases = args.cases if args.cases is not None or args.seconds is not None else 1000
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    print(f"fuzz_pipeline: seed {seed}", file=sys.stderr)
    stats = fuzz(
        seed,
        cases,
        args.seconds,
        args.out,
        args.case_timeout,
        log=sys.stderr,
        count_known=args.fail_on_known,
    )
    print(
        f"fuzz_pipeline: {stats.cases} cases in {stats.seconds:.1f} s, {stats.findings} findings, "
        f"{stats.refused} refused inputs, {len(stats.crashes)} new crashes (in {stats.out}), "
        f"{sum(stats.known.values())} known",
        file=sys.stderr,
    )
    for reason, count in stats.known.items():
        print(f"  known ({count}x): {reason}", file=sys.stderr)
    for path in stats.crashes:
        print(f"  {path}", file=sys.stderr)
    return 1 if stats.crashes else 0


if __name__ == "__main__":
    sys.exit(main())
