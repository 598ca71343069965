"""`v2c collections list|create|add|show`."""

from __future__ import annotations

import argparse
from typing import Any

from v2c_desktop.core.domain.videos import Collection

from ..context import open_context
from ..output import emit_json
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


async def run_show(args: argparse.Namespace) -> int:
    async with open_context(args) as api:
        collection = await api.get_collection(args.collection)
        videos = await api.list_videos(collection.id)
    if args.json:
        out = collection_dict(collection)
        out["videos"] = [summary_dict(v) for v in videos]
        emit_json(out)
        return 0
    print(f"{collection.name} ({collection.id}), {len(videos)} videos")
    if collection.description:
        print(f"  {collection.description}")
    for v in videos:
        print(f"  {v.id:28} {v.title}")
    return 0
