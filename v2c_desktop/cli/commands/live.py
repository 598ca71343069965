"""`v2c live URL [--max-minutes M]`: watch a live stream, printing its transcript as it plays.

Each line is printed (`[m:ss] text`, from the start of watching) as soon as it is heard;
what the watch says about itself goes to stderr. When the stream ends or the minutes are up,
the transcript is saved to the library and its id printed; Ctrl-C stops at once and saves
nothing. `--json` prints the saved result as one object at the end instead.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict

from v2c_desktop.core.domain.live import (
    DEFAULT_MINUTES,
    LiveDone,
    LiveNote,
    LiveResult,
    LiveStarted,
    LiveText,
)
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.timecode import clock

from ..context import open_context
from ..output import emit_json


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "live",
        parents=[common],
        help="watch a live stream and print its transcript as it plays, then save it",
        description="Watch the live stream at URL (a page yt-dlp reads, or an HLS .m3u8 "
        "playlist): its live captions when the site offers them, else speech-to-text on its "
        "audio as it arrives (Whisper, on this computer). Lines are printed as they are "
        "heard; when the stream ends or the minutes are up, the transcript is saved to the "
        "library as a video of its own. Ctrl-C stops at once and saves nothing.",
    )
    p.add_argument("url", metavar="URL", help="the live stream's page or playlist URL")
    p.add_argument(
        "--max-minutes",
        type=float,
        default=DEFAULT_MINUTES,
        metavar="M",
        help=f"stop and save after M minutes (default {DEFAULT_MINUTES:g}; 0.5 is fine)",
    )
    p.add_argument(
        "--model",
        metavar="ID",
        help="speech-to-text model: a catalog id (tiny.en) or a Whisper model folder in "
        "CTranslate2 format (default: tiny.en, where installed)",
    )
    p.set_defaults(handler=run)


async def run(args: argparse.Namespace) -> int:
    result: LiveResult | None = None
    async with open_context(args) as api:
        async for event in api.watch_live(args.url, args.max_minutes, model=args.model):
            if isinstance(event, LiveStarted):
                print(
                    f"watching {event.title} live ({event.how}) for at most "
                    f"{clock(event.max_minutes * 60)}; Ctrl-C stops without saving",
                    file=sys.stderr,
                )
            elif isinstance(event, LiveText) and not args.json:
                for line in event.lines:
                    print(line.line(), flush=True)
            elif isinstance(event, LiveNote):
                print(f"note: {event.message}", file=sys.stderr)
            elif isinstance(event, LiveDone):
                result = event.result
    if result is None:
        raise V2CError("internal", "the watch ended without a result")
    if args.json:
        emit_json(asdict(result))
        return 0
    why = {
        "stream-ended": "the stream ended",
        "max-minutes": "the time was up",
        "stream-lost": "the stream stopped answering",
    }[result.ended]
    print(
        f"saved {result.video_id}  {result.title}: {len(result.lines)} lines in "
        f"{clock(result.watched)} watched ({why})",
        file=sys.stderr,
    )
    return 0
