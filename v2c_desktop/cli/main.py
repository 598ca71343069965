"""`v2c [--library PATH] COMMAND ... [--json]`: parse, open the library, run, report.

Every failure ends the same way, never with a traceback: the error object
(`{"error": code, "message", "hint"}`, plus `details` where there are some) on stdout with
`--json`, and `error (code): message` / `hint: ...` on stderr either way. The exit status
says which kind it was:

- 1: a `V2CError` (something the user can act on), or a bug (any other exception, shown as
  an `internal` error);
- 2: the command line itself is wrong (unknown command, missing argument, bad value), as
  argparse has it; the error is `bad-request` and `details.usage` holds the usage line;
- 130: interrupted (Ctrl-C); what was saved before stays saved;
- 141: the reader of our output went away (`v2c list | head`).

A bug's traceback is not shown, since it tells a user nothing they can act on. Set
`V2C_DEBUG=1` to have it printed on stderr (after the error lines); the internal error's
hint says so.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import difflib
import os
import re
import sys
import traceback
from collections.abc import Sequence
from typing import NoReturn

from v2c_desktop import __version__
from v2c_desktop.core.errors import V2CError

from .commands import (
    add,
    ask,
    briefs,
    collections,
    comments,
    duplicates,
    export,
    live,
    mcp,
    models,
    search,
    transcribe,
    transcript,
    videos,
)
from .invocation import command
from .output import emit_error
from .terminal import guard_terminals

COMMAND_MODULES = (
    add,
    videos,
    transcript,
    transcribe,
    live,
    collections,
    search,
    ask,
    briefs,
    duplicates,
    comments,
    export,
    models,
    mcp,
)

#: Exit statuses (see the module docstring).
ERROR_STATUS = 1
USAGE_STATUS = 2
INTERRUPTED_STATUS = 130
#: What a shell reports for a program ended by SIGPIPE (128 + 13), as `yes | head` is.
BROKEN_PIPE_STATUS = 141

#: Set (to anything but "" or "0") to print a bug's traceback on stderr.
DEBUG_VARIABLE = "V2C_DEBUG"
INTERRUPTED = "interrupted; what was saved before stays saved"


class UsageError(Exception):
    """The command line could not be parsed; raised instead of argparse's print-and-exit."""

    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(message)
        self.parser = parser
        self.message = message


class CommandParser(argparse.ArgumentParser):
    """argparse, but a bad command line raises `UsageError` so that `main` can report it
    like every other failure (as JSON with `--json`). Sub-commands' parsers are made of
    this class too (`add_subparsers` uses the parent's class)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(self, message)


def common_options() -> argparse.ArgumentParser:
    """Options accepted both before and after the command name."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--library",
        metavar="PATH",
        default=argparse.SUPPRESS,
        help="library file (default: $V2C_LIBRARY, else the user data folder)",
    )
    common.add_argument(
        "--json",
        action="store_true",
        default=argparse.SUPPRESS,
        help="print machine-readable JSON on stdout",
    )
    return common


def build_parser() -> argparse.ArgumentParser:
    common = common_options()
    parser = CommandParser(
        prog="v2c",
        parents=[common],
        description="Turn videos into a library you can search, question and cite.",
    )
    parser.add_argument("--version", action="version", version=f"v2c {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMAND_MODULES:
        module.register(sub, common)
    return parser


def wants_json(argv: Sequence[str]) -> bool:
    """Whether `--json` was given, read from the raw words (for errors before parsing
    finished); words after a `--` are arguments, not options."""
    for word in argv:
        if word == "--":
            return False
        if word == "--json":
            return True
    return False


_INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)")


def usage_error(error: UsageError) -> V2CError:
    """A bad command line as a `bad-request`: argparse's message, a hint naming the help
    to read (and the command meant, when the word is a near miss), the usage line."""
    parser = error.parser
    prog = parser.prog
    shown = command() + prog[len("v2c") :] if prog.startswith("v2c") else prog
    hint = f"see `{shown} --help` for what it takes"
    match = _INVALID_CHOICE.search(error.message)
    if match:
        choices = re.findall(r"'([^']*)'", match.group(2))
        close = difflib.get_close_matches(match.group(1), choices, n=1)
        if close:
            hint = f"did you mean `{shown} {close[0]}`? (see `{shown} --help`)"
    usage = parser.format_usage().strip().removeprefix("usage: ")
    return V2CError("bad-request", error.message, hint, {"usage": usage})


def internal_error(exc: BaseException) -> V2CError:
    """A bug (an exception that is not a `V2CError`), told without a traceback."""
    text = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
    return V2CError(
        "internal",
        f"v2c failed unexpectedly: {type(exc).__name__}" + (f": {text}" if text else ""),
        f"this is a bug in v2c; run the command again with {DEBUG_VARIABLE}=1 to see where "
        "it failed, and report that",
        {"exception": type(exc).__name__},
    )


def debugging() -> bool:
    return os.environ.get(DEBUG_VARIABLE, "") not in ("", "0")


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    guard_terminals()  # titles and captions cannot drive the user's terminal
    as_json = wants_json(words)
    try:
        args = build_parser().parse_args(words)
        as_json = getattr(args, "json", False)
        args.json = as_json
        args.library = getattr(args, "library", None)
        return int(asyncio.run(args.handler(args)))
    except UsageError as error:
        problem = usage_error(error)
        if not as_json:
            print(f"usage: {problem.details['usage']}", file=sys.stderr)
        return report(problem, as_json, USAGE_STATUS)
    except V2CError as error:
        return report(error, as_json, ERROR_STATUS)
    except KeyboardInterrupt:
        # No error object on stdout: the user stopped it, and no error code means that.
        print(INTERRUPTED, file=sys.stderr)
        return INTERRUPTED_STATUS
    except BrokenPipeError:  # `v2c --help | head -1`, `v2c list | head`
        return quiet_broken_pipe()
    except Exception as exc:  # a bug: said plainly, the traceback only on request
        status = report(internal_error(exc), as_json, ERROR_STATUS)
        if debugging():
            traceback.print_exception(exc, file=sys.stderr)
        return status


def report(error: V2CError, as_json: bool, status: int) -> int:
    """Print `error` (the object on stdout with `--json`, the lines on stderr) -> `status`."""
    try:
        emit_error(error, as_json)
        sys.stdout.flush()
    except BrokenPipeError:
        return quiet_broken_pipe()
    return status


def quiet_broken_pipe() -> int:
    """The reader of our output went away (`v2c list | head`): stop without a traceback.

    stdout is pointed at /dev/null so that the interpreter's final flush of what is still
    buffered cannot fail again at exit (the way the Python docs recommend).
    """
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return BROKEN_PIPE_STATUS


if __name__ == "__main__":
    sys.exit(main())
