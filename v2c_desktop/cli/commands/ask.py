"""`v2c ask QUESTION ...` and `v2c chats ...`: cited answers, streamed, and saved chats."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from v2c_desktop.core.ask.events import AskDelta, AskDone, AskError, AskMeta, AskRequest
from v2c_desktop.core.errors import V2CError, bad_request
from v2c_desktop.core.ids import is_web
from v2c_desktop.core.timecode import clock

from ..context import open_context
from ..invocation import command
from ..output import emit_json
from .add import add_web_options


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "ask",
        parents=[common],
        help="ask the videos a question; every sentence cites [n]",
    )
    p.add_argument("question")
    p.add_argument("urls", nargs="*", metavar="URL", help="videos to import (if new) and ask")
    p.add_argument("--video", action="append", metavar="ID", default=[])
    p.add_argument("--collection", metavar="ID")
    p.add_argument("--chat", metavar="ID", help="continue a saved chat")
    p.add_argument("--model", metavar="ID", help="chat model id (see `v2c models list`)")
    p.add_argument("--strict", action="store_true", help="that model or an error, no fallback")
    p.add_argument("--extractive", action="store_true", help="quote passages, generate nothing")
    p.add_argument("--max-tokens", type=int, default=768, metavar="N")
    add_web_options(p)  # for the URLs it imports first
    p.set_defaults(handler=run_ask, needs_web=True)

    c = sub.add_parser(
        "chats", parents=[common], help="saved chats: list, show, rename, rm, export"
    )
    actions = c.add_subparsers(dest="action", metavar="ACTION", required=True)
    a = actions.add_parser("list", parents=[common], help="saved chats, newest first")
    a.set_defaults(handler=run_chats_list)
    for name, handler, what in (
        ("show", run_chats_show, "one chat's questions and cited answers"),
        ("export", run_chats_export, "one chat as Markdown with timestamp links"),
        ("rm", run_chats_rm, "delete a chat"),
    ):
        a = actions.add_parser(name, parents=[common], help=what)
        a.add_argument("chat", metavar="ID", help="chat id (see `v2c chats list`)")
        a.set_defaults(handler=handler)
    a = actions.add_parser("rename", parents=[common], help="give a chat a title")
    a.add_argument("chat", metavar="ID", help="chat id (see `v2c chats list`)")
    a.add_argument("title")
    a.set_defaults(handler=run_chats_rename)


def citation_line(c: Any) -> str:
    """`[n] Title @ m:ss <url>` and its quote; an unsupported citation gets no link."""
    quote = f"\n    “{c.shown_quote}”" if c.quote else ""
    if not c.verified and c.reason:
        return f"[{c.n}] {c.title} @ {clock(c.start)} (unsupported: {c.reason})"
    return f"[{c.n}] {c.title} @ {clock(c.start)} <{c.url}>{quote}"


def size_text(size: int) -> str:
    return f"{size / 1e9:.1f} GB" if size >= 1e9 else f"{size / 1e6:.0f} MB"


def extractive_note(meta: AskMeta) -> list[str]:
    """Why no model wrote the answer and, unless the user asked for that, how to get one."""
    lines = [f"No chat model wrote this answer: {meta.why_extractive or 'none was used'}."]
    if meta.why_extractive.startswith("you asked"):
        return lines
    ways = []
    if meta.suggestion is not None:
        ways.append(
            f"`{command()} models pull {meta.suggestion.id}` "
            f"(a {size_text(meta.suggestion.size_bytes)} download)"
        )
    ways.append("start Ollama or LM Studio on this computer (found automatically)")
    lines.append("For written answers: " + ", or ".join(ways) + f"; see `{command()} models list`.")
    return lines


async def run_ask(args: argparse.Namespace) -> int:
    if args.strict and not args.model:
        raise bad_request(
            "--strict needs --model ID: the model that must answer",
            "add --model ID (see `v2c models list`), or drop --strict to use the chat chain",
        )
    urls = [u if is_web(u) else str(Path(u).expanduser().resolve()) for u in args.urls]
    request = AskRequest(
        question=args.question,
        video_ids=tuple(args.video),
        collection=args.collection,
        urls=tuple(urls),
        chat_id=args.chat,
        model=args.model,
        strict=args.strict,
        extractive=args.extractive,
        max_tokens=args.max_tokens,
    )
    final: AskDone | None = None
    meta: AskMeta | None = None
    streamed = False
    async with open_context(args) as api:
        async for event in api.ask(request):
            if isinstance(event, AskMeta):
                meta = event
                if not args.json:
                    source = "extractive answer" if event.extractive else f"model {event.model}"
                    print(f"({source}; chat {event.chat_id})", file=sys.stderr)
            elif isinstance(event, AskDelta) and not args.json:
                sys.stderr.flush()
                sys.stdout.write(event.text)
                sys.stdout.flush()
                streamed = True
            elif isinstance(event, AskDone):
                final = event
            elif isinstance(event, AskError):
                if streamed:
                    print()  # end the words shown so far before the error
                raise ask_error(event, strict=args.strict)
    if final is None:
        raise V2CError("internal", "the answer ended without a result", "ask again")
    if args.json:
        out = asdict(final)
        if meta is not None and final.extractive:
            out["why_extractive"] = meta.why_extractive
            out["suggestion"] = asdict(meta.suggestion) if meta.suggestion else None
        emit_json(out)
        return 0
    print("\n")
    if final.citations:
        print(f"Sources ({len(final.citations)}):")
    for c in final.citations:
        print(citation_line(c))
    if final.unverified:
        print(f"(removed citations that matched no source: {final.unverified})", file=sys.stderr)
    if final.cut:
        print(f"(the answer was cut: {final.cut})", file=sys.stderr)
    if final.extractive and meta is not None:
        print("", file=sys.stderr)
        for line in extractive_note(meta):
            print(line, file=sys.stderr)
    return 0


def ask_error(event: AskError, *, strict: bool) -> V2CError:
    """The failed answer as an error; `attempts` lists every model tried and why it failed."""
    hint = event.hint
    if strict and event.code == "upstream":
        hint += "; without --strict the other models of the chat chain may answer"
    return V2CError(event.code, event.message, hint, {"attempts": event.attempts})


async def run_chats_list(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        chats = await api.list_chats()
    if args.json:
        emit_json({"chats": [asdict(c) for c in chats]})
    else:
        for c in chats:
            print(f"{c.id:20} {c.updated_at}  {c.title}")
    return 0


async def run_chats_show(args: argparse.Namespace) -> int:
    """The chat as Markdown (what `export` writes), or the whole record with `--json`."""
    async with open_context(args) as api:
        if args.json:
            emit_json(asdict(await api.get_chat(args.chat)))
            return 0
        text = await api.export_chat(args.chat)
    sys.stdout.write(text)
    return 0


async def run_chats_export(args: argparse.Namespace) -> int:
    """Markdown with timestamp links; `--json` wraps it with the chat's id and title."""
    async with open_context(args) as api:
        text = await api.export_chat(args.chat)
        chat = await api.get_chat(args.chat) if args.json else None
    if chat is not None:
        emit_json({"id": chat.id, "title": chat.title, "markdown": text})
    else:
        sys.stdout.write(text)
    return 0


async def run_chats_rename(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        await api.rename_chat(args.chat, args.title)
        chat = await api.get_chat(args.chat)
    if args.json:
        emit_json({"id": chat.id, "title": chat.title})
    else:
        print(f"renamed {chat.id}: {chat.title}")
    return 0


async def run_chats_rm(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        await api.delete_chat(args.chat)
    if args.json:
        emit_json({"removed": args.chat})
    else:
        print(f"deleted {args.chat}")
    return 0
