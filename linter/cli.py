"""The ``gpulint`` command: argument parsing, exit codes, and nothing heavy at import time.

Exit codes: 0 no finding at or above --fail-on; 1 findings at or above it; 2 usage,
configuration or internal error (one line on stderr; a traceback only with --debug).
"""

from __future__ import annotations

import argparse
import os
import sys
import types
from collections.abc import Sequence

from linter import version
from linter.commands import NAMES, command
from linter.run import garbage_collection

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class _Version(argparse.Action):
    """``--version``: the installed package's version, read only when asked for."""

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        sys.stdout.write(f"gpulint {version()}\n")
        parser.exit()


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with ``only``, the one sub-command the arguments name is all
    it knows (a pre-commit run imports and registers one command, not eleven: issue 31). The
    usage line names no sub-commands (``COMMAND``), so what it prints is the same either way."""
    parser = argparse.ArgumentParser(
        prog="gpulint",
        description="Lint AI/GPU workload manifests before a GPU is provisioned.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="print the version and exit")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in NAMES if only is None else (only,):
        module = command(name)
        module.register(subparsers.add_parser(name, help=module.HELP, description=module.HELP))
    return parser


def named_command(arguments: Sequence[str]) -> str | None:
    """The sub-command ``arguments`` name, when their first word that is not one of the
    parser's own flags is one; None otherwise (help, a mistake: every command is registered)."""
    for argument in arguments:
        if argument == "--debug":
            continue
        return argument if argument in NAMES else None
    return None


def option_or_file(arguments: Sequence[str]) -> str | None:
    """Why ``arguments`` are refused, or None.

    A file name is untrusted: pre-commit and a shell glob pass a committed file named
    ``--write-baseline=x.yaml`` as an argument, where it would be parsed as an option (the
    findings written to x.yaml, the run exiting 0). Hooks and the Action pass ``--`` before file
    names, and everything after ``--`` is a path, a name that starts with ``-`` included. What
    is left ambiguous is refused rather than guessed: an option that is also the name of a file
    here (a caller that forgot ``--``), and after ``--`` a name that starts with ``-`` and is no
    file (an option put after ``--``, which would be silently ignored as a missing path).
    """
    for index, argument in enumerate(arguments):
        if argument == "--":
            for path in arguments[index + 1 :]:
                if _option_like(path) and not os.path.lexists(path):
                    return f"{path!r} follows -- but is not a file; options go before --"
            return None
        if _option_like(argument) and os.path.lexists(argument):
            return (
                f"{argument!r} is both an option and a file here; put -- before file names "
                "(gpulint check [OPTIONS] -- FILE...)"
            )
    return None


def _option_like(argument: str) -> bool:
    return argument.startswith("-") and argument != "-"


#: pydantic's values of ``PYDANTIC_DISABLE_PLUGINS`` that turn every plugin off.
_ALL_PLUGINS_OFF = ("__all__", "1", "true")
#: The pydantic module that finds plugins; all it is asked for is ``get_plugins``.
_PLUGIN_LOADER = "pydantic.plugin._loader"


def _without_pydantic_plugins() -> None:
    """Run without pydantic plugins, unless the user's environment names some.

    gpulint uses none, and pydantic looks them up when it builds its first validator, in the
    entry points of every installed distribution: a one-file run spent ~3 ms on the search and
    ~16 ms importing ``importlib.metadata`` for it, which the loader module imports even when
    the variable turns plugins off. So with every plugin off, the loader is a module whose
    ``get_plugins`` finds none, which is what pydantic's own returns then (issue 31)."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    if os.environ["PYDANTIC_DISABLE_PLUGINS"] in _ALL_PLUGINS_OFF:
        loader = types.ModuleType(_PLUGIN_LOADER, "No pydantic plugins (linter/cli.py).")
        loader.get_plugins = _no_plugins  # type: ignore[attr-defined]
        sys.modules.setdefault(_PLUGIN_LOADER, loader)


def _no_plugins() -> tuple[()]:
    return ()


def main(argv: Sequence[str] | None = None) -> int:
    _without_pydantic_plugins()  # a pre-commit hook feels every millisecond of start-up
    garbage_collection.pause()
    arguments = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(named_command(arguments))
    mixed = option_or_file(arguments)
    if mixed is not None:
        from linter.printable import printable

        print(f"gpulint: error: {printable(mixed)}", file=sys.stderr)
        return EXIT_ERROR
    args = parser.parse_args(arguments)
    if args.command is None:
        parser.print_help()
        return EXIT_ERROR
    try:
        code: int = command(args.command).run(args)
        return code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as err:  # every known failure is turned into a one-line message below
        from linter.errors import UserError
        from linter.printable import printable

        if args.debug:
            raise
        if isinstance(err, UserError):
            print(f"gpulint: error: {printable(str(err))}", file=sys.stderr)
        else:
            print(
                f"gpulint: internal error: {type(err).__name__}: {printable(str(err))} "
                "(run with --debug for a traceback, and please report it)",
                file=sys.stderr,
            )
        return EXIT_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
