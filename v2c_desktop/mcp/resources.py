"""Resources: saved videos and collections as readable documents an agent can attach.

Clients that browse resources (Claude Desktop's attachment menu, for one) list them, so the
newest 500 videos and every collection are listed from the library on each `resources/list`;
the URI templates answer for any id. Ids hold a colon (`youtube:abc`), so they are
URL-encoded in URIs (`v2c://video/youtube%3Aabc`); the template match decodes them.

`v2c://collection/{id}/latest` is the collection's newest items (the videos added to it
last): subscribe to it (`subscriptions.py`) and the server says when an import anywhere (the
app, `v2c add`, another agent) changes it.

Resources have no `isError` result: a missing id is a protocol error whose `data` is the
same JSON error body the tools use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS, Resource

from v2c_desktop.core.domain.videos import Collection, CollectionItem, VideoRecord
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.render import render
from v2c_desktop.core.timecode import clock

from .deps import Deps
from .results import dumps, error_body
from .tools.collections import collection_view
from .uris import collection_uri, video_uri
from .views import video_metadata

if TYPE_CHECKING:
    from .server import V2CServer

LISTED_VIDEOS = 500
#: How many of a collection's newest items `v2c://collection/{id}/latest` holds.
LATEST_ITEMS = 10
RESOURCE_NOT_FOUND = -32002  # the MCP spec's code for a resource that does not exist


def latest_view(collection: Collection, items: list[CollectionItem]) -> dict[str, Any]:
    """A collection's newest items, newest first, each with when it joined the collection."""
    return {
        "collection": {"id": collection.id, "name": collection.name},
        "videos": len(collection.video_ids),
        "limit": LATEST_ITEMS,
        "items": [
            {
                "id": item.video_id,
                "title": item.title or item.video_id,
                "url": item.url or None,
                "channel": item.channel,
                "addedAt": item.added_at,
                "published": item.published,
                "durationSec": round(item.duration, 1),
                "duration": clock(item.duration),
                "resource": video_uri(item.video_id),
            }
            for item in items
        ],
    }


def _protocol_error(error: V2CError) -> MCPError:
    code = {"not-found": RESOURCE_NOT_FOUND, "bad-request": INVALID_PARAMS}.get(
        error.code, INTERNAL_ERROR
    )
    hint = f" ({error.hint_for('agent')})" if error.hint else ""
    return MCPError(code, f"{error.message}{hint}", error_body(error))


async def _saved_video(deps: Deps, ref: str) -> VideoRecord:
    """The saved video `ref` names, or the protocol error a resource read must raise."""
    try:
        api = await deps.core()
        return await api.get_video(await api.resolve(ref))
    except V2CError as error:
        raise _protocol_error(error) from None


def register(server: V2CServer, deps: Deps) -> None:
    @server.resource(
        "v2c://video/{id}/transcript",
        name="video_transcript",
        title="Video transcript",
        description="The source header, then the transcript as [m:ss] lines.",
        mime_type="text/plain",
    )
    async def video_transcript(id: str) -> str:
        return render(await _saved_video(deps, id), "text")

    @server.resource(
        "v2c://video/{id}",
        name="video",
        title="Video metadata",
        description="A saved video's metadata, transcript origin, token count and chapters.",
        mime_type="application/json",
    )
    async def video(id: str) -> str:
        return dumps(video_metadata(await _saved_video(deps, id)))

    @server.resource(
        "v2c://collection/{id}",
        name="collection",
        title="Collection",
        description="A collection's videos with token counts, the total, and missing ids.",
        mime_type="application/json",
    )
    async def collection(id: str) -> str:
        try:
            api = await deps.core()
            return dumps(await collection_view(api, await api.get_collection(id)))
        except V2CError as error:
            raise _protocol_error(error) from None

    @server.resource(
        "v2c://collection/{id}/latest",
        name="collection_latest",
        title="Collection: newest items",
        description=f"The {LATEST_ITEMS} videos added to a collection last, newest first: "
        "title, URL, when added, duration. Subscribe to hear when it changes.",
        mime_type="application/json",
    )
    async def collection_latest(id: str) -> str:
        try:
            api = await deps.core()
            found = await api.get_collection(id)
            items = await api.latest_in_collection(found.id, LATEST_ITEMS)
        except V2CError as error:
            raise _protocol_error(error) from None
        return dumps(latest_view(found, items))

    async def listed() -> list[Resource]:
        api = await deps.core()
        videos = sorted(await api.list_videos(), key=lambda v: v.added_at, reverse=True)
        out: list[Resource] = []
        for v in videos[:LISTED_VIDEOS]:
            out.append(
                Resource(
                    uri=video_uri(v.id),
                    name=v.id,
                    title=v.title,
                    description=f"{v.channel or v.source_path or v.url}: metadata and chapters",
                    mime_type="application/json",
                )
            )
            out.append(
                Resource(
                    uri=video_uri(v.id, "/transcript"),
                    name=f"{v.id}/transcript",
                    title=f"{v.title} (transcript)",
                    mime_type="text/plain",
                )
            )
        for c in await api.list_collections():
            out.append(
                Resource(
                    uri=collection_uri(c.id),
                    name=f"collection/{c.id}",
                    title=c.name,
                    description=f"{len(c.video_ids)} videos",
                    mime_type="application/json",
                )
            )
            out.append(
                Resource(
                    uri=collection_uri(c.id, "/latest"),
                    name=f"collection/{c.id}/latest",
                    title=f"{c.name} (newest)",
                    description=f"the {LATEST_ITEMS} videos added last; subscribable",
                    mime_type="application/json",
                )
            )
        return out

    server.add_resource_lister(listed)
