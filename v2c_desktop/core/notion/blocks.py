"""A video as Notion blocks: details, chapters and the transcript, every time a link.

Notion's limits shape this (API version 2022-06-28): a rich-text item holds at most 2,000
characters, a block at most 100 rich-text items, a request at most 100 child blocks (the
rest are appended in later requests). Transcript lines are grouped into paragraphs of
`LINES_PER_PARAGRAPH`, each line a `[m:ss]` link that opens the video at that second, then
its text. Text from the video (titles, captions) is plain rich text: Notion never reads it
as markup, and the only links are the ones made here from the video's own http(s) address.
"""

from __future__ import annotations

from typing import Any

from ..domain.videos import VideoRecord
from ..ids import is_web, timestamp_url
from ..timecode import clock

TEXT_LIMIT = 2000  # characters in one rich-text item
ITEMS_LIMIT = 100  # rich-text items in one block
CHILDREN_LIMIT = 100  # child blocks in one request
LINES_PER_PARAGRAPH = 30  # two items a line: a paragraph stays under ITEMS_LIMIT
TITLE_LIMIT = 2000

Block = dict[str, Any]
_ORIGIN_WORDS = {
    "creator-captions": "creator captions",
    "auto-captions": "auto-captions",
    "subtitle-file": "a subtitle file",
    "stt": "speech-to-text",
}


def text(content: str, link: str = "", *, bold: bool = False) -> list[dict[str, Any]]:
    """Rich-text items for `content` (split at the item limit), linked when `link` is web."""
    if not content:
        return []
    linked = {"url": link} if link and is_web(link) else None
    items = []
    for start in range(0, len(content), TEXT_LIMIT):
        item: dict[str, Any] = {
            "type": "text",
            "text": {"content": content[start : start + TEXT_LIMIT], "link": linked},
        }
        if bold:
            item["annotations"] = {"bold": True}
        items.append(item)
    return items


def _block(kind: str, rich: list[dict[str, Any]]) -> Block:
    return {"object": "block", "type": kind, kind: {"rich_text": rich[:ITEMS_LIMIT]}}


def page_title(record: VideoRecord) -> str:
    return (record.video.title.strip() or record.video.id)[:TITLE_LIMIT]


def video_blocks(record: VideoRecord) -> list[Block]:
    """Every block of the video's page, in order (the caller sends them 100 at a time)."""
    video = record.video
    origin = record.transcript.origin
    details = [
        part
        for part in (
            video.channel,
            video.published or "",
            clock(record.duration) if record.duration else "",
            f"transcript from {_ORIGIN_WORDS.get(origin, origin)}",
        )
        if part
    ]
    blocks: list[Block] = []
    opening = timestamp_url(video, 0)
    line = text(" · ".join(details))
    if opening and is_web(opening):
        line += text("  ") + text("Open the video", opening)
    if line:
        blocks.append(_block("paragraph", line))
    if record.chapters:
        blocks.append(_block("heading_2", text("Chapters")))
        for chapter in record.chapters:
            stamp = clock(chapter.start)
            blocks.append(
                _block(
                    "bulleted_list_item",
                    text(f"[{stamp}]", timestamp_url(video, chapter.start))
                    + text(f" {chapter.title}"),
                )
            )
    blocks.append(_block("heading_2", text("Transcript")))
    rich: list[dict[str, Any]] = []
    lines = 0
    for segment in record.transcript.segments:
        words = " ".join(segment.text.split())
        items = text(f"[{clock(segment.start)}]", timestamp_url(video, segment.start))
        items += text(f" {words}\n")
        if rich and (lines == LINES_PER_PARAGRAPH or len(rich) + len(items) > ITEMS_LIMIT):
            blocks.append(_block("paragraph", rich))
            rich, lines = [], 0
        rich += items[:ITEMS_LIMIT]  # one line of 200,000 characters is cut, not refused
        lines += 1
    if rich:
        blocks.append(_block("paragraph", rich))
    return blocks


def batches(blocks: list[Block]) -> list[list[Block]]:
    """The blocks in requests of at most `CHILDREN_LIMIT`."""
    return [blocks[i : i + CHILDREN_LIMIT] for i in range(0, len(blocks), CHILDREN_LIMIT)]
