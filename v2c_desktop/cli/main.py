"""`v2c [--library PATH] COMMAND ... [--json]`: parse, open the library, run, report.

Every failure the user can act on is a `V2CError`: printed as message and hint (or as the
error object with `--json`) with a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from collections.abc import Sequence

from v2c_desktop import __version__
from v2c_desktop.core.errors import V2CError

from .commands import add, ask, collections, mcp, models, search, transcript, videos
from .output import emit_error

COMMAND_MODULES = (add, videos, transcript, collections, search, ask, models, mcp)


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
    parser = argparse.ArgumentParser(
        prog="v2c",
        parents=[common],
        description="Turn videos into a library you can search, question and cite.",
    )
    parser.add_argument("--version", action="version", version=f"v2c {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMAND_MODULES:
        module.register(sub, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except BrokenPipeError:  # `v2c --help | head -1`
        return quiet_broken_pipe()
    args.library = getattr(args, "library", None)
    args.json = getattr(args, "json", False)
    try:
        return int(asyncio.run(args.handler(args)))
    except V2CError as error:
        emit_error(error, args.json)
        return 1
    except KeyboardInterrupt:
        print("interrupted; what was saved before stays saved", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return quiet_broken_pipe()


#: What a shell reports for a program ended by SIGPIPE (128 + 13), as `yes | head` is.
BROKEN_PIPE_STATUS = 141


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
