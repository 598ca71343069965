"""`build_brief` and `extract`: cited briefs and structured answers built server-side.

For agents whose collection is too large for their own context, or whose model is weak.
The core does the work (`CoreAPI.build_brief`: single pass or map-reduce on the library's
own model chain, every quote verified against its transcript, consensus and disagreement
decided in code); progress goes out as MCP progress notifications, stage by stage. Agents
that write briefs themselves keep using the `brief` and `buyer_guide` prompts.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from v2c_desktop.core.briefs.events import Brief, BriefDone, BriefRequest, BriefStep
from v2c_desktop.core.briefs.render import as_json, markdown
from v2c_desktop.core.errors import V2CError, bad_request

from ..deps import Deps
from ..inputs import CollectionRef, UrlList
from ..results import dumps, text_result, writes
from ..tooling import Progress, add_tool

BUILD_BRIEF = """\
Build a cited brief of many videos with the library's own model chain (local models first):
a bottom line, then points by topic, each with verified quotes and timestamp links, labelled
consensus (2+ videos agree), disagreement (both sides cited) or single source; coverage,
limitations, and the claims whose quotes did not check out. Scope: urls (imported first if
new) or a collection. template: brief (default), summary, buyer-guide, tutorial-steps,
comparison. Markdown by default (about 600-1500 tokens); format json returns the whole
Brief. Without a capable model it builds an extractive brief (quoted passages grouped by
topic). skipSponsors leaves sponsor reads out of the sources (the SponsorBlock segments the
library holds: call get_skip_segments on each video first). Can take minutes on a laptop CPU;
progress is reported."""

EXTRACT = """\
Extract structured JSON from videos: a built-in template (summary by default, buyer-guide,
tutorial-steps, comparison) or your own JSON Schema (the subset: type, properties, required,
additionalProperties, items, enum, const, min/max items/length, pattern, minimum, maximum;
anything else is refused at once). Returns {data, citations, uncited, unverified, status}:
every citation verified against its transcript, by JSON pointer; uncited lists the values no
citation supports. Needs a capable chat model for a schema."""

Question = Annotated[str, Field(min_length=1, description="What the brief should answer.")]
Template = Annotated[
    Literal["brief", "summary", "buyer-guide", "tutorial-steps", "comparison"],
    Field(description="The shape of the result."),
]
Format = Annotated[
    Literal["markdown", "json"], Field(description="markdown (default) or json (the Brief).")
]
Model = Annotated[
    str | None, Field(description="A chat model id from list_models; default: the chain.")
]
Schema = Annotated[
    dict[str, Any] | None,
    Field(description="Your own JSON Schema (the supported subset) instead of a template."),
]
SkipSponsors = Annotated[
    bool,
    Field(
        description="Leave out of the sources the caption lines inside the SponsorBlock "
        "sponsor segments the library holds (get_skip_segments fetches them); the brief's "
        "limitations say what was left out and which videos have none kept."
    ),
]


def register(server: MCPServer[Any], deps: Deps) -> None:
    async def build_brief(
        ctx: Context[Any, Any],
        question: Question,
        urls: UrlList = None,
        collection: CollectionRef = None,
        template: Template = "brief",
        format: Format = "markdown",
        model: Model = None,
        skipSponsors: SkipSponsors = False,
    ) -> CallToolResult:
        progress = Progress(ctx, len(urls or ()) + len(STAGES))
        request = BriefRequest(
            question=question,
            video_ids=await _scope(progress, deps, urls, collection),
            collection=collection,
            template=template,
            model=model,
            strict=model is not None,
            skip_sponsors=skipSponsors,
        )
        brief = await _build(progress, len(urls or ()), deps, request)
        if format == "json":
            return text_result(dumps(as_json(brief)))
        return text_result(markdown(brief, request.max_words))

    async def extract(
        ctx: Context[Any, Any],
        question: Annotated[
            str, Field(description="What to extract (default: the template's own aim).")
        ] = "Extract what the videos say.",
        urls: UrlList = None,
        collection: CollectionRef = None,
        template: Template = "summary",
        schema: Schema = None,
        model: Model = None,
    ) -> CallToolResult:
        if template == "brief" and schema is None:
            raise bad_request("extract fills a template or a schema", "use build_brief for briefs")
        progress = Progress(ctx, len(urls or ()) + len(STAGES))
        request = BriefRequest(
            question=question,
            video_ids=await _scope(progress, deps, urls, collection),
            collection=collection,
            template=template,
            schema=schema,
            model=model,
            strict=model is not None,
        )
        brief = await _build(progress, len(urls or ()), deps, request)
        body = {
            "data": brief.data,
            "citations": {p: [asdict(c) for c in cs] for p, cs in brief.data_citations.items()},
            "uncited": brief.uncited,
            "unverified": [asdict(u) for u in brief.unverified],
            "status": brief.status,
            "notes": brief.notes,
            "briefId": brief.id,
        }
        return text_result(dumps(body))

    add_tool(
        server,
        build_brief,
        name="build_brief",
        description=BUILD_BRIEF,
        annotations=writes("Build a brief", idempotent=False),
    )
    add_tool(
        server,
        extract,
        name="extract",
        description=EXTRACT,
        annotations=writes("Extract structured data", idempotent=False),
    )


async def _scope(
    progress: Progress, deps: Deps, urls: list[str] | None, collection: str | None
) -> tuple[str, ...]:
    """The videos `urls` name (imported first if new), progress units 0..len(urls)."""
    if not urls and not collection:
        raise bad_request(
            "give urls or a collection to brief",
            "find the videos with search_transcript or list_collections first",
        )
    if not urls:
        return ()
    gathered = await deps.read_urls(urls, progress)
    return tuple(gathered.video_ids)


STAGES = ("scope", "map", "write", "extract", "reduce", "render")


async def _build(progress: Progress, base: int, deps: Deps, request: BriefRequest) -> Brief:
    """Run the build, forwarding each stage as progress after the `base` units of gathering:
    one unit per known stage, so the values only ever grow within the one call."""
    api = await deps.core()
    async for event in api.build_brief(request):
        if isinstance(event, BriefStep):
            index = STAGES.index(event.stage) if event.stage in STAGES else 0
            fraction = (event.done / event.total) if event.total else 0.0
            total = f"/{event.total}" if event.total else ""
            await progress.advance(
                base + index + min(fraction, 0.99),
                f"{event.stage} {event.done}{total} {event.message}",
            )
        elif isinstance(event, BriefDone):
            await progress.drain()
            return event.brief
    raise V2CError("internal", "the brief ended without a result")
