"""`export_notion`: a Notion page per video under the user's page, with the user's token.

The token is the user's: `notion.token` in v2c's settings or the environment variable it
names (NOTION_TOKEN by default) of this server's process; an agent never passes one. The
parent page is `parentPageId` (a page URL or id) or the user's default. Served over stdio
only (`server.USER_FILE_TOOLS`): a remote client does not write into the user's workspace.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from v2c_desktop.core.errors import bad_request
from v2c_desktop.core.settings import load_settings

from ..deps import Deps
from ..inputs import CollectionRef, UrlList
from ..results import dumps, text_result, writes
from ..tooling import Progress, add_tool

EXPORT_NOTION = """\
Export videos (urls, imported first if new) and/or a collection to the user's Notion: one
page per video under the user's page (parentPageId, a Notion page URL or id, else the one
in the user's settings), with the video's details, chapters and the transcript, each line
an [m:ss] link that opens the video at that second. Uses the user's own Notion token from
v2c's settings; exporting again reuses the pages still there. Returns {parent, pages:
[{videoId, title, status (created|updated|unchanged|failed), url, reason}], created,
unchanged, failed (inputs that could not be read: {input, code, message, hint})}."""

ParentPage = Annotated[
    str | None,
    Field(
        max_length=500,
        description="The Notion page to export under: its URL or 32-character id "
        "(default: the user's page in v2c's settings).",
    ),
]


def register(server: MCPServer[Any], deps: Deps) -> None:
    async def export_notion(
        ctx: Context[Any, Any],
        urls: UrlList = None,
        collection: CollectionRef = None,
        parentPageId: ParentPage = None,
    ) -> CallToolResult:
        if not urls and not collection:
            raise bad_request(
                "give urls or a collection to export",
                'e.g. {"collection": "my-videos"} or {"urls": ["<url>"]}',
            )
        api = await deps.core()
        if collection:  # an unknown collection fails before anything is imported
            collection = (await api.get_collection(collection)).id
        progress = Progress(ctx, len(urls or ()) + 1)
        gathered = await deps.read_urls(urls, progress, required=not collection)
        report = await api.export_notion(
            gathered.video_ids,
            collection=collection,
            parent=parentPageId,
            token=load_settings().notion.resolved_token(),  # this process's environment
            progress=progress.listener(progress.total - 1, "export"),
        )
        await progress.drain()
        pages = [
            {
                "videoId": p.video_id,
                "title": p.title,
                "status": p.status,
                "url": p.url,
                "reason": p.reason,
            }
            for p in report.pages
        ]
        return text_result(
            dumps(
                {
                    "parent": report.parent,
                    "pages": pages,
                    "created": report.count("created") + report.count("updated"),
                    "unchanged": report.count("unchanged"),
                    # inputs that could not be read; a page Notion refused is in `pages`
                    "failed": [f.to_dict("agent") for f in gathered.failures],
                }
            )
        )

    add_tool(
        server,
        export_notion,
        name="export_notion",
        description=EXPORT_NOTION,
        annotations=writes("Export to Notion", idempotent=True, open_world=True),
    )
