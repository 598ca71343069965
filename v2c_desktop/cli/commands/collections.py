"""`v2c collections list|create|add|show|refresh|watch|unfollow`."""

from __future__ import annotations

import argparse
from typing import Any

from v2c_desktop.core.domain.follow import FollowState
from v2c_desktop.core.domain.videos import Collection

from ..context import open_context
from ..output import emit_json
from .add import AddProgress, print_problems
from .videos import summary_dict


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser("collections", parents=[common], help="group videos into collections")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    a = actions.add_parser("list", parents=[common], help="list collections")
    a.set_defaults(handler=run_list)
    a = actions.add_parser("create", parents=[common], help="create a collection")
    a.add_argument("name")
    a.add_argument("--description", default="")
    a.set_defaults(handler=run_create)
    a = actions.add_parser("add", parents=[common], help="add library videos to a collection")
    a.add_argument("collection", metavar="COLLECTION")
    a.add_argument("videos", nargs="+", metavar="VIDEO")
    a.set_defaults(handler=run_add)
    a = actions.add_parser("show", parents=[common], help="show a collection and its videos")
    a.add_argument("collection", metavar="COLLECTION")
    a.set_defaults(handler=run_show)
    a = actions.add_parser(
        "refresh",
        parents=[common],
        help="import the new uploads of the playlists, channels and feeds a collection follows",
    )
    a.add_argument("collection", metavar="COLLECTION")
    a.set_defaults(handler=run_refresh)
    a = actions.add_parser(
        "watch", parents=[common], help="refresh a collection on a schedule while the app runs"
    )
    a.add_argument("collection", metavar="COLLECTION")
    when = a.add_mutually_exclusive_group(required=True)
    when.add_argument("--every", type=float, metavar="HOURS", help="check every HOURS hours")
    when.add_argument("--off", action="store_true", help="only refresh when asked")
    a.set_defaults(handler=run_watch)
    a = actions.add_parser(
        "unfollow", parents=[common], help="stop following a source (its videos stay)"
    )
    a.add_argument("collection", metavar="COLLECTION")
    a.add_argument("sources", nargs="+", metavar="SOURCE")
    a.set_defaults(handler=run_unfollow)


def collection_dict(c: Collection) -> dict[str, Any]:
    return {
        "id": c.id,
        "name": c.name,
        "description": c.description,
        "sources": c.sources,
        "video_ids": c.video_ids,
        "count": len(c.video_ids),
        "created_at": c.created_at,
    }


async def run_list(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        items = await api.list_collections()
    if args.json:
        emit_json({"collections": [collection_dict(c) for c in items]})
    elif not items:
        print("no collections yet; create one with `v2c collections create NAME`")
    else:
        for c in items:
            print(f"{c.id:30} {len(c.video_ids):4} videos  {c.name}")
    return 0


async def run_create(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        created = await api.create_collection(args.name, args.description)
    if args.json:
        emit_json(collection_dict(created))
    else:
        print(f"created collection {created.id} ({created.name})")
    return 0


async def run_add(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        added = await api.add_to_collection(args.collection, args.videos)
        collection = await api.get_collection(args.collection)
    if args.json:
        emit_json({"collection": collection.id, "added": added, "count": len(collection.video_ids)})
    else:
        print(f"added {len(added)} to {collection.id}; it now holds {len(collection.video_ids)}")
    return 0


def follow_dict(state: FollowState) -> dict[str, Any]:
    return {
        "sources": state.sources,
        "every_hours": state.every_hours,
        "last_check": state.last_check or None,
        "next_check": state.next_check or None,
        "last_new": state.last_new,
        "pending": [
            {"input": p.input, "reason": p.reason, "seen_at": p.seen_at} for p in state.pending
        ],
    }


def print_follow(state: FollowState) -> None:
    if not state.follows:
        return
    for source in state.sources:
        print(f"  follows {source}")
    schedule = f"every {state.every_hours:g} h" if state.every_hours else "when asked"
    last = (
        f"last checked {state.last_check} ({state.last_new} new)"
        if state.last_check
        else "not checked yet"
    )
    nxt = f", next {state.next_check}" if state.next_check else ""
    print(f"  refreshed {schedule}; {last}{nxt}")
    for item in state.pending:
        print(f"  pending {item.input}: {item.reason}")


async def run_show(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        collection = await api.get_collection(args.collection)
        videos = await api.list_videos(collection.id)
        state = await api.follow_state(collection.id)
    if args.json:
        out = collection_dict(collection)
        out["videos"] = [summary_dict(v) for v in videos]
        out["watch"] = follow_dict(state) if state.follows else None
        emit_json(out)
        return 0
    print(f"{collection.name} ({collection.id}), {len(videos)} videos")
    if collection.description:
        print(f"  {collection.description}")
    print_follow(state)
    for v in videos:
        print(f"  {v.id:28} {v.title}")
    return 0


async def run_refresh(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        refreshed = await api.refresh_collection(
            args.collection, progress=AddProgress(lines=not args.json)
        )
    result = refreshed.result
    if args.json:
        emit_json(
            {
                **result.to_dict("cli"),
                "new": refreshed.new,
                "watch": follow_dict(refreshed.state),
            }
        )
    else:
        print_problems(result)
        print(
            f"{refreshed.new} new, {result.count('skipped')} already in the library, "
            f"{result.count('failed')} failed (collection {refreshed.state.collection_id})"
        )
    return 1 if result.count("failed") else 0


async def run_watch(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        state = await api.set_follow_schedule(args.collection, None if args.off else args.every)
    if args.json:
        emit_json({"collection": state.collection_id, "watch": follow_dict(state)})
    elif state.every_hours is None:
        print(f"{state.collection_id} is refreshed only when asked")
    else:
        print(
            f"{state.collection_id} is checked every {state.every_hours:g} h while the app "
            f"runs; next {state.next_check}"
        )
    return 0


async def run_unfollow(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        state = await api.unfollow_sources(args.collection, args.sources)
    if args.json:
        emit_json({"collection": state.collection_id, "watch": follow_dict(state)})
    else:
        print(f"{state.collection_id} follows {len(state.sources)} sources")
    return 0
