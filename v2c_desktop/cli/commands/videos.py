"""`v2c list`, `v2c show VIDEO`, `v2c rename VIDEO TITLE`, `v2c rm VIDEO`."""

from __future__ import annotations

import argparse
from typing import Any

from v2c_desktop.core.domain.videos import VideoRecord, VideoSummary
from v2c_desktop.core.timecode import clock

from ..context import open_context
from ..output import emit_json


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser("list", parents=[common], help="list the videos in the library")
    p.add_argument("--collection", metavar="ID", help="only this collection's videos")
    p.set_defaults(handler=run_list)
    p = sub.add_parser("show", parents=[common], help="show one video's metadata and chapters")
    p.add_argument("video", metavar="VIDEO", help="video id, URL, file path or exact title")
    p.set_defaults(handler=run_show)
    p = sub.add_parser(
        "rename", parents=[common], help="give a video your own title (kept on re-import)"
    )
    p.add_argument("video", metavar="VIDEO", help="video id, URL, file path or exact title")
    p.add_argument("title")
    p.set_defaults(handler=run_rename)
    p = sub.add_parser("rm", parents=[common], help="remove a video (and its memberships)")
    p.add_argument("videos", nargs="+", metavar="VIDEO")
    p.set_defaults(handler=run_rm)


def summary_dict(s: VideoSummary) -> dict[str, Any]:
    return {
        "id": s.id,
        "title": s.title,
        "channel": s.channel,
        "duration": round(s.duration, 3),
        "origin": s.origin,
        "language": s.language,
        "source": s.url or s.source_path,
        "published": s.published,
        "added_at": s.added_at,
        "segments": s.segment_count,
        "chapters": s.chapter_count,
    }


def record_dict(r: VideoRecord) -> dict[str, Any]:
    v, t = r.video, r.transcript
    return {
        "id": v.id,
        "title": v.title,
        "platform": v.platform,
        "native_id": v.native_id,
        "channel": v.channel,
        "url": v.url,
        "source_path": v.source_path,
        "duration": r.duration,
        "published": v.published,
        "description": v.description,
        "thumbnail_url": v.thumbnail_url,
        "transcript": {
            "origin": t.origin,
            "language": t.language,
            "producer": t.producer,
            "track": t.track_name,
            "translated_from": t.translated_from,
            "segments": len(t.segments),
        },
        "chapters": [{"title": c.title, "start": c.start, "end": c.end} for c in r.chapters],
        "added_at": r.added_at,
        "updated_at": r.updated_at,
    }


async def run_list(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        rows = await api.list_videos(args.collection)
    if args.json:
        emit_json({"videos": [summary_dict(s) for s in rows], "count": len(rows)})
        return 0
    if not rows:
        print("the library is empty; add videos with `v2c add URL|FILE|FOLDER`")
        return 0
    for s in rows:
        print(f"{s.id:28} {clock(s.duration):>8}  {s.origin:16} {s.title}")
    hours = sum(s.duration for s in rows) / 3600
    print(f"{len(rows)} videos, {hours:.1f} hours")
    return 0


async def run_show(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        record = await api.get_video(args.video)
    if args.json:
        emit_json(record_dict(record))
        return 0
    v, t = record.video, record.transcript
    print(v.title)
    for label, value in (
        ("id", v.id),
        ("channel", v.channel),
        ("url", v.url or v.source_path),
        ("duration", clock(record.duration)),
        ("published", v.published or ""),
        (
            "transcript",
            f"{t.origin}, {t.language or 'unknown language'}, {len(t.segments)} "
            f"segments, {t.producer}",
        ),
        ("added", record.added_at),
    ):
        if value:
            print(f"  {label:11} {value}")
    if record.chapters:
        print("  chapters")
        for c in record.chapters:
            print(f"    [{clock(c.start)}] {c.title}")
    return 0


async def run_rename(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        record = await api.rename_video(args.video, args.title)
    if args.json:
        emit_json(record_dict(record))
    else:
        print(f"renamed {record.video.id}: {record.video.title}")
    return 0


async def run_rm(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        removed = [await api.remove(ref) for ref in args.videos]
    if args.json:
        emit_json({"removed": removed})
    else:
        for vid in removed:
            print(f"removed {vid}")
    return 0
