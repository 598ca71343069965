"""`v2c mcp [--library PATH]`: serve the library to AI agents over MCP on stdin/stdout, or
with `--http HOST:PORT` over Streamable HTTP; `v2c mcp token add|list|revoke` manages the
bearer tokens the HTTP server accepts.

Agents (Claude Desktop, Cursor, Claude Code) start the stdio server as a subprocess. The
first process on a library becomes its owner and the others (the app, `v2c` commands, more
agents) share it through the owner, so running several never locks anyone out. The HTTP
server is for clients that cannot start a process: it listens on loopback only (unless
`--allow-remote`), wants a token on every request and never offers the tools that write the
user's files.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from v2c_desktop.core.mcp_tokens import add_token, list_tokens, revoke_token
from v2c_desktop.core.paths import library_path

from ..output import emit_json


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "mcp",
        parents=[common],
        help="serve the library to AI agents over MCP (stdio, or HTTP with --http)",
        description="Run an MCP server on stdin/stdout for Claude Desktop, Cursor and other "
        "agents (stdout carries only the protocol; logs go to stderr), or with --http on a "
        "local port for clients that cannot start a process.",
    )
    p.add_argument(
        "--vault",
        type=Path,
        metavar="PATH",
        help="the Obsidian vault agents may export into (default: the one in the settings)",
    )
    p.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve over Streamable HTTP at http://HOST:PORT/mcp instead (e.g. 127.0.0.1:8732; "
        "port 0: any free port); every request needs a token from `v2c mcp token add`",
    )
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="let --http listen on an address other computers can reach",
    )
    # the app starts the HTTP server with this, so it never outlives the app
    p.add_argument("--exit-with-stdin", action="store_true", help=argparse.SUPPRESS)
    p.set_defaults(handler=run)
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    t = actions.add_parser("token", parents=[common], help="the HTTP server's bearer tokens")
    verbs = t.add_subparsers(dest="verb", metavar="VERB", required=True)
    a = verbs.add_parser("add", parents=[common], help="make a token (shown once)")
    a.add_argument("name", metavar="NAME", help="what the token is for, e.g. claude-web")
    a.set_defaults(handler=run_token_add)
    a = verbs.add_parser("list", parents=[common], help="list the tokens (never the tokens)")
    a.set_defaults(handler=run_token_list)
    a = verbs.add_parser("revoke", parents=[common], help="refuse a token from now on")
    a.add_argument("name", metavar="NAME")
    a.set_defaults(handler=run_token_revoke)


async def run(args: argparse.Namespace) -> int:
    library = library_path(args.library)
    if args.http is None:
        from v2c_desktop.mcp.stdio import serve  # the MCP SDK loads only for this command

        await serve(library, args.vault.expanduser() if args.vault else None)
        return 0
    from v2c_desktop.mcp.http import parse_bind, serve_http

    bind = parse_bind(args.http)
    if args.vault:
        print("v2c mcp: --vault is unused over HTTP (no export_obsidian)", file=sys.stderr)
    if not bind.loopback and args.allow_remote:
        print(
            f"v2c mcp: warning: listening on {bind.host}, which other computers may reach; "
            "anyone with a token can read the library",
            file=sys.stderr,
        )
    if not list_tokens():
        print(
            "v2c mcp: no tokens yet, so every request is refused: make one with "
            "`v2c mcp token add NAME`",
            file=sys.stderr,
        )

    def ready(url: str) -> None:
        if args.json:
            print(json.dumps({"url": url}), flush=True)
        else:
            print(f"MCP over HTTP: {url}", flush=True)

    await serve_http(
        library,
        bind,
        allow_remote=args.allow_remote,
        exit_with_stdin=args.exit_with_stdin,
        on_ready=ready,
    )
    return 0


async def run_token_add(args: argparse.Namespace) -> int:
    record, secret = add_token(args.name)
    if args.json:
        emit_json({"name": record.name, "created": record.created, "token": secret})
    else:
        print(secret)
        print(
            f"token {record.name}: shown only now, so copy it; send it as "
            "`Authorization: Bearer <token>`",
            file=sys.stderr,
        )
    return 0


async def run_token_list(args: argparse.Namespace) -> int:
    tokens = list_tokens()
    if args.json:
        rows = [{"name": t.name, "created": t.created, "prefix": t.prefix} for t in tokens]
        emit_json({"tokens": rows})
    elif not tokens:
        print("no tokens yet; make one with `v2c mcp token add NAME`")
    else:
        for t in tokens:
            print(f"{t.name:30} {t.created:22} {t.prefix}…")
    return 0


async def run_token_revoke(args: argparse.Namespace) -> int:
    record = revoke_token(args.name)
    if args.json:
        emit_json({"revoked": record.name})
    else:
        print(f"revoked {record.name}: the HTTP server refuses it from its next request")
    return 0
