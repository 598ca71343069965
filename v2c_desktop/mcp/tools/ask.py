"""`ask`: a cited answer from the library's own models, for agents that want one server-side.

Synthesis is the agent's job by default (the prompts say how); `ask` is for a quick answer or
a collection too big for the agent's context. The core streams the answer as events; we
collect them and return the answer with one `[n] Title @ m:ss <url>` line per cited source
and its verbatim quote, so every claim can be checked. Errors have every tool's shape
(`{error: code, message, hint, attempts}`, see `results.error_body`), `attempts` listing
every model tried and why it was passed over.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.ask.events import AskDelta, AskDone, AskError, AskMeta, AskRequest
from v2c_desktop.core.errors import V2CError, bad_request
from v2c_desktop.core.timecode import clock

from ..deps import Deps
from ..inputs import CollectionRef, UrlList
from ..results import error_result, text_result, writes
from ..tooling import Progress, add_tool

ASK = """\
Answer a question from the transcripts with the library's own model chain (local models
first), every sentence cited. Returns the answer, then one line per cited source:
`[n] Title @ m:ss <timestamp URL>` with the supporting quote. Scope: urls (imported first if
new) or a collection; chatId follows up on an earlier answer. Without a capable model it
answers extractively (quotes only). Slower than reading yourself (seconds to a minute);
about 300-1000 tokens."""

Question = Annotated[str, Field(min_length=1, description="The question to answer.")]
Model = Annotated[
    str | None,
    Field(description="A chat model id from list_models; default: the configured chain."),
]
Extractive = Annotated[
    bool,
    Field(description="true: skip generation and answer with the best quotes only."),
]
AnswerTokens = Annotated[
    int,
    Field(ge=16, le=4096, description="Longest answer, in tokens, the model may write."),
]
ChatId = Annotated[
    str | None,
    Field(description="Continue a previous answer's chat (its chat id) as a follow-up."),
]


def register(server: MCPServer[Any], deps: Deps) -> None:
    async def ask(
        ctx: Context[Any, Any],
        question: Question,
        urls: UrlList = None,
        collection: CollectionRef = None,
        model: Model = None,
        extractive: Extractive = False,
        chatId: ChatId = None,
        maxTokens: AnswerTokens = 768,
    ) -> CallToolResult:
        if not hasattr(CoreAPI, "ask"):
            return error_result(
                V2CError(
                    "internal",
                    "ask is not available in this version of v2c",
                    "read with get_outline, get_section and search_transcript and answer yourself",
                )
            )
        try:
            if not urls and not collection and not chatId:
                raise bad_request(
                    "give urls or a collection to ask about",
                    "find the videos with search_transcript or list_collections first",
                )
            video_ids = await _scope(ctx, deps, urls)
            request = AskRequest(
                question=question,
                video_ids=video_ids,
                collection=collection,
                chat_id=chatId,
                model=model,
                strict=model is not None,
                extractive=extractive,
                max_tokens=maxTokens,
            )
            api: Any = await deps.core()
            return await _collect(api.ask(request))
        except V2CError as error:
            return error_result(error)

    add_tool(
        server,
        ask,
        name="ask",
        description=ASK,
        annotations=writes("Ask the library", idempotent=False),
    )


async def _scope(ctx: Context[Any, Any], deps: Deps, urls: list[str] | None) -> tuple[str, ...]:
    """The videos named in `urls`, imported first when new; none given: no restriction."""
    if not urls:
        return ()
    progress = Progress(ctx, len(urls))
    gathered = await deps.read_urls(urls, progress)
    return tuple(gathered.video_ids)


async def _collect(events: Any) -> CallToolResult:
    """Read the stream to its end: the `done` event carries the checked text and citations."""
    meta: AskMeta | None = None
    streamed: list[str] = []
    async for event in events:
        if isinstance(event, AskMeta):
            meta = event
        elif isinstance(event, AskDelta):
            streamed.append(event.text)
        elif isinstance(event, AskError):
            error = V2CError(event.code, event.message, event.hint)
            return error_result(error, event.attempts)
        elif isinstance(event, AskDone):
            return text_result(render_answer(event, meta))
    text = "".join(streamed)
    raise V2CError("internal", "the answer stream ended without a result", text[:200])


def render_answer(done: AskDone, meta: AskMeta | None) -> str:
    lines = [done.text.strip(), ""]
    if done.citations:
        lines.append("Sources:")
        for c in done.citations:
            if not c.verified and c.reason:  # listed as unsupported, never as a link
                lines.append(f"[{c.n}] {c.title} @ {clock(c.start)} (unsupported: {c.reason})")
                continue
            lines.append(f"[{c.n}] {c.title} @ {clock(c.start)} <{c.url}>")
            if c.quote:
                mark = "" if c.verified else " (not found verbatim)"
                lines.append(f'    "{c.shown_quote}"{mark}')
    if done.unverified:
        numbers = ", ".join(f"[{n}]" for n in done.unverified)
        lines.append(f"Unverified markers (no such source or not supported): {numbers}")
    how = "extractive (quotes only)" if done.extractive else f"model {done.model or 'unknown'}"
    scope = f"; sources chosen by {meta.retrieval}" if meta is not None else ""
    lines.append(f"-- answered by {how}{scope}; chat {done.chat_id}")
    if done.extractive and meta is not None and meta.why_extractive:
        get = ""
        if meta.suggestion is not None and not meta.why_extractive.startswith("you asked"):
            get = (
                f" For written answers the user can install {meta.suggestion.label} in v2c, "
                "or run Ollama or LM Studio on their computer."
            )
        lines.append(f"-- no model wrote this: {meta.why_extractive}.{get}")
    return "\n".join(lines).strip() + "\n"
