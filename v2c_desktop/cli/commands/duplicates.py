"""`v2c duplicates [--collection ID] [VIDEO ...]`: re-uploads and clips, with the evidence."""

from __future__ import annotations

import argparse
from dataclasses import asdict

from v2c_desktop.core.timecode import clock

from ..context import open_context
from ..output import emit_json


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "duplicates",
        parents=[common],
        help="find re-uploads and clips (the whole library, a collection or these videos)",
    )
    p.add_argument("videos", nargs="*", metavar="VIDEO", help="video id, URL, path or title")
    p.add_argument("--collection", metavar="ID", help="this collection's videos")
    p.set_defaults(handler=run)


async def run(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        ids = [await api.resolve(v) for v in args.videos] if args.videos else None
        groups = await api.find_duplicates(ids, args.collection)
        if args.json:
            emit_json({"groups": [asdict(g) for g in groups]})
            return 0
        if not groups:
            print("no duplicates")
        for group in groups:
            original = await api.get_video(group.original)
            print(f"{original.video.title or group.original}  ({group.original}, original)")
            for c in group.copies:
                copy = await api.get_video(c.video_id)
                print(
                    f"  {c.kind}: {copy.video.title or c.video_id} ({c.video_id}) "
                    f"overlap {c.overlap:.0%}, at [{clock(c.start)}-{clock(c.end)}] "
                    f"of the original (offset {c.offset:+.1f} s)"
                )
    return 0
