"""`v2c brief QUESTION ...` and `v2c briefs list|show|rename|rerun|rm`: cited briefs over
many videos, built by the library's owner, saved in the library."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from v2c_desktop.core.briefs.events import BriefDone, BriefRequest, BriefStep
from v2c_desktop.core.briefs.render import as_json, markdown, words_of
from v2c_desktop.core.errors import V2CError, bad_request

from ..context import open_context
from ..output import emit_json

TEMPLATES = ("brief", "summary", "buyer-guide", "tutorial-steps", "comparison")


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "brief", parents=[common], help="a cited brief (or template, or your schema) of many videos"
    )
    p.add_argument("question", help="what the brief answers, e.g. 'How do networks learn?'")
    p.add_argument(
        "--video", action="append", metavar="ID", default=[], help="a video (repeat for more)"
    )
    p.add_argument("--collection", metavar="ID", help="every video of a collection")
    p.add_argument("--search", metavar="QUERY", help="brief the videos a search finds")
    p.add_argument("--template", choices=TEMPLATES, default="brief")
    p.add_argument("--schema", type=Path, metavar="FILE.json", help="your own JSON Schema")
    p.add_argument("--model", metavar="ID", help="chat model id (see `v2c models list`)")
    p.add_argument("--strict", action="store_true", help="that model or an error")
    p.add_argument("--extractive", action="store_true", help="no model: the best passages")
    p.add_argument(
        "--skip-sponsors",
        action="store_true",
        help="leave out the sponsor reads SponsorBlock marks (the segments kept in the library)",
    )
    p.add_argument("--max-words", type=int, default=400, metavar="N", help="length (400)")
    p.add_argument("--title", default="", help="its name in `v2c briefs list`")
    p.add_argument("--markdown", action="store_true", help="print the Markdown (default)")
    p.set_defaults(handler=run_brief)

    b = sub.add_parser("briefs", parents=[common], help="saved briefs: list, show, rerun, rm")
    actions = b.add_subparsers(dest="action", metavar="ACTION", required=True)
    a = actions.add_parser("list", parents=[common], help="the saved briefs, newest first")
    a.set_defaults(handler=run_list)
    a = actions.add_parser("show", parents=[common], help="a saved brief as Markdown")
    a.add_argument("brief")
    a.set_defaults(handler=run_show)
    a = actions.add_parser("rerun", parents=[common], help="build again (cached maps reused)")
    a.add_argument("brief")
    a.add_argument("--model", metavar="ID")
    a.set_defaults(handler=run_rerun)
    a = actions.add_parser("rename", parents=[common], help="give a saved brief a title")
    a.add_argument("brief")
    a.add_argument("title")
    a.set_defaults(handler=run_rename)
    a = actions.add_parser("rm", parents=[common], help="delete a saved brief")
    a.add_argument("brief")
    a.set_defaults(handler=run_rm)


def _schema(path: Path | None) -> dict[str, Any] | None:
    if path is None:
        return None
    try:
        value = json.loads(path.expanduser().read_text(encoding="utf-8"))
    except OSError as exc:
        raise bad_request(f"cannot read {path}: {exc.strerror}", "check the path") from None
    except ValueError as exc:
        raise bad_request(f"{path} is not JSON: {exc}", "give a JSON Schema file") from None
    if not isinstance(value, dict):
        raise bad_request(f"{path} is not a JSON Schema object", "give a JSON Schema file")
    return value


async def _build(args: argparse.Namespace, request: BriefRequest) -> int:
    async with open_context(args) as api:
        brief = None
        async for event in api.build_brief(request):
            if isinstance(event, BriefStep):  # stderr: stdout stays the brief (or its JSON)
                total = f"/{event.total}" if event.total is not None else ""
                print(f"[{event.stage} {event.done}{total}] {event.message}", file=sys.stderr)
            elif isinstance(event, BriefDone):
                brief = event.brief
    if brief is None:
        raise V2CError("internal", "the brief ended without a result", "build it again")
    if args.json:
        emit_json(as_json(brief))
    else:
        sys.stdout.write(markdown(brief, request.max_words))
        print(f"(saved as {brief.id}; {brief.status})", file=sys.stderr)
    return 0


async def run_brief(args: argparse.Namespace) -> int:
    request = BriefRequest(
        question=args.question,
        video_ids=tuple(args.video),
        collection=args.collection,
        search=args.search,
        template=args.template,
        schema=_schema(args.schema),
        model=args.model,
        strict=args.strict,
        extractive=args.extractive,
        max_words=args.max_words,
        title=args.title,
        skip_sponsors=args.skip_sponsors,
    )
    return await _build(args, request)


async def run_rerun(args: argparse.Namespace) -> int:
    return await _build(args, BriefRequest(question="", rerun=args.brief, model=args.model))


async def run_list(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        briefs = await api.list_briefs()
    if args.json:
        emit_json({"briefs": [asdict(b) for b in briefs]})
        return 0
    for b in briefs:
        print(f"{b.id:20} {b.updated_at}  {b.status:8} {b.template:14} {b.title}")
    return 0


async def run_show(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        brief = await api.get_brief(args.brief)
    if args.json:
        emit_json(as_json(brief))
    else:
        sys.stdout.write(markdown(brief, words_of(brief)))
    return 0


async def run_rename(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        await api.rename_brief(args.brief, args.title)
    if args.json:
        emit_json({"id": args.brief, "title": args.title})
    else:
        print(f"renamed {args.brief}: {args.title}")
    return 0


async def run_rm(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        await api.delete_brief(args.brief)
    if args.json:
        emit_json({"removed": args.brief})
    else:
        print(f"deleted {args.brief}")
    return 0
