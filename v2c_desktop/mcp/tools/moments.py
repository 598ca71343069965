"""`get_key_moments`: the moments of one video worth jumping to, each a checked timestamp.

The core chooses them (`CoreAPI.get_key_moments`): the library's model chain when it has a
capable model, every time verified against the transcript's segments, else extractive (the
video's chapters, or where its subject changes most), and the result says which. A model
takes a while on a laptop CPU, so the call reports progress: the import (if the video is
new), then reading, asking and checking.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from v2c_desktop.core.moments.events import KeyMoments
from v2c_desktop.core.timecode import clock

from ..deps import Deps
from ..inputs import Url
from ..results import imports, structured_result
from ..schemas import KeyMomentsOut
from ..tooling import Progress, add_tool

GET_KEY_MOMENTS = """\
The key moments of one video: up to `count` (default 8) points worth jumping to, in time
order and at least ~30 s apart, each with its [m:ss] time, a timestamp link, a short title
and why it matters. Chosen by the library's own model chain (local models first) with every
time checked against the transcript, or, without a capable model, extractive: the video's
chapters, else where its subject changes most (`method` and `label` say which). A model
can take a minute on a laptop CPU (progress is reported); a result is kept until the
transcript changes. About 60 tokens per moment."""

Count = Annotated[int, Field(ge=1, le=20, description="How many moments at most (1-20).")]
Model = Annotated[
    str | None,
    Field(description="A chat model id from list_models to choose them; default: the chain."),
]


def register(server: MCPServer[Any], deps: Deps) -> None:
    async def get_key_moments(
        ctx: Context[Any, Any], url: Url, count: Count = 8, model: Model = None
    ) -> Annotated[CallToolResult, KeyMomentsOut]:
        progress = Progress(ctx, 2)
        try:
            video_id = await deps.video_id(url, progress=progress.listener(0))
            await progress.advance(1, "finding the key moments")
            found = await (await deps.core()).get_key_moments(
                video_id, count, model=model, progress=progress.listener(1, stage="moments")
            )
        finally:
            await progress.drain()
        await progress.advance(2, f"{len(found.moments)} key moments ({found.label()})")
        return structured_result(moments_view(found))

    add_tool(
        server,
        get_key_moments,
        name="get_key_moments",
        description=GET_KEY_MOMENTS,
        annotations=imports("Get key moments"),
    )


def moments_view(found: KeyMoments) -> dict[str, Any]:
    """`get_key_moments`' structured result (`schemas.KeyMomentsOut`)."""
    return {
        "videoId": found.video_id,
        "title": found.title,
        "method": found.method,
        "basis": found.basis,
        "model": found.model,
        "label": found.label(),
        "moments": [
            {
                "time": f"[{clock(m.start)}]",
                "startSec": round(m.start, 3),
                "url": m.url or None,
                "link": f"[{clock(m.start)}]({m.url})" if m.url else f"[{clock(m.start)}]",
                "title": m.title,
                "why": m.why,
            }
            for m in found.moments
        ],
        "requested": found.requested,
        "dropped": found.dropped,
        "note": found.note,
        "cached": found.cached,
    }
