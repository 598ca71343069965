"""`digest_videos` and `verify_quotes`: a cited digest written by the client's own model.

The path that gives a strong model to users whose computer runs only small ones: when the
client declares MCP sampling, the digest is written by its model (`core.briefs.digest`:
the brief's pieces, fenced prompts, map and reduce), and every quote it cites is checked
against the transcript at the time it names before it is returned; what fails is listed
with the reason. Without sampling, or when the user declines it, the same cut comes back as
a plan (each piece with the `get_section` call that reads it) and instructions for the
agent to write the digest itself and check its quotes with `verify_quotes`: never an error.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from v2c_desktop.core.briefs.digest import (
    DEFAULT_PIECE_TOKENS,
    DEFAULT_QUESTION,
    MAX_PIECE_TOKENS,
    MIN_PIECE_TOKENS,
    Digest,
    DigestPlan,
    check_quotes,
    plan_digest,
    request_budget,
    write_digest,
)
from v2c_desktop.core.briefs.events import BriefCitation, BriefStep
from v2c_desktop.core.briefs.render import markdown
from v2c_desktop.core.errors import V2CError, bad_request
from v2c_desktop.core.ids import timestamp_url
from v2c_desktop.core.plain_text import counted
from v2c_desktop.core.timecode import clock

from ..deps import Deps
from ..inputs import VIDEO_FORMS, CollectionRef, UrlList
from ..results import imports, structured_result
from ..sampling import client_samples, sampler
from ..schemas import DigestOut, QuoteChecksOut
from ..tooling import Progress, add_tool

MAX_VIDEOS = 60
#: Each sampling request may need the user's approval in the client: a digest asks at most
#: this many (a map request per piece, and at least one to organise).
MAX_REQUESTS = 40
MAX_QUOTES = 50
DIGEST_WORDS = 600

DIGEST_VIDEOS = f"""\
A cited digest of videos (urls, imported first if new, and/or a collection), answering an
optional question, written by YOUR client's own model through MCP sampling: each transcript
goes to it in pieces of at most maxTokensPerVideo tokens (default {DEFAULT_PIECE_TOKENS}), all
videos in one request when each is one piece and together they fit about
{request_budget(DEFAULT_PIECE_TOKENS)} tokens, else one request per piece and one to organise
the points. Every quote it cites is verified against the transcript at the time given before
it is returned ([m:ss] with a timestamp link); quotes that fail are listed under unverified
with the reason. Without sampling (or when the user declines it) it returns mode plan: each
piece with the get_section call that reads it, and how to write the digest yourself and check
its quotes with verify_quotes. Sends progress per request; a digest is 1-3k tokens, a plan
about 60 tokens per piece."""

VERIFY_QUOTES = f"""\
Check quotes against the transcripts the way digests and briefs check theirs, before you cite
them: each quote (4 or more words copied from the transcript) must be found near the time
given (m:ss or seconds). Returns for each quote ok with where it really is ([m:ss], snapped to
the caption, and the timestamp link to cite), or the reason: quote-not-found,
quote-at-other-time (with where it really is), quote-too-short, bad-timestamp. At most
{MAX_QUOTES} quotes a call; videos not in the library are imported first. About 60 tokens a
quote."""

Question = Annotated[
    str | None,
    Field(description="What the digest should answer (default: the videos' main points)."),
]
MaxTokensPerVideo = Annotated[
    int,
    Field(
        ge=MIN_PIECE_TOKENS,
        le=MAX_PIECE_TOKENS,
        description="The largest piece of one video's transcript sent in one request, in "
        f"tokens (default {DEFAULT_PIECE_TOKENS}; speech is about 12k tokens an hour). "
        "Pieces are cut at caption boundaries.",
    ),
]


class QuoteIn(BaseModel):
    url: str = Field(description=f"The video: {VIDEO_FORMS}.")
    time: str | float = Field(description="When it is said: m:ss, h:mm:ss or seconds.")
    quote: str = Field(description="The words, copied from the transcript (4 or more).")


Quotes = Annotated[
    list[QuoteIn],
    Field(min_length=1, max_length=MAX_QUOTES, description="The quotes to check."),
]


def register(server: MCPServer[Any], deps: Deps) -> None:
    async def digest_videos(
        ctx: Context[Any, Any],
        urls: UrlList = None,
        collection: CollectionRef = None,
        question: Question = None,
        maxTokensPerVideo: MaxTokensPerVideo = DEFAULT_PIECE_TOKENS,
    ) -> Annotated[CallToolResult, DigestOut]:
        if not urls and not collection:
            raise bad_request(
                "give urls or a collection to digest",
                'e.g. {"collection": "my-videos"} or {"urls": ["<url>"]}',
            )
        # the schema says so too; a client may not check it
        if not MIN_PIECE_TOKENS <= maxTokensPerVideo <= MAX_PIECE_TOKENS:
            raise bad_request(
                f"maxTokensPerVideo must be {MIN_PIECE_TOKENS} to {MAX_PIECE_TOKENS}",
                f"leave it out for {DEFAULT_PIECE_TOKENS}",
            )
        api = await deps.core()
        members: list[str] = []
        if collection:  # an unknown collection fails before anything is imported
            members = (await api.get_collection(collection)).video_ids
        base = len(urls or ())
        progress = Progress(ctx, base + 3)  # inputs, then read, then write (or map, reduce)
        gathered = await deps.read_urls(urls, progress, required=not collection)
        ids = list(dict.fromkeys([*members, *gathered.video_ids]))
        if not ids:
            raise bad_request(f"the collection {collection!r} is empty", "add videos to it first")
        if len(ids) > MAX_VIDEOS:
            raise bad_request(
                f"{len(ids)} videos is more than one digest reads ({MAX_VIDEOS})",
                "digest a smaller collection, or fewer urls at a time",
            )
        records = [await api.get_video(vid) for vid in ids]
        await progress.advance(base + 1, f"read {len(records)} videos")
        plan = plan_digest(records, maxTokensPerVideo)
        asked = (question or "").strip() or DEFAULT_QUESTION
        failed = [f.to_dict("agent") for f in gathered.failures]
        if not client_samples(ctx):
            why = "your client does not offer MCP sampling"
            return structured_result(plan_view(plan, asked, why, failed))
        if plan.requests > MAX_REQUESTS:
            raise bad_request(
                f"this digest would send {plan.requests} sampling requests (at most "
                f"{MAX_REQUESTS}): {plan.pieces} pieces of up to {maxTokensPerVideo} tokens",
                f"raise maxTokensPerVideo (up to {MAX_PIECE_TOKENS}) or digest fewer videos",
            )
        digest = await _write(ctx, progress, base + 1, asked, plan)
        if not digest.answered:  # declined or failed before anything came back
            reasons = "; ".join(dict.fromkeys(digest.failures)) or "no answer"
            why = f"your client's model did not answer ({reasons})"
            return structured_result(plan_view(plan, asked, why, failed))
        return structured_result(digest_view(digest, plan, asked, failed))

    async def verify_quotes(
        ctx: Context[Any, Any], quotes: Quotes
    ) -> Annotated[CallToolResult, QuoteChecksOut]:
        if len(quotes) > MAX_QUOTES:  # the schema says so too; a client may not check it
            raise bad_request(f"at most {MAX_QUOTES} quotes a call", "split them over calls")
        refs = list(dict.fromkeys(q.url for q in quotes))
        ids: dict[str, str] = {}
        errors: dict[str, V2CError] = {}
        progress = Progress(ctx, len(refs))  # one unit per video, imported first if new
        for n, ref in enumerate(refs):
            try:
                ids[ref] = await deps.video_id(ref, progress=progress.listener(n))
            except V2CError as error:  # one unreadable video never fails the others
                errors[ref] = error
            await progress.advance(n + 1, f"read {ref}")
        await progress.drain()
        api = await deps.core()
        records = {vid: await api.get_video(vid) for vid in dict.fromkeys(ids.values())}
        checks = check_quotes(records, [(ids.get(q.url, ""), q.time, q.quote) for q in quotes])
        results: list[dict[str, Any]] = []
        for n, (given, check) in enumerate(zip(quotes, checks, strict=True)):
            vid = ids.get(given.url)
            record = records.get(vid or "")
            found = check.found_at
            result: dict[str, Any] = {
                "index": n,
                "url": given.url,
                "videoId": vid,
                "quote": given.quote,
                "ok": check.ok,
                "score": check.score,
                "foundAtSec": None if found is None else round(found, 3),
                "foundAt": None if found is None else f"[{clock(found)}]",
            }
            if check.ok and record is not None and check.start is not None:
                result.update(
                    at=f"[{clock(check.start)}]",
                    startSec=round(check.start, 3),
                    endSec=None if check.end is None else round(check.end, 3),
                    link=timestamp_url(record.video, check.start) or None,
                )
            elif given.url in errors:
                result["reason"] = f"{errors[given.url].code}: {errors[given.url].message}"
            else:
                result["reason"] = check.reason
            results.append(result)
        verified = sum(1 for r in results if r["ok"])
        return structured_result(
            {"verified": verified, "failed": len(results) - verified, "results": results}
        )

    add_tool(
        server,
        digest_videos,
        name="digest_videos",
        description=DIGEST_VIDEOS,
        annotations=imports("Digest videos"),
    )
    add_tool(
        server,
        verify_quotes,
        name="verify_quotes",
        description=VERIFY_QUOTES,
        annotations=imports("Verify quotes"),
    )


async def _write(
    ctx: Context[Any, Any],
    progress: Progress,
    base: int,
    question: str,
    plan: DigestPlan,
) -> Digest:
    """Write the digest on the client's model: one progress unit for a single pass (or the
    map), one for the reduce, after the `base` units of reading."""
    async for event in write_digest(question, plan, sampler(ctx)):
        if isinstance(event, BriefStep):
            unit = base + (1 if event.stage == "reduce" else 0)
            fraction = (event.done / event.total) if event.total else 0.0
            total = f"/{event.total}" if event.total else ""
            await progress.advance(
                unit + min(fraction, 0.99), f"{event.stage} {event.done}{total} {event.message}"
            )
        else:
            await progress.drain()
            return event
    raise V2CError("internal", "the digest ended without a result")


def _citation(c: BriefCitation) -> dict[str, Any]:
    return {
        "videoId": c.video_id,
        "title": c.title,
        "quote": c.quote,
        "startSec": round(c.start, 3),
        "endSec": round(c.end, 3),
        "at": f"[{clock(c.start)}]",
        "link": c.url or None,
    }


def _counts(plan: DigestPlan, **extra: int) -> dict[str, int]:
    counts = {"videos": len(plan.videos), "pieces": plan.pieces, "tokens": plan.tokens}
    zero = ("requests", "answered", "points", "citations", "unverified")
    return {**counts, **dict.fromkeys(zero, 0), **extra}


def digest_view(
    digest: Digest, plan: DigestPlan, question: str, failed: list[dict[str, Any]]
) -> dict[str, Any]:
    brief = digest.brief
    points: list[dict[str, Any]] = [
        {
            "topic": topic.name,
            "text": point.text,
            "kind": point.kind,
            "support": [_citation(c) for c in point.support],
            "oppose": [_citation(c) for c in point.oppose],
            "counter": point.counter,
        }
        for topic in brief.topics
        for point in topic.points
    ]
    unverified = [
        {
            "claim": u.claim,
            "quote": u.quote,
            "videoId": u.video_id,
            "atSec": None if u.start is None else round(u.start, 3),
            "at": None if u.start is None else f"[{clock(u.start)}]",
            "reason": u.reason,
            "foundAtSec": None if u.found_at is None else round(u.found_at, 3),
        }
        for u in brief.unverified
    ]
    cited = {c for topic in brief.topics for p in topic.points for c in [*p.support, *p.oppose]}
    return {
        "mode": "digest",
        "question": question,
        "why": None,
        "title": brief.title,
        "bottomLine": brief.bottom_line,
        "digest": markdown(brief, DIGEST_WORDS),
        "points": points,
        "unverified": unverified,
        "coverage": [
            {
                "id": c.video_id,
                "title": c.title,
                "status": c.status,
                "citations": c.claims,
                "reason": c.reason,
            }
            for c in brief.coverage
        ],
        "status": brief.status,
        "passKind": brief.pass_kind if brief.pass_kind != "extractive" else None,
        "model": brief.model,
        "notes": [*brief.notes, *brief.limitations],
        "instructions": None,
        "videos": [],
        "counts": _counts(
            plan,
            requests=digest.requests,
            answered=digest.answered,
            points=len(points),
            citations=len(cited),
            unverified=len(unverified),
        ),
        "failed": failed,
    }


def plan_view(
    plan: DigestPlan, question: str, why: str, failed: list[dict[str, Any]]
) -> dict[str, Any]:
    videos = []
    for planned in plan.videos:
        source, video = planned.source, planned.source.record.video
        pieces = [
            {
                "index": piece.index + 1,
                "at": f"[{clock(piece.start)}-{clock(piece.end)}]",
                "startSec": round(piece.start, 3),
                "endSec": round(piece.end, 3),
                "tokens": piece.tokens,
                "link": timestamp_url(video, piece.start) or None,
                "read": {
                    "tool": "get_section",
                    "arguments": {
                        "url": source.video_id,
                        "from": round(piece.start, 3),
                        "to": round(piece.until, 3),
                    },
                },
            }
            for piece in planned.pieces
        ]
        videos.append(
            {
                "id": source.video_id,
                "title": source.title,
                "url": video.url or None,
                "channel": video.channel,
                "durationSec": round(source.record.duration, 1),
                "tokens": planned.tokens,
                "copies": list(source.copies),
                "pieces": pieces,
            }
        )
    return {
        "mode": "plan",
        "question": question,
        "why": why,
        "title": None,
        "bottomLine": None,
        "digest": None,
        "points": [],
        "unverified": [],
        "coverage": [],
        "status": None,
        "passKind": None,
        "model": None,
        "notes": [],
        "instructions": plan_instructions(plan, question, why),
        "videos": videos,
        "counts": _counts(plan),
        "failed": failed,
    }


def plan_instructions(plan: DigestPlan, question: str, why: str) -> str:
    """How to write the digest by hand from the plan, one step a line."""
    copies = sum(len(v.source.copies) for v in plan.videos)
    merged = (
        f" {counted(copies, 're-upload')} left out (under `copies`): each is read once, as its "
        "original."
        if copies
        else ""
    )
    steps = [
        f"No digest was written for you ({why}), so write it yourself. Question: {question}",
        f"1. Read the {counted(plan.pieces, 'piece')} of the {counted(len(plan.videos), 'video')} "
        f"in order (about {plan.tokens} tokens in all, at most {plan.piece_tokens} each): call "
        "each piece's `read` (get_section with its url, from and to) and work through one "
        f"piece at a time.{merged}",
        "2. From each piece, note the points that bear on the question, each with a quote "
        "copied word for word from one [m:ss] line (at least six words) and that line's time.",
        "3. Write the digest: a bottom line of two or three sentences, then the points by "
        "topic, one sentence each, every point cited as [Video title @ m:ss](timestamp link) "
        "with its quote; say where the videos agree, where they disagree, and what only one "
        "of them says.",
        '4. Before you show it, check every quote with verify_quotes {"quotes": [{"url", '
        '"time", "quote"}]}: cite the time and link it returns, and fix or drop each quote '
        "that fails.",
    ]
    return "\n".join(steps)
