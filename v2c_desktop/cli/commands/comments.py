"""`v2c comments VIDEO [--limit N] [--refresh]`: what viewers wrote under a video.

Read from the video's site through yt-dlp (YouTube's top comments first) and kept with the
video, so asking again for no more than the library holds needs no network. A video not in
the library is imported first; one without captions still shows its comments.
"""

from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path

from v2c_desktop.core.domain.comments import DEFAULT_LIMIT, MAX_LIMIT, Comment, Comments

from ..context import open_context
from ..output import StderrProgress, emit_json
from .add import add_web_options

REPLY_INDENT = "    "


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "comments",
        parents=[common],
        help="a video's comments from its site (imported first if new), kept in the library",
    )
    p.add_argument("video", metavar="VIDEO", help="video URL, id, YouTube id or exact title")
    p.add_argument(
        "--limit",
        type=int,
        default=DEFAULT_LIMIT,
        metavar="N",
        help=f"at most N comments, replies included (1-{MAX_LIMIT}, default {DEFAULT_LIMIT})",
    )
    p.add_argument(
        "--refresh",
        action="store_true",
        help="read them from the site again even when the library holds enough",
    )
    add_web_options(p)  # the video is read from the web (and imported if new)
    p.set_defaults(handler=run, needs_web=True)


async def run(args: argparse.Namespace) -> int:
    video = args.video
    if Path(video).exists():  # the library's owner may run in another folder
        video = str(Path(video).resolve())
    async with open_context(args) as api:
        found = await api.get_comments(video, args.limit, args.refresh, progress=StderrProgress())
    if args.json:
        emit_json({**asdict(found), "count": found.count})
        return 0
    for line in comment_lines(found, args.limit):
        print(line)
    return 0


def comment_lines(found: Comments, limit: int) -> list[str]:
    """The header, what the numbers mean, then each comment; replies indented."""
    lines = [f"{found.title}  ({found.video_id})"]
    if found.url:
        lines.append(found.url)
    if found.note:
        lines.append(found.note)
    if found.disabled:
        lines.append("Comments are turned off for this video.")
    elif not found.comments:
        lines.append("No comments.")
    else:
        where = (
            f"from the library (read from the site {found.fetched_at}; --refresh reads again)"
            if found.from_library
            else f"read from the site {found.fetched_at}"
        )
        more = (
            "" if found.complete else f"; there may be more (--limit {min(limit * 2, MAX_LIMIT)})"
        )
        lines.append(f"{found.count} comments, {where}{more}")
    for comment in found.comments:
        lines.append("")
        lines.extend(one_comment(comment))
    return lines


def one_comment(comment: Comment) -> list[str]:
    indent = REPLY_INDENT if comment.is_reply else ""
    head = ("↳ " if comment.is_reply else "") + comment.facts
    body = [f"{indent}  {line}" for line in comment.text.splitlines() or [""]]
    return [indent + head, *body]
