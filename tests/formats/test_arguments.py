"""The shared argument reader and the program recogniser, on small tables of their own."""

from __future__ import annotations

from typing import Any

import pytest

from linter.formats.cmdline.arguments import (
    ArgProblem,
    FlagTable,
    Setting,
    read_arguments,
    read_environment,
)
from linter.formats.cmdline.programs import program
from linter.formats.cmdline.shell import Variable, Word, argv_commands


def _table(**extra: Any) -> FlagTable:
    return FlagTable.model_validate(
        {
            "title": "prog",
            "source": "test",
            "flags": [
                {"names": ["--steps"], "field": "steps", "type": "int"},
                {"names": ["--size"], "field": "size", "type": "int", "suffixes": True},
                {"names": ["--nodes"], "field": "nodes", "type": "int", "elastic": True},
                {"names": ["--ratio"], "field": "ratio", "type": "float", "gt": 0, "le": 1},
                {"names": ["--peft"], "field": "peft", "type": "bool", "optional": True},
                {"names": ["--eager"], "field": "eager", "type": "switch"},
                {"names": ["--save"], "field": "save", "type": "above-zero"},
                {"names": ["--names"], "many": True},
                {"names": ["--model", "-m"], "field": "model", "env": "MODEL"},
                {"names": ["batch.size"], "field": "batch", "type": "int"},
            ],
            "switches": ["--verbose"],
            "suffixes": {"k": 1000, "Ki": 1024},
            **extra,
        }
    )


def _read(items: list[str], **extra: Any) -> dict[str, object]:
    (command,) = argv_commands(items)
    arguments = read_arguments(command.words, _table(**extra))
    return {field: setting.value for field, setting in arguments.settings.items()}


def test_negative_numbers_are_values_and_options_are_not() -> None:
    assert _read(["--steps", "-1", "--save", "-1"]) == {"steps": -1, "save": False}
    (command,) = argv_commands(["--steps", "--eager"])
    arguments = read_arguments(command.words, _table())
    assert arguments.problems == (
        ArgProblem("prog --steps expects a value", "--steps", Word("--steps", 0, 0, 7)),
    )
    assert arguments.settings["eager"].value is True


@pytest.mark.parametrize(
    ("value", "expected"), [("2k", 2000), ("2Ki", 2048), ("1.5k", 1500), ("1_000", 1000), ("+7", 7)]
)
def test_size_suffixes(value: str, expected: int) -> None:
    assert _read(["--size", value]) == {"size": expected}


@pytest.mark.parametrize("value", ["1.5Ki", "2K", "k", "1e3", ""])
def test_sizes_the_program_refuses(value: str) -> None:
    (command,) = argv_commands([f"--size={value}"])
    arguments = read_arguments(command.words, _table())
    assert [p.message for p in arguments.problems] == [
        f"prog --size: {value!r} is not a whole number (or a suffix k/Ki)"
    ]


def test_elastic_ranges_read_as_their_maximum() -> None:
    assert _read(["--nodes", "1:4"]) == {"nodes": 4}
    assert _read(["--nodes=2"]) == {"nodes": 2}


def test_optional_booleans_take_a_value_only_when_it_is_one() -> None:
    assert _read(["--peft", "x.py"]) == {"peft": True}
    assert _read(["--peft", "false"]) == {"peft": False}
    assert _read(["--peft=yes"]) == {"peft": True}


def test_many_values_unknown_flags_and_double_dash() -> None:
    (command,) = argv_commands(
        ["--names", "a", "b", "pos1", "--unknown", "v", "--verbose", "pos2", "--", "--steps", "3"]
    )
    arguments = read_arguments(command.words, _table())
    assert [w.text for w in arguments.positionals] == ["pos2", "--steps", "3"]
    assert arguments.settings == {}


def test_unknown_flags_do_not_take_a_script() -> None:
    (command,) = argv_commands(["--unknown", "train.py", "--steps", "2"])
    arguments = read_arguments(command.words, _table(script_suffixes=[".py"]))
    assert [w.text for w in arguments.positionals] == ["train.py"]
    assert arguments.settings["steps"].value == 2


def test_stopping_at_the_first_positional() -> None:
    (command,) = argv_commands(["--steps", "2", "run.py", "--steps", "3"])
    arguments = read_arguments(command.words, _table(), stop_at_positional=True)
    assert arguments.settings["steps"].value == 2
    assert [w.text for w in arguments.positionals] == ["run.py", "--steps", "3"]


def test_assignments_and_underscores() -> None:
    assert _read(["batch.size=4", "steps=3", "other=1"], assignments=True) == {"batch": 4}
    assert _read(["batch.size=4"]) == {}
    assert _read(["--Steps", "4"], underscores=True) == {}


def test_switch_negation() -> None:
    assert _read(["--no-eager"], negation="--no-") == {"eager": False}
    assert _read(["--no-steps", "3"], negation="--no-") == {}


def test_ranges() -> None:
    (command,) = argv_commands(["--ratio", "0", "--ratio", "0.5"])
    arguments = read_arguments(command.words, _table())
    assert arguments.settings["ratio"].value == 0.5
    assert arguments.problems[0].message == "prog --ratio: '0' must be above 0"


def test_environment_variables() -> None:
    table = _table()
    assert read_environment({"MODEL": Variable("m")}, table).settings == {
        "model": Setting("model", "m", "MODEL", None, None)
    }
    unknown = read_environment({"MODEL": Variable(None)}, table)
    assert unknown.unresolved == {"model": Setting("model", None, "MODEL", None, None)}
    assert read_environment({"OTHER": Variable("x")}, table).settings == {}


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        (["python3", "-u", "-m", "vllm.x", "--a"], ("vllm.x", "module", ["--a"])),
        (["python", "-um", "mod", "x"], ("mod", "module", ["x"])),
        (["python", "-mmod"], ("mod", "module", [])),
        (
            ["/usr/bin/python3.11", "-X", "dev", "-B", "-W", "ignore", "t.py", "-c"],
            ("t.py", "script", ["-c"]),
        ),
        (["python", "--check-hash-based-pycs", "always", "t.py"], ("t.py", "script", [])),
        (["torchrun", "t.py"], ("torchrun", "executable", ["t.py"])),
        (["/opt/bin/vllm", "serve"], ("vllm", "executable", ["serve"])),
        (["python", "-c", "print(1)"], None),
        (["python", "-uc", "print(1)"], None),
        (["python"], None),
        (["python", "-m"], None),
    ],
)
def test_programs(items: list[str], expected: tuple[str, str, list[str]] | None) -> None:
    started = program(argv_commands(items)[0].words)
    assert (started and (started.name, started.kind, [w.text for w in started.args])) == expected


def test_a_unique_prefix_names_the_option_where_the_parser_takes_abbreviations() -> None:
    assert _read(["--ste", "8", "--rat=0.5", "--eag"], abbreviations=True) == {
        "steps": 8,
        "ratio": 0.5,
        "eager": True,
    }
    # a prefix of a switch the table lists takes no value: the word after it is positional
    (command,) = argv_commands(["--verb", "train.yaml"])
    arguments = read_arguments(command.words, _table(abbreviations=True))
    assert [word.text for word in arguments.positionals] == ["train.yaml"]


def test_without_abbreviations_a_prefix_is_an_unknown_flag() -> None:
    assert _read(["--ste", "8", "--steps", "2", "--ste", "9"]) == {"steps": 2}


def test_an_ambiguous_prefix_is_reported_and_sets_nothing() -> None:
    (command,) = argv_commands(["--s", "8", "--model", "m"])
    arguments = read_arguments(command.words, _table(abbreviations=True))
    assert arguments.problems == (
        ArgProblem(
            "prog --s is ambiguous: it could be --save, --size, --steps",
            "--s",
            Word("--s", 0, 0, 3),
        ),
    )
    assert {field: s.value for field, s in arguments.settings.items()} == {"model": "m"}


def test_a_whole_switch_that_prefixes_another_option_is_itself() -> None:
    assert _read(["--eager", "--steps", "3"], abbreviations=True, switches=["--ea"]) == {
        "eager": True,
        "steps": 3,
    }
    (command,) = argv_commands(["--ea", "5"])
    arguments = read_arguments(command.words, _table(abbreviations=True, switches=["--ea"]))
    assert arguments.problems == ()
    assert [word.text for word in arguments.positionals] == ["5"]
