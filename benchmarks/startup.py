"""Where a one-file run's CPU goes before any rule runs: the interpreter, pydantic, the rulebook,
the catalogues; shares of ``gpulint check`` on one manifest, the pre-commit case of issue 31.

    python benchmarks/startup.py [FILE] [--rounds R]

FILE defaults to ``examples/inference-chat.yaml``. Each round runs these, in fresh interpreters
taking turns, and the median CPU (user plus system) of R rounds (default 15) counts:

- the run: ``python -m linter check --no-cache --format json FILE``, as ``run.py`` measures it;
- the interpreter alone (``python -c pass``);
- the modules the run imports that are not gpulint's, imported in the run's order, with and
  without pydantic's packages (pydantic, pydantic_core, annotated_types, typing_inspection):
  the difference is what importing pydantic costs the run *at least* (the standard modules that
  only pydantic imports, decimal, uuid, zoneinfo, are counted in the second import, as if the
  run needed them anyway); pydantic's packages alone in a bare interpreter are the *at most*;
- the run once more in one process, the time spent in each of these counted on its own (a part
  within another is not counted twice): creating pydantic model classes, building their
  validators (on first use), loading the rulebook, loading the catalogues.

What the run would cost without pydantic is the run less the import (at least), the model
classes and the validators. A valid manifest's run imports no pydantic (linter/declared/
checking.py): its pydantic rows are nought, and the probe leaves pydantic unimported too; a
file with a schema error is validated by the twins, and shows what that costs. With
``--check-jsonschema`` and ``--yamllint`` (their executables: ``run.py --install-anchors`` puts
them in its work folder's ``anchors-venv``) the anchors take their turns in the same rounds, on
the same file (check-jsonschema with gpulint's schema, as ``run.py`` runs it), and both figures
are given as ratios of theirs.
The in-process parts are CPU in one round of one process; the others are medians over rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from measure import Command, run_once

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "inference-chat.yaml"
#: The anchors of issue 31's start-up targets, in the order they are reported.
ANCHORS = ("check-jsonschema", "yamllint")
#: The top-level packages counted as pydantic's.
PYDANTIC = ("pydantic", "pydantic_core", "annotated_types", "typing_inspection")

#: Runs ``gpulint check`` on one file in this process, timing the parts named in the docstring
#: by wrapping the functions that do them, and prints what it counted as JSON.
PROBE = """\
import contextlib, functools, io, json, sys, time
spent, counts, stack = {}, {}, []
def timed(part, function, count=lambda result: 1):
    def wrapper(*args, **kwargs):
        stack.append(0.0)
        start = time.process_time()
        try:
            result = function(*args, **kwargs)
            counts[part] = counts.get(part, 0) + count(result)
            return result
        finally:
            elapsed = time.process_time() - start
            inner = stack.pop()
            spent[part] = spent.get(part, 0.0) + elapsed - inner
            if stack:
                stack[-1] += elapsed
    return wrapper
if sys.argv[2] == "pydantic":  # the run imports it: its classes and validators are timed
    from pydantic._internal import _model_construction
    metaclass = _model_construction.ModelMetaclass
    metaclass.__new__ = timed("model classes", metaclass.__new__)
    _model_construction.complete_model_class = timed(
        "validators", _model_construction.complete_model_class)
import linter.catalog.base as base, linter.policy.loader as loader
loader.load_rulebook = timed("rulebook", loader.load_rulebook, len)
base._validated = functools.cache(timed("catalogues", base._validated.__wrapped__))
from linter.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(["check", "--no-cache", "--format", "json", "--fail-on", "never", sys.argv[1]])
print(json.dumps({"code": code, "spent": spent, "counts": counts}))
"""

#: The modules a run has imported, in the order it imported them (dicts keep insertion order),
#: but those ``import`` cannot bring back alone: ``__main__``, a name a module is kept under
#: besides its own (``os.path``), an extension loaded by path without its package (``cel.cel``),
#: a name that is not one in Python (``_sysconfigdata__linux_x86_64-linux-gnu``).
MODULES = """\
import contextlib, io, json, sys
from linter.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    main(["check", "--no-cache", "--format", "json", "--fail-on", "never", sys.argv[1]])
def importable(name, module):
    spec = getattr(module, "__spec__", None)
    parents = [name.rsplit(".", depth)[0] for depth in range(1, name.count(".") + 1)]
    return (
        spec is not None and spec.name == name and all(p in sys.modules for p in parents)
        and all(part.isidentifier() for part in name.split("."))
    )
print(json.dumps([n for n, m in list(sys.modules.items()) if importable(n, m)]))
"""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", type=Path, nargs="?", default=EXAMPLE)
    parser.add_argument("--rounds", type=int, default=15, help="rounds of fresh interpreters")
    parser.add_argument("--check-jsonschema", dest="cjs", help="an anchor's executable")
    parser.add_argument("--yamllint", help="an anchor's executable")
    args = parser.parse_args(argv)
    target = str(args.file.resolve())
    imported = json.loads(_output(MODULES, target))
    with_pydantic = [name for name in imported if not _is_gpulint(name)]
    without = [name for name in with_pydantic if not _is_pydantic(name)]
    alone = [name for name in with_pydantic if _is_pydantic(name)]
    commands = {
        "run": _python(
            "-m", "linter", "check", "--no-cache", "--format", "json", "--fail-on", "never", target
        ),
        "interpreter": _python("-c", "pass"),
        "modules": _python("-c", _importing(with_pydantic)),
        "modules without pydantic": _python("-c", _importing(without)),
        "pydantic alone": _python("-c", _importing(alone)),
    }
    schema = str(REPO / "schemas" / "gpulint.schema.json")
    anchors = {"check-jsonschema": (args.cjs, "--schemafile", schema, target)}
    anchors["yamllint"] = (args.yamllint, target)
    commands.update((name, argv) for name, argv in anchors.items() if argv[0])
    medians = _medians(commands, args.rounds)
    probe = json.loads(_output(PROBE, target, "pydantic" if alone else "none"))
    print(render(args.file, args.rounds, medians, probe, len(alone)), end="")
    return 0


def render(
    file: Path,
    rounds: int,
    medians: dict[str, float],
    probe: dict[str, dict[str, float]],
    pydantic_modules: int,
) -> str:
    run = medians["run"]
    spent, counts = probe["spent"], probe["counts"]
    importing, at_most = 0.0, 0.0  # a run that imports no pydantic: the rest is noise
    if pydantic_modules:
        importing = medians["modules"] - medians["modules without pydantic"]
        at_most = medians["pydantic alone"] - medians["interpreter"]
    rows = [
        ("the run (python -m linter check)", run, ""),
        ("the interpreter alone", medians["interpreter"], ""),
        ("importing pydantic, at least", importing, f"{pydantic_modules} modules"),
        ("importing pydantic, at most", at_most, "in a bare interpreter"),
    ]
    for part, unit in (
        ("model classes", "pydantic model classes created"),
        ("validators", "pydantic validators built"),
        ("rulebook", "rule files"),
        ("catalogues", "catalogues loaded"),
    ):
        rows.append((f"{part} (in one run)", spent.get(part, 0.0), f"{counts.get(part, 0)} {unit}"))
    pydantic = importing + spent.get("model classes", 0.0) + spent.get("validators", 0.0)
    rows.append(("pydantic in all, at least", pydantic, "import, classes, validators"))
    rows.append(("the run without pydantic", run - pydantic, ""))
    lines = [f"One-file run of {file}, CPU (median of {rounds} rounds, fresh interpreters):"]
    lines += [
        f"  {name:<36} {1000 * seconds:7.1f} ms  {seconds / run:6.1%}  {note}".rstrip()
        for name, seconds, note in rows
    ]
    for anchor in ANCHORS:
        if anchor in medians:
            theirs = medians[anchor]
            lines.append(
                f"  {anchor} {1000 * theirs:.1f} ms: the run is {run / theirs:.2f}x its CPU, "
                f"without pydantic {(run - pydantic) / theirs:.2f}x"
            )
    return "\n".join(lines) + "\n"


def _medians(commands: dict[str, tuple[str, ...]], rounds: int) -> dict[str, float]:
    """Each command's median CPU seconds, the commands taking turns; one unmeasured run each
    first (bytecode written, start-up cache filled)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as scratch:
        output = Path(scratch) / "out"
        runs = {name: Command("startup", name, argv, env, REPO) for name, argv in commands.items()}
        for command in runs.values():
            run_once(command, output)
        samples: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(rounds):
            for name, command in runs.items():
                sample = run_once(command, output)
                if sample.exit_code != 0 and name not in ANCHORS:  # theirs: findings
                    raise SystemExit(f"{name}: exit code {sample.exit_code}: {command.argv}")
                samples[name].append(sample.cpu_s)
    return {name: statistics.median(values) for name, values in samples.items()}


def _python(*arguments: str) -> tuple[str, ...]:
    return (sys.executable, *arguments)


def _output(script: str, *arguments: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", script, *arguments],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.strip().splitlines()[-1]


def _importing(names: Sequence[str]) -> str:
    return "\n".join(f"import {name}" for name in names) or "pass"


def _is_gpulint(name: str) -> bool:
    return name == "linter" or name.startswith("linter.")


def _is_pydantic(name: str) -> bool:
    return name.split(".")[0] in PYDANTIC


if __name__ == "__main__":
    sys.exit(main())
