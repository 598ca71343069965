"""`v2c transcript VIDEO ...` and `v2c outline VIDEO`: reading a saved transcript back."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from typing import Any

from v2c_desktop.core.errors import bad_request
from v2c_desktop.core.render import (
    FORMATS,
    outline,
    paginate,
    render,
    render_outline,
    render_section,
    select_section,
)

from ..context import open_context
from ..output import emit_json


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "transcript", parents=[common], help="print a transcript (whole, a section, or a page)"
    )
    p.add_argument("video", metavar="VIDEO", help="video id, URL, file path or exact title")
    p.add_argument("--format", default="text", choices=sorted(FORMATS), help="output format")
    p.add_argument("--from", dest="start", metavar="T", help="start time: 90, 1:30 or 1:02:03")
    p.add_argument("--to", dest="end", metavar="T", help="end time")
    p.add_argument("--chapter", metavar="C", help="chapter number or title (exact, prefix, part)")
    p.add_argument("--max-tokens", type=int, metavar="N", help="page the output to N tokens")
    p.add_argument("--cursor", metavar="C", help="next_cursor of the previous page (seg:N)")
    p.add_argument("--no-timestamps", action="store_true", help="flowing text without [m:ss]")
    p.set_defaults(handler=run_transcript)
    p = sub.add_parser("outline", parents=[common], help="chapters (or 5-minute sections)")
    p.add_argument("video", metavar="VIDEO")
    p.set_defaults(handler=run_outline)


async def run_transcript(args: argparse.Namespace) -> int:
    if args.chapter and (args.start or args.end):
        raise bad_request("give --chapter or --from/--to, not both", "drop one of them")
    if args.cursor and not args.max_tokens:
        raise bad_request("--cursor goes with --max-tokens", "pass the same --max-tokens again")
    if args.max_tokens is not None and args.max_tokens < 1:
        raise bad_request("--max-tokens must be at least 1", "try --max-tokens 4000")
    async with open_context(args) as api:
        record = await api.get_video(args.video)
    timestamps = not args.no_timestamps
    section = None
    if args.chapter or args.start or args.end:
        section = select_section(record, chapter=args.chapter, start=args.start, end=args.end)
    out: dict[str, Any] = {"video_id": record.video.id, "format": args.format}
    if section is not None:
        out["section"] = {
            "title": section.title,
            "start": section.start,
            "end": section.end,
            "tokens": section.tokens,
        }
    if args.max_tokens:
        page = paginate(
            record,
            args.format,
            max_tokens=args.max_tokens,
            cursor=args.cursor,
            segments=section.segments if section else None,
            timestamps=timestamps,
        )
        text = page.text
        out.update(
            cursor=page.cursor,
            next_cursor=page.next_cursor,
            tokens=page.tokens,
            first_segment=page.first_segment,
            last_segment=page.last_segment,
            total_segments=page.total_segments,
        )
    elif section is not None:
        text = render_section(record, section, args.format, timestamps=timestamps)
    else:
        text = render(record, args.format, timestamps=timestamps)
    if args.json:
        out["content"] = text
        emit_json(out)
        return 0
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    if args.max_tokens:
        nxt = out.get("next_cursor")
        print(f"next cursor: {nxt}" if nxt else "last page", file=sys.stderr)
    return 0


async def run_outline(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        record = await api.get_video(args.video)
    result = outline(record)
    if args.json:
        data = asdict(result)
        data["video_id"] = record.video.id
        emit_json(data)
    else:
        sys.stdout.write(render_outline(result))
    return 0
