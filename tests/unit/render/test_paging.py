"""Paging a long real transcript to the end in every format, each page valid on its own."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
import srt
import webvtt

from v2c_desktop.core.domain.videos import Segment, VideoRecord
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.render import FORMATS, context_header, estimate_tokens, paginate
from v2c_desktop.core.render.common import PageInfo, one_line
from v2c_desktop.core.render.formats import render_page
from v2c_desktop.core.render.paging import Page
from v2c_desktop.core.render.section import select_section
from v2c_desktop.core.timecode import clock

from .records import homunculus, ned, woodenfish

BUDGET = 700
TEXT_LINE = re.compile(r"^\[(\d+:\d\d(?::\d\d)?)\] (.*)$")
MD_LINE = re.compile(r"^\[(\d+:\d\d(?::\d\d)?)\]\(((?:file|https)://[^)]*)\) (.*)$")


def _all_pages(record: VideoRecord, fmt: str, budget: int, **kwargs: object) -> list[Page]:
    pages: list[Page] = []
    cursor: str | None = None
    while True:
        page = paginate(record, fmt, max_tokens=budget, cursor=cursor, **kwargs)  # type: ignore[arg-type]
        pages.append(page)
        if page.next_cursor is None:
            return pages
        cursor = page.next_cursor
        assert len(pages) < 2000, "paging does not advance"


def _trailer(page: Page) -> str:
    if page.next_cursor is None:
        return f"[End of transcript: {page.total_segments} segments]"
    return (
        f"[Partial transcript: segments {page.first_segment + 1}-{page.last_segment + 1}"
        f" of {page.total_segments}, next_cursor: {page.next_cursor}]"
    )


def _text_keys(record: VideoRecord, page: Page) -> list[tuple[str, str]]:
    header = context_header(record)
    assert page.text.startswith(header + "\n\n")
    lines = page.text.rstrip("\n").split("\n")
    assert lines[-1] == _trailer(page)
    body = lines[len(header.splitlines()) + 1 : -2]
    out = []
    for line in body:
        match = TEXT_LINE.match(line)
        assert match, line
        out.append((match.group(1), match.group(2)))
    return out


def _markdown_keys(record: VideoRecord, page: Page) -> list[tuple[str, str]]:
    assert page.text.startswith(f"# {record.video.title}\n")
    assert page.text.rstrip("\n").endswith("\n\n" + _trailer(page))
    out = []
    for line in page.text.splitlines():
        if line.startswith("[") and line != _trailer(page):
            match = MD_LINE.match(line)
            assert match, line
            out.append((match.group(1), match.group(3)))
    return out


def _json_keys(record: VideoRecord, page: Page) -> list[tuple[str, str]]:
    doc = json.loads(page.text)
    assert doc["video"]["id"] == record.video.id
    assert doc["page"] == {
        "cursor": page.cursor,
        "next_cursor": page.next_cursor,
        "first_segment": page.first_segment,
        "last_segment": page.last_segment,
        "total_segments": page.total_segments,
    }
    return [(clock(s["start"]), one_line(s["text"])) for s in doc["segments"]]


def _srt_keys(record: VideoRecord, page: Page) -> list[tuple[str, str]]:
    cues = list(srt.parse(page.text))
    assert [c.index for c in cues] == list(range(1, len(cues) + 1))
    return [(clock(c.start.total_seconds()), one_line(c.content)) for c in cues]


def _vtt_keys(record: VideoRecord, page: Page) -> list[tuple[str, str]]:
    assert page.text.startswith("WEBVTT\n")
    assert f"NOTE\n{_trailer(page)}\n" in page.text
    captions = webvtt.from_string(page.text).captions
    return [(clock(c.start_in_seconds), one_line(c.text)) for c in captions]


READERS: dict[str, Callable[[VideoRecord, Page], list[tuple[str, str]]]] = {
    "text": _text_keys,
    "markdown": _markdown_keys,
    "json": _json_keys,
    "srt": _srt_keys,
    "vtt": _vtt_keys,
}


def _expected(segments: list[Segment]) -> list[tuple[str, str]]:
    return [(clock(s.start), one_line(s.text)) for s in segments]


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize(
    ("build", "budget"), [(ned, BUDGET), (homunculus, 1200), (woodenfish, 2000)]
)
def test_paging_to_the_end(fmt: str, build: Callable[[], VideoRecord], budget: int) -> None:
    """Ned's keynote: no chapters, a long file path; Homunculus: a big chapter header;
    Woodenfish: 2471 auto-caption cues past the hour."""
    record = build()
    segments = record.transcript.segments
    total = len(segments)
    pages = _all_pages(record, fmt, budget)
    assert len(pages) > 3

    seen: list[tuple[str, str]] = []
    indexes: list[int] = []
    for number, page in enumerate(pages):
        seen.extend(READERS[fmt](record, page))
        indexes.extend(range(page.first_segment, page.last_segment + 1))
        assert page.total_segments == total
        assert page.cursor == f"seg:{page.first_segment}"
        assert page.tokens == estimate_tokens(page.text)
        assert page.last_segment >= page.first_segment
        single = page.first_segment == page.last_segment
        assert page.tokens <= budget or single
        if number + 1 < len(pages):
            assert page.next_cursor == f"seg:{page.last_segment + 1}"
            # the page is as full as the budget allows: one more segment would not fit
            info = PageInfo(
                page.first_segment,
                page.last_segment + 1,
                total,
                page.cursor,
                f"seg:{page.last_segment + 2}",
            )
            bigger = render_page(
                record, fmt, segments[page.first_segment : page.last_segment + 2], info
            )
            assert estimate_tokens(bigger) > budget
    assert pages[-1].next_cursor is None
    assert pages[-1].last_segment == total - 1
    assert indexes == list(range(total))
    assert seen == _expected(segments)


def test_one_page_when_everything_fits() -> None:
    record = homunculus()
    page = paginate(record, "text", max_tokens=100_000)
    assert (page.first_segment, page.last_segment, page.next_cursor) == (0, 181, None)
    assert page.text.rstrip("\n").endswith("\n\n[End of transcript: 182 segments]")
    doc = json.loads(paginate(record, "json", max_tokens=100_000).text)
    assert len(doc["segments"]) == 182
    assert doc["page"]["next_cursor"] is None


def test_a_budget_smaller_than_one_segment_still_returns_one_segment() -> None:
    record = homunculus()
    cursor: str | None = None
    for expected in range(3):
        page = paginate(record, "text", max_tokens=1, cursor=cursor)
        assert page.first_segment == page.last_segment == expected
        assert page.tokens > 1
        assert page.next_cursor == f"seg:{expected + 1}"
        cursor = page.next_cursor
    assert "[Partial transcript: segments 3-3 of 182, next_cursor: seg:3]" in page.text


def test_cursor_resumes_anywhere() -> None:
    record = ned()
    page = paginate(record, "json", max_tokens=BUDGET, cursor="seg:790")
    assert page.first_segment == 790
    assert page.last_segment == 794
    assert page.next_cursor is None
    assert [s["text"] for s in json.loads(page.text)["segments"]][-1] == "Enjoy PyCon."


@pytest.mark.parametrize("cursor", ["seg:abc", "12", "seg:-1", "seg:795", "page:2", "seg: 3"])
def test_bad_cursors_are_bad_requests(cursor: str) -> None:
    with pytest.raises(V2CError) as caught:
        paginate(ned(), "text", max_tokens=BUDGET, cursor=cursor)
    assert caught.value.code == "bad-request"
    assert "next_cursor" in caught.value.hint


def test_budget_must_be_positive_and_format_known() -> None:
    with pytest.raises(V2CError) as caught:
        paginate(ned(), "text", max_tokens=0)
    assert caught.value.code == "bad-request"
    with pytest.raises(V2CError) as caught:
        paginate(ned(), "pdf", max_tokens=BUDGET)
    assert caught.value.code == "bad-request"


def test_paging_a_section_counts_within_the_section() -> None:
    record = homunculus()
    section = select_section(record, chapter="How Human Smell Works")
    pages = _all_pages(record, "srt", 150, segments=section.segments)
    assert len(pages) > 1
    assert pages[0].total_segments == len(section.segments)
    assert pages[1].cursor == f"seg:{pages[0].last_segment + 1}"
    seen = [key for page in pages for key in _srt_keys(record, page)]
    assert seen == _expected(section.segments)
    assert seen[0][0] == "5:48"


def test_paging_without_timestamps_keeps_every_word() -> None:
    record = homunculus()
    pages = _all_pages(record, "text", 400, timestamps=False)
    header = context_header(record)
    words: list[str] = []
    for page in pages:
        body = page.text[len(header) :].rstrip("\n").rsplit("\n\n", 1)[0]
        words.extend(body.split())
    assert words == " ".join(s.text for s in record.transcript.segments).split()


def test_an_empty_transcript_is_one_empty_page() -> None:
    record = homunculus()
    record.transcript.segments = []
    page = paginate(record, "json", max_tokens=BUDGET)
    assert (page.first_segment, page.last_segment, page.total_segments) == (0, -1, 0)
    assert page.next_cursor is None
    assert json.loads(page.text)["segments"] == []
