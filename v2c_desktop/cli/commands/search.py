"""`v2c search QUERY ...` and `v2c search --batch FILE`: hybrid search over the library."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from v2c_desktop.core.errors import V2CError, bad_request
from v2c_desktop.core.search.request import MODES, SearchRequest, SearchResult
from v2c_desktop.core.timecode import clock

from ..context import open_context
from ..output import StderrProgress, emit_json


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "search",
        parents=[common],
        help="find where videos talk about something",
        description='Query syntax: plain words, "exact phrase", -word, -"phrase".',
    )
    p.add_argument("query", nargs="?", metavar="QUERY")
    p.add_argument("--batch", metavar="FILE", help="one query per line; one JSON result per line")
    p.add_argument("--mode", choices=MODES, default="hybrid")
    p.add_argument("--collection", metavar="ID")
    p.add_argument("--video", action="append", metavar="ID", help="only this video (repeatable)")
    p.add_argument("--channel", metavar="NAME")
    p.add_argument(
        "--origin",
        action="append",
        metavar="ORIGIN",
        help="creator-captions, auto-captions, subtitle-file, stt (repeatable)",
    )
    p.add_argument("--after", metavar="YYYY-MM-DD", help="published on or after")
    p.add_argument("--before", metavar="YYYY-MM-DD", help="published on or before")
    p.add_argument("--limit", type=int, default=10, metavar="N")
    p.add_argument("--rerank", action="store_true", help="rescore the top 20 with the chat model")
    p.set_defaults(handler=run)


def _request(
    args: argparse.Namespace, query: str, video_ids: tuple[str, ...] | None
) -> SearchRequest:
    return SearchRequest(
        query=query,
        mode=args.mode,
        limit=args.limit,
        collection=args.collection,
        video_ids=video_ids,
        channel=args.channel,
        origins=tuple(args.origin) if args.origin else None,
        published_after=args.after,
        published_before=args.before,
        rerank=args.rerank,
    )


def print_result(result: SearchResult) -> None:
    if not result.hits:
        print("no matches")
    for n, hit in enumerate(result.hits, start=1):
        chapter = f" ({hit.chapter})" if hit.chapter else ""
        print(f"{n}. {hit.title} [{clock(hit.start)}-{clock(hit.end)}]{chapter}")
        print(f"   {hit.url}")
        print(f"   {hit.snippet}")
        ranks = ", ".join(f"{side} #{rank}" for side, rank in sorted(hit.ranks.items()))
        print(f"   found by {ranks}")
    meta = result.meta
    vector = meta["vector"]
    note = f"vector: {vector['status']}"
    if vector.get("reason"):
        note += f" ({vector['reason']})"
    print(
        f"-- {meta['mode']} search, sides: {', '.join(meta['sides']) or 'none'}; "
        f"embedding model: {meta['embedding_model']}; {note}; "
        f"{meta['timings_ms']['total']:.0f} ms"
    )


async def run(args: argparse.Namespace) -> int:
    if bool(args.query) == bool(args.batch):
        raise bad_request("give a QUERY or --batch FILE", 'e.g. v2c search "gradient descent"')
    queries = [args.query] if args.query else _read_batch(Path(args.batch))
    async with open_context(args) as api:
        video_ids = tuple([await api.resolve(v) for v in args.video]) if args.video else None
        await api.index_pending(progress=StderrProgress())
        if not args.batch:
            result = await api.search(_request(args, queries[0], video_ids))
            if args.json:
                emit_json(result.to_dict())
            else:
                print_result(result)
            return 0
        failed = 0
        for query in queries:
            try:
                result = await api.search(_request(args, query, video_ids))
                line = {"query": query, **result.to_dict()}
            except V2CError as error:
                failed += 1
                line = {"query": query, **error.to_dict("cli")}
            sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
            sys.stdout.flush()
    return 1 if failed else 0


def _read_batch(path: Path) -> list[str]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise bad_request(f"cannot read {path}: {exc.strerror}", "give a text file") from exc
    queries = [q.strip() for q in lines if q.strip() and not q.lstrip().startswith("#")]
    if not queries:
        raise bad_request(f"{path} holds no queries", "write one query per line")
    return queries
