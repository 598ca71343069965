"""`list_items`: what a playlist, channel, folder or URL list holds, without importing any of it.

An agent deciding what to read needs the list before paying for imports. Expansion is the
core's input planner (`plan_inputs`) with the web expander, the same one imports use, so
what this lists is what `add_to_collection` would import.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlparse

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from v2c_desktop.core.errors import V2CError, bad_request
from v2c_desktop.core.ids import file_video_id, youtube_id_from_url
from v2c_desktop.core.importers.inputs import PlannedItem, plan_inputs
from v2c_desktop.core.importers.local import LocalItem
from v2c_desktop.core.importers.web.metadata import video_from_info

from ..deps import Deps
from ..results import reads, structured_result
from ..schemas import ItemsOut
from ..tooling import add_tool

DEFAULT_LIMIT, MAX_LIMIT = 50, 500

LIST_ITEMS = f"""\
The videos behind one input, without importing them: a playlist or channel URL (read flat,
one request), a folder of subtitle/media files, or a .txt file of URLs. A single video lists
itself. Each item has the id it will have in the library. About 40 tokens per item; default
limit {DEFAULT_LIMIT}, max {MAX_LIMIT}."""

ListInput = Annotated[
    str,
    Field(
        description="A playlist, channel or video URL, a folder path, or a .txt file with "
        "one URL per line."
    ),
]
Limit = Annotated[
    int,
    Field(ge=1, le=MAX_LIMIT, description=f"At most this many items (max {MAX_LIMIT})."),
]


def register(server: MCPServer[Any], deps: Deps) -> None:
    async def list_items(
        url: ListInput, limit: Limit = DEFAULT_LIMIT
    ) -> Annotated[CallToolResult, ItemsOut]:
        text = deps.absolute(url)
        if not text:
            raise bad_request("no input given", "pass a playlist URL or a folder path")

        async def expand(web_url: str) -> list[str]:
            return await deps.web().expand(web_url)

        planned, failures = await plan_inputs([text], expand)
        if failures and not planned:
            raise failures[0].error
        items = [await asyncio.to_thread(_describe, item) for item in planned[:limit]]
        return structured_result(
            {
                "input": url,
                "count": len(items),
                "total": len(planned),
                "truncated": len(planned) > limit,
                "items": items,
            }
        )

    add_tool(
        server,
        list_items,
        name="list_items",
        description=LIST_ITEMS,
        annotations=reads("List items"),
    )


def _describe(item: PlannedItem) -> dict[str, Any]:
    """The id an import would give the item, worked out the way the importers do."""
    if item.url is not None:
        native = youtube_id_from_url(item.url)
        if native:
            return {
                "id": f"youtube:{native}",
                "platform": "youtube",
                "kind": "video",
                "nativeId": native,
                "url": item.url,
            }
        host = (urlparse(item.url).hostname or "web").removeprefix("www.")
        return {"id": None, "platform": host, "kind": "video", "nativeId": None, "url": item.url}
    assert item.local is not None
    return _describe_local(item.local)


def _describe_local(local: LocalItem) -> dict[str, Any]:
    english = [path for path, lang in local.subtitles if lang.lower().split("-")[0] == "en"]
    subtitles = english or [path for path, _ in local.subtitles]
    subtitle = subtitles[0] if subtitles else None
    main = local.media or subtitle  # what `load_local` hashes for the id
    out: dict[str, Any] = {"kind": "local", "path": str(main) if main else local.label}
    if local.info_json is not None:
        try:
            video = video_from_info(json.loads(local.info_json.read_text(encoding="utf-8")))
        except (OSError, ValueError, AttributeError):
            video = None
        if video is not None and video.native_id:
            out.update(
                id=video.id,
                platform=video.platform,
                nativeId=video.native_id,
                url=video.url or None,
                title=video.title,
            )
            return out
    try:
        vid = file_video_id(Path(main)) if main else None
    except OSError as exc:
        raise V2CError("bad-request", f"cannot read {main}: {exc}", "check the file") from exc
    out.update(
        id=vid,
        platform="file",
        nativeId=vid.split(":", 1)[1] if vid else None,
        title=local.base,
    )
    return out
