"""Shell variable expansion that grows without end.

gpulint expands variables in ``run:`` scripts, ``sh -c`` strings and Kubernetes ``$(VAR)``
references to find the engine and its flags. ``a=$a$a`` doubles a value each time: forty lines
of it asked for a terabyte, and a reference repeated many times copied a long value each time.
Now one command line or script, nested shells included, expands at most ``MAX_EXPANDED``
characters in all; a reference past that stays as written, unresolved, and the first word that
needed one is a GL001 finding that says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hostile_repository import run_child

from linter.formats.cmdline.shell import (
    MAX_EXPANDED,
    NOT_EXPANDED,
    Command,
    argv_commands,
    script_commands,
)

GIB = 1024**3


def _doubling(times: int, indent: str = "") -> str:
    return "".join(f"{indent}{line}\n" for line in ["a=x", *(["a=$a$a"] * times)])


def _produced(commands: list[Command]) -> int:
    """Characters in every word and known variable value: what the expansion built."""
    return sum(
        sum(len(word.text) for word in command.words)
        + sum(len(v.value or "") for v in command.env.values())
        for command in commands
    )


def test_a_doubling_variable_is_not_expanded_past_the_bound() -> None:
    script = _doubling(20) + "vllm serve $a\n"
    (command,) = script_commands([script])
    word = command.words[-1]
    assert (word.text, word.missing) == ("$a", (f"a ({NOT_EXPANDED})",))


def test_a_doubling_inside_sh_c_is_bounded_too() -> None:
    commands = argv_commands(["sh", "-c", _doubling(20) + "vllm serve $a"])
    assert commands[-1].words[-1].missing == (f"a ({NOT_EXPANDED})",)


LONG = {"X": "y" * 1000}
REPEATED = {
    "script-references": (script_commands, ["echo " + "$X " * 3_000], LONG),
    "kubernetes-references": (argv_commands, ["vllm", "serve", "$(X)" * 3_000], LONG),
    "positional-parameters": (
        argv_commands,
        ["sh", "-c", 'echo "$@" ' * 300, "sh", *["z" * 1000] * 10],
        {},
    ),
}


@pytest.mark.parametrize(("read", "items", "env"), REPEATED.values(), ids=REPEATED.keys())
def test_repeated_references_produce_at_most_the_bound(
    read: Callable[[list[str], dict[str, str]], list[Command]],
    items: list[str],
    env: dict[str, str],
) -> None:
    """A reference repeated many times to a long value (3 MB once expanded): what is built is
    counted, not timed, and is at most the bound beside the input's own characters."""
    written = sum(map(len, items)) + sum(map(len, env.values()))
    assert _produced(read(items, env)) <= MAX_EXPANDED + written


SKYPILOT = (
    "resources:\n  accelerators: L4:1\nrun: |\n  m=Qwen/Qwen2.5-72B-Instruct\n"
    + _doubling(40, "  ")
    + "  vllm serve $m --max-model-len 4096\n"
)


def test_the_run_says_which_value_was_not_expanded(tmp_path: Path) -> None:
    """The whole command line, in a child process with a memory limit: before the bound it ran
    out of memory; now it finishes and names the reference it did not expand."""
    (tmp_path / "task.sky.yaml").write_text(SKYPILOT)
    proc = run_child(["check", "--format", "json", "task.sky.yaml"], tmp_path, memory=GIB)
    assert proc is not None, "the run did not finish"
    findings = json.loads(proc.stdout)["findings"]
    gl001 = [(f["line"], f["column"], f["message"]) for f in findings if f["ruleId"] == "GL001"]
    assert gl001 == [
        (
            46,
            14,
            f"$m is not expanded: the script's expansions reached {MAX_EXPANDED:,} characters "
            "(a value that doubles, as a=$a$a does, grows without end); what depends on it is "
            "not known here",
        )
    ]
