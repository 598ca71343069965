"""`list_items`: what a playlist, channel, folder or URL list holds, without importing any of it.

An agent deciding what to read needs the list before paying for imports. The listing is the
core's (`CoreAPI.list_items`: the importers' own expansion), so what this lists is what
`add_to_collection` would import.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from v2c_desktop.core.domain.imports import ListedItem
from v2c_desktop.core.errors import bad_request

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
        text = await deps.prepare(url)
        if not text:
            raise bad_request("no input given", "pass a playlist URL or a folder path")
        listing = await (await deps.core()).list_items(text, limit)
        return structured_result(
            {
                "input": url,
                "count": len(listing.items),
                "total": listing.total,
                "truncated": listing.truncated,
                "items": [item_out(item) for item in listing.items],
            }
        )

    add_tool(
        server,
        list_items,
        name="list_items",
        description=LIST_ITEMS,
        annotations=reads("List items"),
    )


def item_out(item: ListedItem) -> dict[str, Any]:
    """The MCP shape of a listed item (what the schema names, camelCase)."""
    out: dict[str, Any] = {
        "id": item.id,
        "platform": item.platform,
        "kind": item.kind,
        "nativeId": item.native_id,
    }
    if item.kind == "video":
        out["url"] = item.url
    else:
        out["path"] = item.path
        if item.url:
            out["url"] = item.url
        if item.title is not None:
            out["title"] = item.title
    return out
