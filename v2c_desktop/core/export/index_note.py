"""The map of content (every exported video and brief, grouped by collection), the
playlist note Media Extended plays, and the Obsidian Base that shows the exported notes as
a table of their properties.

The index and the playlist list every note of the export folder, not only the ones this
export wrote: exporting one video after a whole collection must not cut the index down to
that one video. Their order depends only on what is listed, never on what this export
named, so a re-export with nothing new leaves them as they are.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..domain.videos import Collection
from .frontmatter import Flag
from .inert import inert
from .links import safe_url, wikilink
from .note import Rendered

INDEX_TAG = "v2c/index"
PLAYLIST_TAG = "v2c/playlist"


@dataclass(frozen=True, slots=True)
class Listed:
    """A video or brief note as the index lists it."""

    subject_id: str
    title: str
    target: str  # the note's vault path without `.md`
    media: str = ""  # a video's `media` URL, or its `[[file]]` inside the vault


def _by_title(items: list[Listed]) -> list[Listed]:
    return sorted(items, key=lambda x: (x.title.casefold(), x.target))


def video_order(videos: list[Listed], collections: list[Collection]) -> list[Listed]:
    """Every video once, in the order the index first lists it (collection by collection,
    then the others by title): the playlist plays them in that order."""
    by_id = {v.subject_id: v for v in videos}
    out: dict[str, Listed] = {}
    for collection in sorted(collections, key=lambda c: c.name.casefold()):
        for vid in collection.video_ids:
            if vid in by_id:
                out.setdefault(vid, by_id[vid])
    for video in _by_title(videos):
        out.setdefault(video.subject_id, video)
    return list(out.values())


def render_index(
    folder: str,
    videos: list[Listed],
    briefs: list[Listed],
    collections: list[Collection],
    playlist: str = "",  # the playlist note's target, when there is one
) -> Rendered:
    out = ["# Videos and briefs from v2c", ""]
    if playlist:
        out += [f"Play them all in Media Extended: {wikilink(playlist, text='Playlist')}", ""]
    listed: set[str] = set()
    by_id = {v.subject_id: v for v in videos}
    for collection in sorted(collections, key=lambda c: c.name.casefold()):
        members = list(dict.fromkeys(v for v in collection.video_ids if v in by_id))
        if not members:
            continue
        out += [f"## {inert(collection.name) or 'Collection'}", ""]
        if collection.description:
            out += [inert(collection.description), ""]
        out += [f"- {wikilink(by_id[v].target, text=by_id[v].title)}" for v in members]
        out.append("")
        listed.update(members)
    rest = [v for v in _by_title(videos) if v.subject_id not in listed]
    if rest:
        out += ["## Videos" if not listed else "## Other videos", ""]
        out += [f"- {wikilink(v.target, text=v.title)}" for v in rest]
        out.append("")
    if briefs:
        out += ["## Briefs", ""]
        ordered = sorted(briefs, key=lambda b: (b.target.casefold(), b.subject_id))
        out += [f"- {wikilink(b.target, text=b.title)}" for b in ordered]
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


def playlist_item(video: Listed) -> str:
    """`- [>] [Title](url)`, or `- [>] [[clip.mp4|Title]]` for a file inside the vault:
    a video item of a Media Extended playlist; "" for a video with nothing to play."""
    media = video.media.strip()
    if media.startswith("[[") and media.endswith("]]"):
        target = media[2:-2].split("|", 1)[0]
        return f"- [>] {wikilink(target, text=video.title)}" if target else ""
    url = safe_url(media)
    return f"- [>] [{inert(video.title) or 'Video'}]({url})" if url else ""


def render_playlist(folder: str, videos: list[Listed]) -> Rendered:
    """The playlist note: `playlist: true`, and its first list the videos in index order
    (what Media Extended reads as a playlist: it plays one after the other)."""
    items = [line for line in map(playlist_item, videos) if line]
    out = ["# Playlist", "", *(items or ["- (no video with a link to play yet)"])]
    return Rendered(
        kind="playlist",
        subject_id=folder,
        id_key="v2c_playlist",
        owned_keys=("title", "playlist"),
        props={"title": "v2c playlist", "playlist": Flag(True)},
        inside="\n".join(out),
        tags=[PLAYLIST_TAG],
    )


def render_base(folder: str) -> str:
    """A `.base` (YAML): a table of the exported videos and one of the briefs."""
    inside = json.dumps(f'file.inFolder("{folder}")')
    return "\n".join(
        [
            "filters:",
            "  and:",
            f"    - {inside}",
            "    - not:",  # the new versions a conflict put beside a note are not notes
            "        - 'file.hasProperty(\"v2c_conflict_of\")'",
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
