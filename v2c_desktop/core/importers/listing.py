"""What an input holds, without importing any of it: the videos and the ids they would get.

An agent (or a person) deciding what to read needs the list before paying for imports. The
expansion is the importers' own (`plan_inputs` with the web expander), so what this lists is
what an import of the same input would read; ids are worked out the way the importers do.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from urllib.parse import urlparse

from ..domain.imports import ItemListing, ListedItem
from ..errors import V2CError, bad_request
from ..file_kinds import INFO_JSON_MAX_BYTES
from ..ids import file_video_id, youtube_id_from_url
from .inputs import PlannedItem, plan_inputs
from .local import LocalItem
from .reading import read_limited
from .web.metadata import video_from_info
from .web_access import WebAccess


async def list_items(text: str, web: WebAccess, limit: int) -> ItemListing:
    """The first `limit` videos of `text` (an input as `add` takes it), and how many in all."""
    if not text.strip():
        raise bad_request("no input given", "pass a playlist URL or a folder path")
    planned, failures = await plan_inputs([text], web.expand)
    if failures and not planned:
        raise failures[0].error
    items = [await asyncio.to_thread(describe, item) for item in planned[:limit]]
    return ItemListing(text, items, len(planned))


def describe(item: PlannedItem) -> ListedItem:
    """The id an import would give the item, worked out the way the importers do."""
    if item.url is not None:
        native = youtube_id_from_url(item.url)
        if native:
            return ListedItem("video", f"youtube:{native}", "youtube", native, item.url)
        host = (urlparse(item.url).hostname or "web").removeprefix("www.")
        return ListedItem("video", None, host, None, item.url)
    assert item.local is not None
    return _describe_local(item.local)


def _describe_local(local: LocalItem) -> ListedItem:
    english = [path for path, lang in local.subtitles if lang.lower().split("-")[0] == "en"]
    subtitles = english or [path for path, _ in local.subtitles]
    subtitle = subtitles[0] if subtitles else None
    main = local.media or subtitle  # what `load_local` hashes for the id
    path = str(main) if main else local.label
    if local.info_json is not None:
        try:
            raw = read_limited(local.info_json, INFO_JSON_MAX_BYTES, "a .info.json file")
            video = video_from_info(json.loads(raw.decode("utf-8")))
        except (V2CError, ValueError, AttributeError, RecursionError):
            video = None
        if video is not None and video.native_id:
            return ListedItem(
                "local",
                video.id,
                video.platform,
                video.native_id,
                video.url or None,
                path,
                video.title,
            )
    try:
        vid = file_video_id(Path(main)) if main else None
    except OSError as exc:
        raise V2CError("bad-request", f"cannot read {main}: {exc}", "check the file") from exc
    native = vid.split(":", 1)[1] if vid else None
    return ListedItem("local", vid, "file", native, None, path, local.base)
