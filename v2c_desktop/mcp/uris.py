"""The `v2c://` URIs of resources, for the resources themselves and for tools that point at
them (`watch_live` links the video it saved). Ids hold a colon (`youtube:abc`), so they are
URL-encoded (`v2c://video/youtube%3Aabc`); the resource templates decode them.

Apart from `resources.py` so a tool can name a resource without importing the module that
registers them on the server (which imports the server back).
"""

from __future__ import annotations

from urllib.parse import quote


def video_uri(video_id: str, part: str = "") -> str:
    return f"v2c://video/{quote(video_id, safe='')}{part}"


def collection_uri(collection_id: str, part: str = "") -> str:
    return f"v2c://collection/{quote(collection_id, safe='')}{part}"
