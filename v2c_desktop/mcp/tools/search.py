"""`search_transcript`: where the library's videos talk about something, as citable time ranges.

The cheapest way for an agent to find evidence: a few hundred tokens per hit instead of
whole transcripts. Each hit carries its title, `[m:ss-m:ss]`, a timestamp link and a marked
snippet; the closing status line says which search sides actually ran, so a keyword-only
answer never poses as a semantic one.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from v2c_desktop.core.gather.videos import InputFailure
from v2c_desktop.core.search.request import SearchRequest, SearchResult
from v2c_desktop.core.timecode import clock

from ..deps import Deps
from ..inputs import CollectionRef, UrlList
from ..results import imports, text_result
from ..tooling import Progress, add_tool

SEARCH_TRANSCRIPT = """\
Search the transcripts of the library (or of a collection, or of given videos) for a topic.
Query syntax: plain words (matched by meaning and by keyword), "exact phrase", -excluded,
-"excluded phrase". Returns one block per hit: title, [m:ss-m:ss], video id, timestamp URL
and a snippet with **matched words**, then a status line (search sides, embedding model,
vector status; with rerank, whether it ran). Videos given in urls that are not in the library
are imported first. About 120 tokens per hit; then read around a hit with get_section
(from/to)."""

Query = Annotated[
    str,
    Field(
        min_length=1,
        description='What to find: words, "exact phrases", -excluded words or -"phrases".',
    ),
]
Limit = Annotated[int, Field(ge=1, le=100, description="At most this many hits (default 10).")]
Rerank = Annotated[
    bool,
    Field(description="Re-score the top 20 hits with the chat model (slower; needs a model)."),
]


def register(server: MCPServer[Any], deps: Deps) -> None:
    async def search_transcript(
        ctx: Context[Any, Any],
        query: Query,
        collection: CollectionRef = None,
        urls: UrlList = None,
        limit: Limit = 10,
        rerank: Rerank = False,
    ) -> CallToolResult:
        scope: tuple[str, ...] | None = None
        failures: list[InputFailure] = []
        if urls:
            progress = Progress(ctx, len(urls))
            gathered = await deps.read_urls(urls, progress)
            failures = gathered.failures
            scope = tuple(gathered.video_ids)
        api = await deps.core()
        request = SearchRequest(
            query=query, limit=limit, collection=collection, video_ids=scope, rerank=rerank
        )
        result = await api.search(request)
        return text_result(render_hits(query, result, failures))

    add_tool(
        server,
        search_transcript,
        name="search_transcript",
        description=SEARCH_TRANSCRIPT,
        annotations=imports("Search transcripts"),
    )


def render_hits(query: str, result: SearchResult, failures: list[InputFailure]) -> str:
    """One block per hit, then the status line; inputs that failed are named at the end."""
    count = len(result.hits)
    lines = [f'{count} {"hit" if count == 1 else "hits"} for "{query}"', ""]
    for n, hit in enumerate(result.hits, start=1):
        chapter = f" (chapter: {hit.chapter})" if hit.chapter else ""
        lines.append(f"{n}. {hit.title} [{clock(hit.start)}-{clock(hit.end)}]{chapter}")
        lines.append(f"   video: {hit.video_id}")
        if hit.url:
            lines.append(f"   {hit.url}")
        lines.append(f"   {hit.snippet}")
        lines.append("")
    lines.append(status_line(result.meta))
    for failure in failures:
        lines.append(f"not searched: {failure.input}: {failure.error.message}")
    return "\n".join(lines) + "\n"


def status_line(meta: dict[str, Any]) -> str:
    vector = meta.get("vector") or {}
    note = f"vector: {vector.get('status', 'unknown')}"
    if vector.get("reason"):
        note += f" ({vector['reason']})"
    sides = ", ".join(meta.get("sides") or []) or "none"
    line = (
        f"-- {meta.get('mode', 'hybrid')} search; sides: {sides}; "
        f"embedding model: {meta.get('embedding_model') or 'none'}; {note}"
    )
    rerank = meta.get("rerank")
    if rerank:  # asked for: say whether a model re-scored the hits, or why it did not
        if rerank.get("status") == "ok":
            line += f"; rerank: ok ({rerank.get('model')}, {rerank.get('scored')} scored)"
        else:
            line += f"; rerank: {rerank.get('status')} ({rerank.get('reason')})"
    return line
