"""`v2c add SOURCE... [--collection NAME]`: import videos, playlists, channels, files, folders."""

from __future__ import annotations

import argparse
import sys

from v2c_desktop.core.library import ImportOutcome

from ..context import open_context
from ..output import StderrProgress, emit_json


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "add",
        parents=[common],
        help="import videos, playlists, channels, subtitle files, folders",
        description="Import each SOURCE: a video, playlist or channel URL; a subtitle file; a "
        "media file with a subtitle file beside it; a folder (e.g. archived with yt-dlp "
        "--write-subs --write-info-json); or a .txt file with one URL per line.",
    )
    p.add_argument("sources", nargs="+", metavar="SOURCE")
    p.add_argument("--collection", metavar="NAME", help="also add the videos to this collection")
    p.add_argument("--refresh", action="store_true", help="import again even if already saved")
    p.add_argument(
        "--lang",
        action="append",
        metavar="LANG",
        help="preferred caption language (repeatable; default: the video's own, then en)",
    )
    p.add_argument(
        "--cookies-from-browser",
        metavar="BROWSER",
        help="let yt-dlp use this browser's cookies (firefox, chrome, ...)",
    )
    p.add_argument("--proxy", metavar="URL", help="HTTP/SOCKS proxy for web imports")
    p.add_argument(
        "--no-index",
        action="store_true",
        help="save only; search indexes the videos on its first run",
    )
    p.set_defaults(handler=run, needs_web=True)


def print_outcome(outcome: ImportOutcome) -> None:
    """One line per item as soon as it is settled, with the hint when it failed."""
    print(f"{outcome.status:8} {outcome.video_id or '-':28} {outcome.title or outcome.source}")
    if outcome.error is not None:
        print(f"         {outcome.error.code}: {outcome.error.message}")
        if outcome.error.hint:
            print(f"         hint: {outcome.error.hint}")
    elif outcome.status == "skipped" and outcome.reason:
        print(f"         {outcome.reason}")
    sys.stdout.flush()


async def run(args: argparse.Namespace) -> int:
    async with open_context(args) as services:
        library = services.library
        result = await library.add(
            args.sources,
            collection=args.collection,
            refresh=args.refresh,
            languages=tuple(args.lang or ()),
            progress=StderrProgress(),
            on_outcome=None if args.json else print_outcome,
        )
    if args.json:
        emit_json(result.to_dict())
    else:
        print(
            f"added {result.count('added')}, updated {result.count('updated')}, "
            f"skipped {result.count('skipped')}, failed {result.count('failed')}"
            + (f" (collection {result.collection.id})" if result.collection else "")
        )
    return 1 if result.count("failed") else 0
