"""A video as Notion blocks within the API's limits, and the client against the API's page
endpoints on 127.0.0.1 (tests/support/notion_api.py)."""

from __future__ import annotations

import asyncio

import pytest

from tests.conftest import corpus_path
from tests.support.notion_api import PARENT, TOKEN, notion_api
from v2c_desktop.core.domain.videos import Segment, Transcript, Video, VideoRecord
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.importers.local import item_for_file, load_local
from v2c_desktop.core.notion.blocks import (
    CHILDREN_LIMIT,
    ITEMS_LIMIT,
    TEXT_LIMIT,
    batches,
    video_blocks,
)
from v2c_desktop.core.notion.client import NotionClient, page_id

INTRO = (
    "transcripts/crashcourse-psychology/"
    "intro_to_psychology_crash_course_psychology_1_vo4pMVb0R6M.en.srt"
)


def _rich(block: dict[str, object]) -> list[dict[str, object]]:
    return block[block["type"]]["rich_text"]  # type: ignore[index,no-any-return]


def _long_talk() -> VideoRecord:
    """A real transcript repeated to four hours' worth of lines (a long livestream)."""
    record = load_local(item_for_file(corpus_path(INTRO)))
    segments = record.transcript.segments
    span = segments[-1].end
    many = [
        Segment(s.start + span * n, s.end + span * n, s.text) for n in range(24) for s in segments
    ]
    video = Video("youtube:vo4pMVb0R6M", record.video.title, "youtube", "vo4pMVb0R6M")
    return VideoRecord(video, Transcript("creator-captions", "en", many))


@pytest.mark.corpus
def test_every_block_keeps_to_notions_limits_and_every_line_plays() -> None:
    record = _long_talk()
    blocks = video_blocks(record)
    assert len(blocks) > CHILDREN_LIMIT  # so the page is sent in several requests
    assert all(len(b) <= CHILDREN_LIMIT for b in batches(blocks))
    stamps = 0
    for block in blocks:
        rich = _rich(block)
        assert len(rich) <= ITEMS_LIMIT
        for item in rich:
            assert len(item["text"]["content"]) <= TEXT_LIMIT  # type: ignore[index]
            link = item["text"]["link"]  # type: ignore[index]
            if link:
                assert link["url"].startswith("https://www.youtube.com/watch?v=vo4pMVb0R6M&t=")
                stamps += 1
    assert stamps == len(record.transcript.segments) + 1  # each line, and "Open the video"


def test_a_hostile_title_and_transcript_stay_plain_text_with_no_links_of_their_own() -> None:
    video = Video(
        "web:x",
        "# [[Home]] **bold** [x](javascript:alert(1))",
        "web",
        "x",
        url="javascript:alert(1)",
    )
    text = "[click](https://evil.example) <script>alert(1)</script> {{template}}"
    record = VideoRecord(video, Transcript("auto-captions", "en", [Segment(0, 2, text)]))
    blocks = video_blocks(record)
    assert all(not item["text"]["link"] for b in blocks for item in _rich(b))  # type: ignore[index]
    assert any(text in "".join(i["text"]["content"] for i in _rich(b)) for b in blocks)  # type: ignore[index]


def test_a_page_is_named_by_its_link_or_its_id() -> None:
    dashed = "0f3c2b1a-9d8e-4f7a-8b6c-5d4e3f2a1b0c"
    assert page_id(f"https://www.notion.so/team/My-research-{PARENT}?pvs=4") == dashed
    assert page_id(PARENT.upper()) == dashed and page_id(dashed) == dashed
    with pytest.raises(V2CError) as refused:
        page_id("https://www.notion.so/no-id-here")
    assert refused.value.code == "bad-request"


@pytest.mark.corpus
def test_a_long_page_is_made_then_appended_to_in_requests_of_a_hundred_blocks() -> None:
    blocks = video_blocks(_long_talk())

    async def make() -> str:
        async with NotionClient(api.url, TOKEN, wait=lambda _s: asyncio.sleep(0)) as client:
            return (await client.create_page(page_id(PARENT), "A long talk", blocks)).id

    with notion_api() as api:
        api.busy = 2  # two 429s on the way: waited for, then the page is made
        made = asyncio.run(make())
        page = api.pages[made]
        assert page.blocks == blocks
        appends = [r for r in api.requests if r[0] == "PATCH"]
        assert len(appends) == len(batches(blocks)) - 1
        assert all(TOKEN not in path for _m, path, _h in api.requests)
