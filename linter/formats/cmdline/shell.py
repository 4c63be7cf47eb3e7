"""Shell words with offsets: the simple commands inside container argv lists and shell scripts.

Engines and launchers are started from a container's ``command`` + ``args``, a SkyPilot ``run:``
script or dstack ``commands:``. This module finds the simple commands in them and gives every
word its text (after quote removal and expansion) and where it is written: the input item and
the ``[start, end)`` offsets of the raw word in that item's string, so a finding can point at one
argument (``linter.load.scalar_offsets.locate`` turns those offsets into a file position).

What is modelled, after the POSIX Shell Command Language (IEEE Std 1003.1-2017, XCU 2.2 quoting,
2.3 token recognition, 2.4 reserved words, 2.6.2 parameter expansion, 2.6.5 field splitting,
2.7 redirection, 2.9.1 simple commands): single, double and backslash quoting; backslash-newline
continuations; comments; ``;`` ``&&`` ``||`` ``|`` ``&`` and newlines between commands;
redirections (dropped, with their targets; here-document bodies are skipped); ``NAME=value``
prefixes (that command's environment); ``export``/``unset`` (later commands); ``$NAME``,
``${NAME}`` and ``${NAME:-word}``-style defaults with field splitting of unquoted expansions;
the ``exec``, ``env``, ``nohup``, ``time`` and ``command`` wrappers, and the launch wrappers a
caller names (``srun``, with the options that take a value); and ``sh -c``, ``bash -lc``
(any shell with ``-c`` in its options) whose script is parsed in turn, offsets mapped back to the
outer item, with ``$0``, ``$1``, ``"$@"`` bound to the arguments after it.

Kubernetes expands ``$(VAR)`` in a container's command and args from the container's env before
any shell runs; ``$$`` is an escaped ``$`` and an unknown reference is left as written
(kubernetes/kubernetes ``third_party/forked/golang/expansion/expand.go``, ``Expand`` and
``tryReadVariableName``). :func:`argv_commands` does the same when asked.

What is not modelled is skipped, never guessed: ``$(...)`` and backquote command substitution,
arithmetic, other ``${...}`` forms, ``case`` bodies and ``for`` headers. A word that needs a
variable this module cannot know (absent from the environment it was given, or given with an
unknown value such as a secret) keeps the reference as its text and is marked unresolved, with
the names. ``${NAME:-default}`` with NAME absent takes the default the script wrote. Nothing here
raises on any input.

Expansion is bounded: ``a=$a$a`` repeated doubles a value each time (forty lines make a
terabyte), and a reference repeated many times copies its value each time. One command line or
script, its nested shells included, expands at most :data:`MAX_EXPANDED` characters in all; a
reference that would pass that stays as written, unresolved, named ``NAME (not expanded: ...)``
so that messages say why its value is not known. Nesting (``sh -c`` in ``sh -c``, defaults in
defaults) stops at ``MAX_DEPTH``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import Union

from linter.formats.cmdline.shell_syntax import (
    MAX_DEPTH,
    SPECIAL_PARAMETERS,
    Char,
    Parameter,
    ShellToken,
    Source,
    SourcedText,
    Substitution,
    is_name,
    simple_commands,
    tokenize,
)
from linter.records import datarecord

__all__ = [
    "Command",
    "Env",
    "Variable",
    "Word",
    "Wrappers",
    "argv_commands",
    "not_expanded",
    "script_commands",
]

Env = Mapping[str, Union[str, None]]  # noqa: UP007 - a runtime alias (see linter.load.positions)
"""Environment given by the caller: a name whose value is None is set to something unknown."""

_FIELD_SEPARATORS = frozenset(" \t\n")
_LEADING_RESERVED = frozenset(("if", "then", "else", "elif", "do", "while", "until", "!", "{"))
_CLOSING_RESERVED = frozenset(("fi", "done", "}", "esac"))
_UNMODELLED_HEADERS = frozenset(("for", "select"))
_SHELLS = frozenset(("sh", "bash", "dash", "zsh", "ksh", "ash", "mksh"))
#: Characters that expansions may produce in one command line or script, nested shells included.
MAX_EXPANDED = 1 << 18
NOT_EXPANDED = f"not expanded: expansions past {MAX_EXPANDED:,} characters"


@datarecord(slots=True)
class Word:
    """One word of a command: its text after quote removal and expansion, and where it is.

    ``item`` is the index of the input item the word is written in and ``[start, end)`` its
    offsets in that item's string, covering the raw word (quotes included). A word split out of
    a variable's value is placed where that value is written, when that is known.
    ``variables`` names every variable expanded into the word; ``missing`` the ones (or the
    ``$(...)`` substitutions) that could not be resolved, whose raw text stays in ``text``.
    """

    text: str
    item: int
    start: int
    end: int
    variables: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()

    @property
    def unresolved(self) -> bool:
        return bool(self.missing)


@datarecord(slots=True)
class Variable:
    """An environment variable of a command: its value (None when unknown) and, when the script
    assigned it, the word of that value."""

    value: str | None
    word: Word | None = None


@datarecord(slots=True)
class Command:
    """A simple command: its words (after assignments and wrappers) and its environment."""

    words: tuple[Word, ...]
    env: Mapping[str, Variable]


def not_expanded(commands: Sequence[Command]) -> tuple[Word, str] | None:
    """The first word in which a reference was left as written because expansion reached its
    bound (:data:`MAX_EXPANDED`), with a sentence saying so; None when every reference that
    could be expanded was."""
    suffix = f" ({NOT_EXPANDED})"
    for command in commands:
        for word in command.words:
            for hole in word.missing:
                if hole.endswith(suffix):
                    name = hole[: -len(suffix)]
                    return word, (
                        f"${name} is not expanded: the script's expansions reached "
                        f"{MAX_EXPANDED:,} characters (a value that doubles, as a=$a$a does, "
                        "grows without end); what depends on it is not known here"
                    )
    return None


def argv_commands(
    items: Sequence[str], env: Env | None = None, kubernetes: bool = True
) -> list[Command]:
    """The commands an argument vector runs: a container's ``command + args``, one word per item.

    With ``kubernetes``, ``$(VAR)`` references are expanded from ``env`` first. The argv itself is
    the command, unless it runs a shell with ``-c``: then the commands of that script.
    """
    variables = _variables(env or {})
    budget = _Budget()
    fields = [
        _Field.whole(
            _kubernetes_expand(item, index, variables, budget)
            if kubernetes
            else SourcedText.raw(item, index),
            (index, 0, len(item)),
        )
        for index, item in enumerate(items)
    ]
    out: list[Command] = []
    shell = _Shell(variables, None, 0, out, budget)
    shell.run_fields([(f, False) for f in fields], dict(variables))
    return out


Wrappers = Mapping[str, frozenset[str]]
"""Programs that run the command after their options (Slurm's ``srun``), each with its options
that take the next word as their value (``--nodes``, ``-N``)."""


def script_commands(
    items: Sequence[str], env: Env | None = None, wrappers: Wrappers | None = None
) -> list[Command]:
    """The commands of shell scripts run one after another in one shell (a SkyPilot ``run``,
    dstack ``commands``, a Slurm batch script), in order; nested ``sh -c`` scripts are expanded
    in place, and so are the commands ``wrappers`` run."""
    out: list[Command] = []
    shell = _Shell(_variables(env or {}), None, 0, out, _Budget(), wrappers or {})
    for index, item in enumerate(items):
        shell.run_script(SourcedText.raw(item, index))
    return out


@datarecord(frozen=False, slots=True)
class _Budget:
    """The characters expansions may still produce (see :data:`MAX_EXPANDED`)."""

    left: int = MAX_EXPANDED

    def take(self, count: int) -> bool:
        """Whether ``count`` more characters may be produced (then they are counted)."""
        if count > self.left:
            return False
        self.left -= count
        return True


@datarecord(frozen=False, slots=True)
class _Field:
    """A word being built: its characters, the variables in it, and where its raw word is."""

    chars: SourcedText
    extent: Source
    variables: list[str] = field(default_factory=list)
    quoted: bool = False  # holds a quoted (possibly empty) string: it stays a word

    @classmethod
    def whole(cls, chars: SourcedText, extent: Source) -> _Field:
        """An argv item: one word as it is, even when empty."""
        return cls(chars, extent, quoted=True)

    def word(self, split: bool = False) -> Word:
        items = {source[0] for source in self.chars.sources}
        item, start, end = self.extent
        if (split or items - {item}) and len(items) == 1:
            item, start, end = self.chars.extent(0, len(self.chars))
        missing = list(dict.fromkeys(hole for hole in self.chars.holes if hole is not None))
        return Word(
            "".join(self.chars.text),
            item,
            start,
            end,
            tuple(dict.fromkeys(self.variables)),
            tuple(missing),
        )

    def text(self) -> str:
        return "".join(self.chars.text)


@datarecord(frozen=False, slots=True)
class _Var:
    """A shell variable: its text (None: set to something unknown) and, when the script assigned
    it, where each character is written and the word of the value."""

    text: str | None
    chars: SourcedText | None = None
    word: Word | None = None
    exported: bool = True

    def known(self) -> str | None:
        """The value when it is fully known (no unresolved reference in it)."""
        if self.chars is not None and any(hole is not None for hole in self.chars.holes):
            return None
        return self.text


def _variables(env: Env) -> dict[str, _Var]:
    return {name: _Var(value) for name, value in env.items()}


def _kubernetes_expand(
    item: str, index: int, variables: Mapping[str, _Var], budget: _Budget
) -> SourcedText:
    """Kubernetes' ``$(VAR)`` expansion of one command/args item, with every character's source."""
    if "$" not in item:  # nothing to expand: most items
        return SourcedText.raw(item, index)
    out = SourcedText()
    cursor = 0
    while cursor < len(item):
        ch = item[cursor]
        if ch != "$" or cursor + 1 == len(item):
            out.add(ch, (index, cursor, cursor + 1))
            cursor += 1
            continue
        following = item[cursor + 1]
        close = item.find(")", cursor + 2) if following == "(" else -1
        if following == "$":
            out.add("$", (index, cursor, cursor + 2))
            cursor += 2
        elif close >= 0:
            name, source = item[cursor + 2 : close], (index, cursor, close + 1)
            var = variables.get(name)
            value = None if var is None else var.known()
            if value is not None and not budget.take(len(value)):
                out.add_text(item[cursor : close + 1], source, hole=f"{name} ({NOT_EXPANDED})")
            elif value is None:
                out.add_text(item[cursor : close + 1], source, hole=name)
            else:
                out.add_text(value, source)
            cursor = close + 1
        else:
            out.add("$", (index, cursor, cursor + 1))
            out.add(following, (index, cursor + 1, cursor + 2))
            cursor += 2
    return out


# -- running commands -----------------------------------------------------------------------------


class _Shell:
    """Walks commands in order, keeping shell variables, and collects the simple commands."""

    def __init__(
        self,
        variables: dict[str, _Var],
        positional: list[_Field] | None,
        depth: int,
        out: list[Command],
        budget: _Budget,
        wrappers: Wrappers | None = None,
    ) -> None:
        self.variables = variables
        self.positional = positional  # None: unknown (a script's own arguments)
        self.depth = depth
        self.out = out
        self.budget = budget  # shared with nested shells
        self.wrappers: Wrappers = wrappers or {}
        self.chars = SourcedText()  # the script being run

    def run_script(self, chars: SourcedText) -> None:
        self.chars = chars
        case_depth = 0
        for tokens in simple_commands(tokenize(chars, self.depth)):
            first = tokens[0].literal()
            if first == "case" or (case_depth and first == "esac"):
                case_depth += 1 if first == "case" else -1
                continue
            if case_depth:
                continue
            while tokens and tokens[0].literal() in _LEADING_RESERVED:
                tokens = tokens[1:]
            if not tokens or tokens[0].literal() in _UNMODELLED_HEADERS:
                continue
            if len(tokens) == 1 and tokens[0].literal() in _CLOSING_RESERVED:
                continue
            self.run_tokens(tokens)

    def run_tokens(self, tokens: list[ShellToken]) -> None:
        assignments: dict[str, _Var] = {}
        while tokens and (assignment := self.assignment(tokens[0])) is not None:
            name, var = assignment
            assignments[name] = var
            tokens = tokens[1:]
        if not tokens:
            for name, var in assignments.items():
                previous = self.variables.get(name)
                var.exported = previous is not None and previous.exported
                self.variables[name] = var
            return
        builtin = tokens[0].literal()
        if builtin in ("export", "unset"):
            self.export_or_unset(builtin == "export", tokens[1:])
            return
        fields: list[tuple[_Field, bool]] = []
        for token in tokens:
            fields.extend(self.expand(token))
        env = {name: var for name, var in self.variables.items() if var.exported}
        env.update(assignments)
        self.run_fields(fields, env)

    def run_fields(self, fields: list[tuple[_Field, bool]], env: dict[str, _Var]) -> None:
        fields = _strip_wrappers(fields, env, self.wrappers)
        if not fields:
            return
        script = _shell_script(fields)
        if script is not None and self.depth < MAX_DEPTH:
            inner = {name: _Var(var.text, var.chars, var.word) for name, var in env.items()}
            positional = [f for f, _ in fields[script + 1 :]]
            nested = _Shell(inner, positional, self.depth + 1, self.out, self.budget, self.wrappers)
            nested.run_script(fields[script][0].chars)
            return
        words = tuple(f.word(split) for f, split in fields)
        public = {name: Variable(var.known(), var.word) for name, var in env.items()}
        self.out.append(Command(words, public))

    # -- assignments and builtins --------------------------------------------------------------

    def assignment(self, token: ShellToken) -> tuple[str, _Var] | None:
        """``NAME=value`` as a token: the name and the (unsplit) value, else None."""
        name = ""
        for index, piece in enumerate(token.pieces):
            if not isinstance(piece, Char) or piece.quoted or piece.hole is not None:
                return None
            if piece.char == "=":
                if not is_name(name):
                    return None
                value_token = ShellToken(piece.last, token.last, token.pieces[index + 1 :])
                value = _Field(SourcedText(), self.extent(piece.last, token.last))
                for part, _ in self.expand(value_token, split=False):
                    value.chars.extend(part.chars)
                    value.variables.extend(part.variables)
                return name, _Var(value.text(), value.chars, value.word())
            name += piece.char
        return None

    def export_or_unset(self, export: bool, tokens: list[ShellToken]) -> None:
        for token in tokens:
            assignment = self.assignment(token) if export else None
            if assignment is not None:
                name, var = assignment
                self.variables[name] = var
                continue
            name = token.literal() or ""
            if not is_name(name):
                continue
            if not export:
                self.variables.pop(name, None)
            elif name in self.variables:
                self.variables[name].exported = True

    # -- expansion -----------------------------------------------------------------------------

    def extent(self, first: int, last: int) -> Source:
        return self.chars.extent(first, last)

    def expand(self, token: ShellToken, split: bool = True) -> list[tuple[_Field, bool]]:
        """The fields of a word: expansions, field splitting (when ``split``) and quote removal.
        Each comes with whether it was split out of a longer word."""
        fields: list[_Field] = []
        current = _Field(SourcedText(), self.extent(token.first, token.last))
        did_split = False

        def close() -> None:
            nonlocal current, did_split
            if len(current.chars) or current.quoted:
                fields.append(current)
            did_split = True
            current = _Field(SourcedText(), current.extent, list(current.variables))

        def add(chars: SourcedText, quoted: bool) -> None:
            for index in range(len(chars)):
                if (
                    split
                    and not quoted
                    and chars.holes[index] is None
                    and (chars.text[index] in _FIELD_SEPARATORS)
                ):
                    if len(current.chars) or current.quoted:
                        close()
                    continue
                current.chars.add(chars.text[index], chars.sources[index], chars.holes[index])

        for piece in token.pieces:
            if isinstance(piece, Char):
                if piece.char:
                    current.chars.add(piece.char, self.extent(piece.first, piece.last), piece.hole)
                current.quoted = current.quoted or piece.quoted
            elif isinstance(piece, Substitution):
                self.raw(current.chars, piece.first, piece.last, hole=self.raw_text(piece))
            elif (
                piece.name == "@"
                and piece.quoted
                and self.positional is not None
                and self.budget.take(sum(len(a.chars) for a in self.positional[1:]))
            ):
                for index, argument in enumerate(self.positional[1:]):
                    if index:
                        close()
                    current.chars.extend(argument.chars)
                current.quoted = current.quoted or bool(self.positional[1:])
            else:
                value = self.parameter(piece)
                current.variables.append(piece.name)
                if value is _TOO_LONG or (value is not None and not self.budget.take(len(value))):
                    hole = f"{piece.name} ({NOT_EXPANDED})"
                    self.raw(current.chars, piece.first, piece.last, hole=hole)
                elif value is None:
                    self.raw(current.chars, piece.first, piece.last, hole=piece.name)
                else:
                    add(value, piece.quoted)
                    current.quoted = current.quoted or piece.quoted
        if len(current.chars) or current.quoted:
            fields.append(current)
        return [(f, did_split) for f in fields]

    def raw(self, chars: SourcedText, first: int, last: int, hole: str) -> None:
        for index in range(first, min(last, len(self.chars))):
            chars.add(self.chars.text[index], self.chars.sources[index], hole)

    def raw_text(self, piece: Substitution) -> str:
        return "".join(self.chars.text[piece.first : piece.last])

    def parameter(self, piece: Parameter) -> SourcedText | None:
        """The value of ``$name`` / ``${name<op>word}``; None when it cannot be known."""
        value = self.lookup(piece.name, self.extent(piece.first, piece.last))
        if value is None or value is _TOO_LONG:
            return value
        is_set = value is not _UNSET
        empty = not is_set or len(value) == 0
        op = piece.operator
        if op in (":-", ":="):
            return self.default(piece) if empty else value
        if op in ("-", "="):
            return value if is_set else self.default(piece)
        if op == ":+":
            return SourcedText() if empty else self.default(piece)
        if op == "+":
            return self.default(piece) if is_set else SourcedText()
        if op == ":?":
            return None if empty else value
        return value if is_set else None  # no operator, or "?"

    def default(self, piece: Parameter) -> SourcedText:
        token = ShellToken(piece.first, piece.last, piece.default)
        fields = self.expand(token, split=False)
        chars = SourcedText()
        for field_, _ in fields:
            chars.extend(field_.chars)
        return chars

    def lookup(self, name: str, reference: Source) -> SourcedText | None:
        """A parameter's characters: ``_UNSET`` when known to be unset, None when unknown."""
        if name.isdigit():
            if self.positional is None:
                return None
            index = int(name)
            return self.positional[index].chars if index < len(self.positional) else SourcedText()
        if name == "#":
            if self.positional is None:
                return None
            return _sourced(str(max(len(self.positional) - 1, 0)), reference)
        if name in ("@", "*"):
            if self.positional is None:
                return None
            if sum(len(a.chars) + 1 for a in self.positional[1:]) > self.budget.left:
                return _TOO_LONG  # not joined: each reference would copy them all
            joined = SourcedText()
            for index, argument in enumerate(self.positional[1:]):
                if index:
                    joined.add(" ", reference)
                joined.extend(argument.chars)
            return joined
        if name in SPECIAL_PARAMETERS:
            return None
        var = self.variables.get(name)
        if var is None:
            return _UNSET
        if var.text is None:
            return None
        if var.chars is None:  # from the caller's env: placed at the reference
            return _TOO_LONG if len(var.text) > self.budget.left else _sourced(var.text, reference)
        return var.chars


_UNSET = SourcedText()  # a parameter known to be unset (never modified)
_TOO_LONG = SourcedText()  # a value longer than the expansions left to the script (never modified)


def _sourced(text: str, source: Source) -> SourcedText:
    chars = SourcedText()
    chars.add_text(text, source)
    return chars


def _strip_wrappers(
    fields: list[tuple[_Field, bool]], env: dict[str, _Var], wrappers: Wrappers
) -> list[tuple[_Field, bool]]:
    """Drop the ``exec``, ``nohup``, ``time``, ``command`` and ``env`` wrappers and the caller's
    ``wrappers``; ``env``'s assignments join the command's environment."""
    while fields:
        program = _basename(fields[0][0].text())
        if program in wrappers:
            fields = _skip_options(fields[1:], takes_value=tuple(wrappers[program]))
        elif program in ("nohup", "command", "exec"):
            fields = _skip_options(fields[1:], takes_value=("-a",) if program == "exec" else ())
        elif program == "time":
            fields = _skip_options(fields[1:], takes_value=("-f", "-o"))
        elif program == "env":
            fields = _env_wrapper(fields[1:], env)
        else:
            return fields
    return fields


def _skip_options(
    fields: list[tuple[_Field, bool]], takes_value: tuple[str, ...]
) -> list[tuple[_Field, bool]]:
    while fields and fields[0][0].text().startswith("-") and fields[0][0].text() != "-":
        option = fields[0][0].text()
        fields = fields[2:] if option in takes_value else fields[1:]
        if option == "--":
            break
    return fields


def _env_wrapper(
    fields: list[tuple[_Field, bool]], env: dict[str, _Var]
) -> list[tuple[_Field, bool]]:
    while fields:
        text = fields[0][0].text()
        if text in ("-i", "--ignore-environment", "-"):
            env.clear()
        elif text in ("-u", "--unset"):
            if len(fields) > 1:
                env.pop(fields[1][0].text(), None)
            fields = fields[1:]
        elif text.startswith("-") and text != "--":
            pass
        elif "=" in text and is_name(text.partition("=")[0]):
            name = text.partition("=")[0]
            whole = fields[0][0]
            value = whole.chars.part(len(name) + 1)
            item, _, end = whole.extent
            extent = value.extent(0, len(value)) if len(value) else (item, end, end)
            env[name] = _Var("".join(value.text), value, _Field(value, extent).word())
        elif text != "--":
            return fields
        fields = fields[1:]
    return fields


def _shell_script(fields: list[tuple[_Field, bool]]) -> int | None:
    """The index of the script in ``sh [options] -c SCRIPT [NAME [ARGS]]``, or None."""
    if _basename(fields[0][0].text()) not in _SHELLS:
        return None
    has_c = False
    index = 1
    while index < len(fields):
        option = fields[index][0].text()
        if option == "--":
            index += 1
            break
        if option in ("-o", "+o", "-O", "+O"):
            index += 2
            continue
        if option.startswith("--") or (option[:1] in "-+" and len(option) > 1):
            has_c = has_c or (not option.startswith("--") and "c" in option[1:])
            index += 1
            continue
        break
    return index if has_c and index < len(fields) else None


def _basename(program: str) -> str:
    return program.rsplit("/", 1)[-1]
