"""The map of content (every exported video and brief, grouped by collection) and the
Obsidian Base that shows the exported notes as a table of their properties."""

from __future__ import annotations

import json

from ..domain.videos import Collection
from .inert import inert
from .links import wikilink
from .note import Rendered

INDEX_TAG = "v2c/index"


def render_index(
    folder: str,
    videos: list[tuple[str, str, str]],  # (video id, title, note target)
    briefs: list[tuple[str, str]],  # (title, note target)
    collections: list[Collection],
) -> Rendered:
    out = ["# Videos and briefs from v2c", ""]
    listed: set[str] = set()
    by_id = {vid: (title, target) for vid, title, target in videos}
    for collection in sorted(collections, key=lambda c: c.name.casefold()):
        members = [v for v in collection.video_ids if v in by_id]
        if not members:
            continue
        out += [f"## {inert(collection.name) or 'Collection'}", ""]
        if collection.description:
            out += [inert(collection.description), ""]
        out += [f"- {wikilink(by_id[v][1], text=by_id[v][0])}" for v in members]
        out.append("")
        listed.update(members)
    rest = [v for v, _, _ in videos if v not in listed]
    if rest:
        out += ["## Videos" if not listed else "## Other videos", ""]
        out += [f"- {wikilink(by_id[v][1], text=by_id[v][0])}" for v in rest]
        out.append("")
    if briefs:
        out += ["## Briefs", ""]
        out += [f"- {wikilink(target, text=title)}" for title, target in briefs]
        out.append("")
    return Rendered(
        kind="index",
        subject_id=folder,
        id_key="v2c_index",
        owned_keys=("title",),
        props={"title": "v2c index"},
        inside="\n".join(out),
        tags=[INDEX_TAG],
    )


def render_base(folder: str) -> str:
    """A `.base` (YAML): a table of the exported videos and one of the briefs."""
    inside = json.dumps(f'file.inFolder("{folder}")')
    return "\n".join(
        [
            "filters:",
            "  and:",
            f"    - {inside}",
            "properties:",
            "  note.channel:",
            "    displayName: Channel",
            "  note.published:",
            "    displayName: Published",
            "  note.duration:",
            "    displayName: Seconds",
            "  note.origin:",
            "    displayName: Transcript",
            "views:",
            "  - type: table",
            "    name: Videos",
            "    filters:",
            "      and:",
            "        - 'file.hasTag(\"v2c/video\")'",
            "    order:",
            "      - file.name",
            "      - note.channel",
            "      - note.published",
            "      - note.duration",
            "      - note.origin",
            "  - type: table",
            "    name: Briefs",
            "    filters:",
            "      and:",
            "        - 'file.hasTag(\"v2c/brief\")'",
            "    order:",
            "      - file.name",
            "      - note.question",
            "      - note.status",
            "      - note.created",
        ]
    )
