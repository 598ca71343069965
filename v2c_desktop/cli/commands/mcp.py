"""`v2c mcp [--library PATH]`: serve the library to AI agents over MCP on stdin/stdout.

Agents (Claude Desktop, Cursor, Claude Code) start this as a subprocess. The first process
on a library becomes its owner and the others (the app, `v2c` commands, more agents) share
it through the owner, so running several never locks anyone out.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from v2c_desktop.core.paths import library_path


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "mcp",
        parents=[common],
        help="serve the library to AI agents over MCP (stdio)",
        description="Run an MCP server on stdin/stdout for Claude Desktop, Cursor and other "
        "agents. stdout carries only the protocol; logs go to stderr.",
    )
    p.add_argument(
        "--vault",
        type=Path,
        metavar="PATH",
        help="the Obsidian vault agents may export into (default: the one in the settings)",
    )
    p.set_defaults(handler=run)


async def run(args: argparse.Namespace) -> int:
    from v2c_desktop.mcp.stdio import serve  # the MCP SDK loads only for this command

    await serve(library_path(args.library), args.vault.expanduser() if args.vault else None)
    return 0
