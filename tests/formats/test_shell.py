"""Shell words with offsets: argv lists, scripts, nesting, variables, and hostile input."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from linter.formats.cmdline.shell import Command, Variable, Word, argv_commands, script_commands


def _texts(commands: list[Command]) -> list[list[str]]:
    return [[word.text for word in command.words] for command in commands]


def _where(items: list[str], word: Word) -> str:
    """The raw text a word's position covers."""
    return items[word.item][word.start : word.end]


# -- argument vectors -----------------------------------------------------------------------------


def test_argv_items_are_words_without_shell_splitting() -> None:
    items = ["vllm", "serve", "meta-llama/Llama-3.1-8B", "--max-model-len", "8192 tokens"]
    (command,) = argv_commands(items)
    assert command.words == (
        Word("vllm", 0, 0, 4),
        Word("serve", 1, 0, 5),
        Word("meta-llama/Llama-3.1-8B", 2, 0, 23),
        Word("--max-model-len", 3, 0, 15),
        Word("8192 tokens", 4, 0, 11),
    )


def test_kubernetes_expands_references_from_the_container_env() -> None:
    items = ["--model", "$(MODEL)", "$$(MODEL)", "$(TOKEN)", "$(ABSENT)", "a$b", "x-$(TP)-y"]
    (command,) = argv_commands(items, {"MODEL": "meta/x", "TOKEN": None, "TP": "2"})
    assert _texts([command]) == [
        ["--model", "meta/x", "$(MODEL)", "$(TOKEN)", "$(ABSENT)", "a$b", "x-2-y"]
    ]
    words = command.words
    assert (words[1].unresolved, words[2].unresolved) == (False, False)
    assert (words[3].missing, words[4].missing) == (("TOKEN",), ("ABSENT",))
    assert words[3].unresolved and words[4].unresolved
    assert words[6] == Word("x-2-y", 6, 0, 9)
    assert command.env == {
        "MODEL": Variable("meta/x"),
        "TOKEN": Variable(None),
        "TP": Variable("2"),
    }


def test_without_kubernetes_references_stay_literal() -> None:
    (command,) = argv_commands(["echo", "$(MODEL)"], {"MODEL": "x"}, kubernetes=False)
    assert command.words[1] == Word("$(MODEL)", 1, 0, 8)


def test_sh_c_script_words_point_into_the_script_item() -> None:
    items = ["sh", "-c", "vllm serve 'my model' --max-model-len 131072"]
    (command,) = argv_commands(items)
    assert _texts([command]) == [["vllm", "serve", "my model", "--max-model-len", "131072"]]
    assert [(w.item, w.start, w.end) for w in command.words] == [
        (2, 0, 4),
        (2, 5, 10),
        (2, 11, 21),
        (2, 22, 37),
        (2, 38, 44),
    ]
    assert _where(items, command.words[2]) == "'my model'"


def test_kubernetes_reference_inside_a_shell_script() -> None:
    items = ["/bin/sh", "-c", 'exec vllm serve "$(MODEL)" --tp 2 2>&1 | tee /log']
    vllm, tee = argv_commands(items, {"MODEL": "m/x"})
    assert _texts([vllm, tee]) == [["vllm", "serve", "m/x", "--tp", "2"], ["tee", "/log"]]
    assert _where(items, vllm.words[2]) == '"$(MODEL)"'


@pytest.mark.parametrize(
    "items",
    [
        ["bash", "-lc", "vllm serve a"],
        ["bash", "-e", "-o", "pipefail", "-c", "vllm serve a"],
        ["/usr/bin/env", "bash", "-xec", "vllm serve a"],
        ["sh", "-c", "--", "vllm serve a"],
        ["bash", "--login", "-c", "vllm serve a"],
    ],
)
def test_shells_run_their_c_script(items: list[str]) -> None:
    assert _texts(argv_commands(items)) == [["vllm", "serve", "a"]]


def test_a_shell_without_c_is_an_ordinary_command() -> None:
    assert _texts(argv_commands(["bash", "run.sh", "-c"])) == [["bash", "run.sh", "-c"]]
    assert _texts(argv_commands(["bash", "-c"])) == [["bash", "-c"]]


def test_positional_parameters_of_sh_c_point_at_their_own_items() -> None:
    items = ["/bin/bash", "-c", 'vllm serve "$@" --port $2', "--", "--model", "m 1"]
    (command,) = argv_commands(items)
    assert _texts([command]) == [["vllm", "serve", "--model", "m 1", "--port", "m", "1"]]
    model, value = command.words[2], command.words[3]
    assert (model.item, model.start, model.end) == (4, 0, 7)
    assert (value.item, value.start, value.end) == (5, 0, 3)


# -- scripts ---------------------------------------------------------------------------------------


def test_separators_comments_and_continuations() -> None:
    script = "a 1; b && c || d | e & f\n# g\nh \\\n  --x 2  # trailing\n\n(i)"
    assert _texts(script_commands([script])) == [
        ["a", "1"],
        ["b"],
        ["c"],
        ["d"],
        ["e"],
        ["f"],
        ["h", "--x", "2"],
        ["i"],
    ]


def test_quoting_and_raw_word_offsets() -> None:
    script = 'vllm serve "a b" \'c\'"d" e\\ f "q\\"x\\$y" \'\''
    (command,) = script_commands([script])
    assert _texts([command]) == [["vllm", "serve", "a b", "cd", "e f", 'q"x$y', ""]]
    assert [_where([script], w) for w in command.words[2:]] == [
        '"a b"',
        "'c'\"d\"",
        "e\\ f",
        '"q\\"x\\$y"',
        "''",
    ]


def test_nested_shells_map_offsets_to_the_outer_item() -> None:
    script = 'sh -c "bash -c \'vllm serve \\"a b\\" --tp 2\'"'
    _, command = script_commands(["echo start", script])
    assert _texts([command]) == [["vllm", "serve", "a b", "--tp", "2"]]
    assert [_where(["echo start", script], w) for w in command.words] == [
        "vllm",
        "serve",
        '\\"a b\\"',
        "--tp",
        "2",
    ]


def test_assignments_prefix_exports_and_unset() -> None:
    script = (
        "A=1\n"
        "export B=2 C\n"
        "HF_TOKEN=x CUDA_VISIBLE_DEVICES=0,1 text-generation-launcher --model-id m\n"
        "export A\n"
        "unset B\n"
        "run $A\n"
    )
    launcher, run = script_commands([script], {"C": "c"})
    assert launcher.env == {
        "B": Variable("2", Word("2", 0, 13, 14)),
        "C": Variable("c"),
        "HF_TOKEN": Variable("x", Word("x", 0, 26, 27)),
        "CUDA_VISIBLE_DEVICES": Variable("0,1", Word("0,1", 0, 49, 52)),
    }
    assert launcher.words[0] == Word("text-generation-launcher", 0, 53, 77)
    assert run.env == {"A": Variable("1", Word("1", 0, 2, 3)), "C": Variable("c")}
    assert run.words[1] == Word("1", 0, 112, 114, ("A",))


def test_prefix_assignments_do_not_apply_to_their_own_arguments() -> None:
    (command,) = script_commands(["TP=4 vllm serve m --tp $TP"], {"TP": "2"})
    assert command.words[-1].text == "2"
    assert command.env["TP"].value == "4"


def test_inner_shells_see_exported_variables_only() -> None:
    script = "A=1; export B=2; sh -c 'echo $A $B'"
    (command,) = script_commands([script])
    assert _texts([command]) == [["echo", "$A", "2"]]
    assert command.words[1].missing == ("A",)


def test_wrappers_are_stripped() -> None:
    script = "exec nohup env -u X -i Y=1 time -p python3 -m vllm.entrypoints.openai.api_server"
    (command,) = script_commands([script], {"X": "x", "Z": "z"})
    assert _texts([command]) == [["python3", "-m", "vllm.entrypoints.openai.api_server"]]
    assert command.env == {"Y": Variable("1", Word("1", 0, 25, 26))}
    assert script_commands(["exec > /tmp/log 2>&1"]) == []


def test_redirections_are_dropped_with_their_targets() -> None:
    (command,) = script_commands(["vllm serve m >/tmp/log 2>&1 < /dev/null 2> err.txt"])
    assert _texts([command]) == [["vllm", "serve", "m"]]


def test_heredoc_bodies_are_skipped() -> None:
    script = "cat > cfg.yaml <<EOF\nvllm serve x\nEOF\n\tcat <<-'END'\n\tvllm serve y\n\tEND\nvllm serve z"
    assert _texts(script_commands([script])) == [["cat"], ["cat"], ["vllm", "serve", "z"]]


def test_control_structures_yield_their_simple_commands() -> None:
    script = (
        'if [ -n "$X" ]; then vllm serve a; else vllm serve b; fi\n'
        "for i in 1 2; do echo $i; done\n"
        "case $X in a) vllm serve c;; *) vllm serve d;; esac\n"
        "while true; do vllm serve e; done\n"
        "vllm serve f"
    )
    assert _texts(script_commands([script], {"X": "x"})) == [
        ["[", "-n", "x", "]"],
        ["vllm", "serve", "a"],
        ["vllm", "serve", "b"],
        ["echo", "$i"],
        ["true"],
        ["vllm", "serve", "e"],
        ["vllm", "serve", "f"],
    ]


# -- variables -------------------------------------------------------------------------------------


def test_unquoted_expansions_are_split_where_the_value_is_written() -> None:
    script = "ARGS='--tp 2'\nvllm serve m $ARGS \"$ARGS\""
    (command,) = script_commands([script])
    assert _texts([command]) == [["vllm", "serve", "m", "--tp", "2", "--tp 2"]]
    assert [_where([script], w) for w in command.words[3:]] == ["--tp", "2", '"$ARGS"']


def test_caller_values_are_placed_at_the_reference() -> None:
    script = "vllm serve m $EXTRA"
    (command,) = script_commands([script], {"EXTRA": "--tp  2"})
    assert command.words[3:] == (
        Word("--tp", 0, 13, 19, ("EXTRA",)),
        Word("2", 0, 13, 19, ("EXTRA",)),
    )


def test_parameter_defaults() -> None:
    script = (
        "run ${TP:-4} ${PP-1} ${DP:+x} ${SET:-no} ${EMPTY:-yes} ${EMPTY-no} ${SECRET:-d} '${TP}'"
    )
    (command,) = script_commands([script], {"SET": "s", "EMPTY": "", "SECRET": None})
    assert _texts([command]) == [["run", "4", "1", "s", "yes", "${SECRET:-d}", "${TP}"]]
    assert command.words[5].missing == ("SECRET",)


def test_unresolved_references_keep_their_text() -> None:
    script = 'vllm serve $MODEL --tp ${TP} `nproc` $(nproc) $((1+1)) ${#X} "x$(date)y"'
    (command,) = script_commands([script])
    assert [(w.text, w.missing) for w in command.words[2:]] == [
        ("$MODEL", ("MODEL",)),
        ("--tp", ()),
        ("${TP}", ("TP",)),
        ("`nproc`", ("`nproc`",)),
        ("$(nproc)", ("$(nproc)",)),
        ("$((1+1))", ("$((1+1))",)),
        ("${#X}", ("${#X}",)),
        ("x$(date)y", ("$(date)",)),
    ]
    assert command.words[2].variables == ("MODEL",)


def test_unterminated_constructs_read_to_the_end() -> None:
    assert _texts(script_commands(['vllm serve "m x'])) == [["vllm", "serve", "m x"]]
    assert _texts(script_commands(["vllm 'a"])) == [["vllm", "a"]]
    assert _texts(script_commands(["echo $(a ${b"])) == [["echo", "$(a ${b"]]
    assert _texts(script_commands(["echo x\\"])) == [["echo", "x\\"]]


def test_deep_nesting_stops_at_the_limit() -> None:
    script = "vllm serve m"
    for _ in range(12):
        script = "sh -c " + shlex.quote(script)
    (command,) = script_commands([script])
    assert command.words[0].text == "sh"


# -- properties ------------------------------------------------------------------------------------

_ANY_TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=60) | st.text(
    alphabet=st.sampled_from(list(" \t\n\\'\"$`(){}[];&|<>#=-:+?@*!~abcXY01")), max_size=80
)


@settings(max_examples=500, deadline=None, derandomize=True)
@given(
    items=st.lists(_ANY_TEXT, max_size=6),
    env=st.dictionaries(
        st.sampled_from(["A", "B", "X", "MODEL", "a", "1"]), st.none() | _ANY_TEXT, max_size=4
    ),
)
def test_never_raises_and_every_word_points_inside_its_item(
    items: list[str], env: dict[str, str | None]
) -> None:
    shell = ["sh", "-c", *items]
    for source, commands in (
        (items, script_commands(items, env)),
        (items, argv_commands(items, env)),
        (shell, argv_commands(shell, env)),
    ):
        for command in commands:
            for word in command.words:
                assert 0 <= word.item < len(source)
                assert 0 <= word.start <= word.end <= len(source[word.item])


_PLAIN_WORDS = st.text(
    alphabet=st.sampled_from(list("abc XYZ-=_./:'\"\\$`{}()*?!#~\t")), min_size=1, max_size=12
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(words=st.lists(_PLAIN_WORDS, min_size=1, max_size=6))
def test_quoted_words_round_trip_with_their_raw_text(words: list[str]) -> None:
    quoted = [shlex.quote(word) for word in words]
    script = "run " + " ".join(quoted)
    (command,) = script_commands([script])
    assert [w.text for w in command.words[1:]] == words
    assert [_where([script], w) for w in command.words[1:]] == quoted
