"""Comments through `CoreAPI.get_comments`, on a real library file, with YouTube replayed:
the recorded player responses read as yt-dlp reads them and hand-written `comments` lists
in yt-dlp's documented shape (tests/fixtures/comments/README.md). Covers the normalising
(thread order, dates, flags, hostile text kept as text), the reuse of kept comments and the
limit, a video without captions (comments kept by id, not in the library), local files and
sites without comments (`unsupported-input`, hints worded per face), comments turned off,
what survives a reopen and a removal, and a cancelled read that keeps nothing."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import REPO, corpus_path, first_cues
from tests.support.youtube_replay import (
    COMMENTS,
    PLAYERS,
    CaptionSite,
    ReplayInfoSource,
    watch_url,
)
from tests.unit.owner.toys import run
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.comments.normalise import MAX_TEXT, comments_from_info, one_comment
from v2c_desktop.core.domain.comments import MAX_LIMIT, Comment, Comments
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.importers.web.info_source import YtDlpInfoSource, ytdlp_options
from v2c_desktop.core.importers.web.settings import WebSettings
from v2c_desktop.core.importers.web_access import WebAccess
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import Settings
from v2c_desktop.core.wire_codec import decode, encode

SURFACE = "GJLlxj_dtq8"  # creator and auto captions; ten hand-written comments
QUIET = "dsMFmonKDD4"  # no captions at all; three comments
SAMPLES = REPO / "resources" / "samples"
SAMPLE_SRT = SAMPLES / "testing-spacecraft-with-pytest.en.srt"
OTHER_SITE = "https://talks.example.org/v/42"


def recorded(video_id: str) -> list[dict[str, Any]]:
    data: dict[str, list[dict[str, Any]]] = json.loads(COMMENTS.read_text(encoding="utf-8"))
    return data[video_id]


class Site(ReplayInfoSource):
    """The replayed YouTube, plus a page on another site whose extractor reads no comments,
    scripted answers for a video (comments turned off), and a gate that holds a comments
    read until the test opens it (to cancel one mid-read)."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.turned_off: set[str] = set()
        self.gate: asyncio.Event | None = None
        self.reading = asyncio.Event()

    async def extract(
        self, url: str, *, flat: bool = False, comments: int | None = None
    ) -> dict[str, Any]:
        if url == OTHER_SITE:
            self.calls.append(url)
            return {
                "id": "42",
                "title": "A talk on another site",
                "extractor": "talks",
                "extractor_key": "Talks",
                "webpage_url": OTHER_SITE,
                "subtitles": {},
            }
        if comments is not None and self.gate is not None:
            self.reading.set()
            await self.gate.wait()
        info = await super().extract(url, flat=flat, comments=comments)
        if comments is not None and info["id"] in self.turned_off:
            info["comments"] = None  # yt-dlp's answer when the site turned comments off
        return info


async def open_core(path: Path) -> tuple[CoreAPI, Site]:
    site = Site(corpus_path(PLAYERS))
    web = WebAccess(site, httpx.AsyncClient(transport=CaptionSite().transport), WebSettings())
    services = await asyncio.to_thread(
        Services.open, path, settings=Settings(), web=web, index_on_import=False
    )
    return CoreAPI(services), site


def failure(call: Any) -> V2CError:
    with pytest.raises(V2CError) as caught:
        run(call)
    return caught.value


# -- normalising -----------------------------------------------------------------------------
def test_yt_dlp_comments_become_threaded_comments_with_dates_and_flags() -> None:
    got = comments_from_info(recorded(SURFACE), 100)
    assert len(got) == 10
    assert [c.id for c in got[:4]] == [
        "UgwPinned0000000000000004AaABAg",
        "UgxReviewer0000000000004AaABAg",
        "UgxReviewer0000000000004AaABAg.8kQa0000000",
        "UgxReviewer0000000000004AaABAg.8kQb0000000",
    ]
    pinned, reviewer, reply, uploader_reply = got[:4]
    assert pinned.pinned and pinned.by_uploader and pinned.verified and not pinned.is_reply
    assert pinned.author == "@Dave2D" and pinned.likes == 4210
    assert pinned.published == "2018-08-01"  # 1533081600, in UTC
    assert pinned.parent_id is None  # yt-dlp's "root"
    assert reviewer.favorited and reviewer.text.count("\n") == 1  # line breaks are kept
    assert reply.is_reply and reply.parent_id == reviewer.id and not reply.by_uploader
    assert uploader_reply.by_uploader and uploader_reply.parent_id == reviewer.id
    assert "😄" in uploader_reply.text


def test_hostile_text_stays_plain_text_without_escapes() -> None:
    hostile = next(c for c in comments_from_info(recorded(SURFACE), 100) if c.likes == 0)
    assert "\x1b" not in hostile.text and "\x07" not in hostile.text
    assert "cm0gLXJmIH4=" not in hostile.text  # the OSC 52 payload went with its escape
    assert hostile.text.endswith("see you")
    # markup and links are the author's words, kept as the text they are, never parsed
    assert "<script>alert('x')</script>" in hostile.text
    assert '<a href="javascript:alert(1)">free Surface</a>' in hostile.text
    assert "[click here](http://evil.example/login)" in hostile.text
    assert hostile.author == "@totally<b>legit</b>"


def test_an_html_body_is_reduced_to_its_text_and_odd_fields_are_dropped() -> None:
    entry = {
        "id": 7,
        "html": '<p>Nice <a href="https://evil.example">link</a><br>next line</p>'
        "<script>steal()</script>&amp; more",
        "timestamp": "yesterday",
        "like_count": "12",
        "author": ["not", "a", "name"],
        "parent": "root",
        "is_pinned": "yes",
    }
    comment = one_comment(entry, fallback_id="#0")
    assert comment is not None
    assert comment.text == "Nice link\nnext line\n& more"
    assert comment.id == "7" and comment.author == ""
    assert comment.published is None and comment.likes is None and not comment.pinned
    assert one_comment({"id": "x", "text": "  \x1b[2J "}, fallback_id="#1") is None
    assert one_comment({"text": "a" * (MAX_TEXT + 50)}, fallback_id="#2") == Comment(
        id="#2", author="", text="a" * MAX_TEXT
    )


def test_the_limit_keeps_the_first_comments_and_orphan_replies_come_last() -> None:
    raw: list[Any] = [
        {"id": "r1.a", "parent": "r1", "text": "a reply whose comment was not read"},
        "not a comment",
        {"id": "t1", "parent": "root", "text": "first"},
        {"id": "t1", "parent": "root", "text": "the same id again"},
        {"id": "t1.a", "parent": "t1", "text": "reply"},
        {"id": "t2", "text": "second (no parent field: top level)"},
        {"id": "t3", "text": "beyond the limit"},
    ]
    got = comments_from_info(raw, 4)
    assert [c.id for c in got] == ["t1", "t1.a", "t2", "r1.a"]
    assert got[-1].is_reply and got[-1].parent_id == "r1"


def test_comments_cross_the_owner_socket() -> None:
    found = Comments(
        "youtube:x",
        "T",
        "https://www.youtube.com/watch?v=x",
        comments_from_info(recorded(QUIET), 5),
    )
    again = decode(json.loads(json.dumps(encode(found))), Comments)
    assert again == found and again.count == 3 and again.comments[1].is_reply


# -- asking yt-dlp ----------------------------------------------------------------------------
class _Recorded:
    """A `YoutubeDL` stand-in that answers one info dict and keeps the options it got."""

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options

    def __enter__(self) -> _Recorded:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def extract_info(self, url: str, download: bool = True) -> dict[str, Any]:
        return {"id": SURFACE, "subtitles": {"en": []}, "comments": []}

    def sanitize_info(self, info: dict[str, Any]) -> dict[str, Any]:
        return info


def test_yt_dlp_reads_comments_only_when_asked_with_youtubes_own_limit() -> None:
    import yt_dlp

    seen: list[dict[str, Any]] = []

    def factory(options: dict[str, Any]) -> _Recorded:
        seen.append(options)
        return _Recorded(options)

    source = YtDlpInfoSource(WebSettings(), factory=factory)
    run(source.extract(watch_url(SURFACE)))
    run(source.extract(watch_url(SURFACE), comments=7))
    assert "getcomments" not in seen[0] and "extractor_args" not in seen[0]
    assert seen[1]["getcomments"] is True
    # the options as the real yt-dlp's YouTube extractor reads them
    options = ytdlp_options(WebSettings(), flat=False, logger=None, comments=7)
    assert options == {**seen[1], "logger": None}
    with yt_dlp.YoutubeDL(options) as ydl:
        youtube = ydl.get_info_extractor("Youtube")
        assert youtube.get_param("getcomments") is True
        assert youtube._configuration_arg("max_comments") == ["7"]
        assert youtube._configuration_arg("comment_sort") == ["top"]


# -- through CoreAPI ---------------------------------------------------------------------------
def test_a_new_video_is_imported_and_kept_comments_are_reused_up_to_the_limit(
    tmp_path: Path,
) -> None:
    async def go() -> tuple[list[Comments], Site, list[str]]:
        api, site = await open_core(tmp_path / "lib.duckdb")
        try:
            shown = [
                await api.get_comments(watch_url(SURFACE), 5),
                await api.get_comments(f"youtube:{SURFACE}", 3),  # fewer: from the library
                await api.get_comments(SURFACE, 8),  # more than kept: read again
                await api.get_comments(watch_url(SURFACE), 50),  # all ten there are
                await api.get_comments(watch_url(SURFACE), 40),  # all there are: kept
            ]
            return shown, site, [v.id for v in await api.list_videos()]
        finally:
            await api.aclose()

    (five, three, eight, fifty, forty), site, videos = run(go())
    assert videos == [f"youtube:{SURFACE}"]  # every read is saved
    assert five.in_library and five.video_id == f"youtube:{SURFACE}" and not five.note
    assert five.title == "Surface Go Review - It’s Awesome" and five.url == watch_url(SURFACE)
    assert five.count == 5 and not five.complete and not five.from_library
    assert three.from_library and three.count == 3
    assert [c.id for c in three.comments] == [c.id for c in five.comments[:3]]
    assert not eight.from_library and eight.count == 8
    assert fifty.count == 10 and fifty.complete and not fifty.from_library
    assert forty.from_library and forty.count == 10 and forty.complete
    assert [n for _, n in site.comment_calls] == [5, 8, 50]  # YouTube's max_comments
    assert fifty.fetched_at and forty.fetched_at == fifty.fetched_at


def test_refresh_reads_again_and_comments_outlive_a_reopen_but_not_a_removal(
    tmp_path: Path,
) -> None:
    library = tmp_path / "lib.duckdb"

    async def first() -> int:
        api, site = await open_core(library)
        try:
            await api.get_comments(watch_url(SURFACE), 4)
            await api.get_comments(watch_url(SURFACE), 4, refresh=True)
            return len(site.comment_calls)
        finally:
            await api.aclose()

    async def reopened() -> tuple[Comments, int, Comments]:
        api, site = await open_core(library)
        try:
            kept = await api.get_comments(f"youtube:{SURFACE}", 4)
            await api.remove(f"youtube:{SURFACE}")
            after = await api.get_comments(watch_url(SURFACE), 2)  # imported again, read again
            return kept, len(site.comment_calls), after
        finally:
            await api.aclose()

    assert run(first()) == 2
    kept, calls, after = run(reopened())
    assert kept.from_library and kept.count == 4 and calls == 1
    assert not after.from_library and after.count == 2 and after.in_library


def test_a_video_without_captions_still_has_its_comments_kept_by_its_id(tmp_path: Path) -> None:
    async def go() -> tuple[Comments, Comments, list[str], int]:
        api, site = await open_core(tmp_path / "lib.duckdb")
        try:
            first = await api.get_comments(watch_url(QUIET))
            reads = len(site.calls)
            again = await api.get_comments(QUIET, 3)
            assert len(site.calls) == reads  # the kept comments: no page read, no import
            return first, again, [v.id for v in await api.list_videos()], len(site.calls)
        finally:
            await api.aclose()

    first, again, videos, _ = run(go())
    assert videos == []  # the library holds videos with a transcript only
    assert not first.in_library and first.video_id == f"youtube:{QUIET}"
    assert "no captions" in first.note and f"youtube:{QUIET}" in first.note
    assert first.count == 3 and first.complete
    assert first.title.startswith("Angèle - Eels")
    assert [c.is_reply for c in first.comments] == [False, True, False]
    assert again.from_library and not again.in_library and again.count == 3
    assert again.title == first.title and again.url == watch_url(QUIET)


def test_local_files_and_sites_without_comments_are_unsupported(tmp_path: Path) -> None:
    # a subtitle file with nothing beside it naming a web page (the sample's folder names
    # its YouTube page, so the sample itself has comments there)
    talk = first_cues(SAMPLE_SRT, 5, tmp_path / "talk.en.srt")

    async def go() -> tuple[list[V2CError], list[str], list[str]]:
        api, site = await open_core(tmp_path / "lib.duckdb")
        try:
            result = await api.add([str(talk)])
            sample = result.outcomes[0].video_id or ""
            assert sample.startswith("file:"), result.to_dict()
            errors = []
            for ref in (sample, str(talk), str(tmp_path), OTHER_SITE):
                with pytest.raises(V2CError) as caught:
                    await api.get_comments(ref)
                errors.append(caught.value)
            return errors, site.calls, [v.id for v in await api.list_videos()]
        finally:
            await api.aclose()

    (by_id, by_path, folder, other), calls, videos = run(go())
    for error in (by_id, by_path, folder, other):
        assert error.code == "unsupported-input", error
    assert "file on this computer" in by_id.message and "file on this computer" in by_path.message
    assert "Talks" in other.message and "A talk on another site" in other.message
    assert calls == [OTHER_SITE]  # files were refused without a read; the other site: once
    assert len(videos) == 1  # the page without comments was not imported
    # one hint, worded for each face
    assert "`v2c comments URL`" in by_id.hint_for("cli")
    assert "details show Comments" in by_id.hint_for("app")
    assert "library id of a video imported" in by_id.hint_for("agent")
    assert "{" not in other.hint_for("agent") and "yt-dlp reads comments" in other.hint


def test_comments_turned_off_are_an_empty_complete_answer(tmp_path: Path) -> None:
    async def go() -> tuple[Comments, Comments]:
        api, site = await open_core(tmp_path / "lib.duckdb")
        site.turned_off.add(SURFACE)
        try:
            return await api.get_comments(watch_url(SURFACE)), await api.get_comments(SURFACE, 9)
        finally:
            await api.aclose()

    off, again = run(go())
    assert off.disabled and off.complete and off.count == 0 and off.in_library
    assert again.from_library and again.disabled


def test_a_bad_limit_or_an_unknown_video_is_refused_before_any_read(tmp_path: Path) -> None:
    async def go() -> tuple[list[V2CError], list[str]]:
        api, site = await open_core(tmp_path / "lib.duckdb")
        errors = []
        try:
            for ref, limit in ((SURFACE, 0), (SURFACE, MAX_LIMIT + 1), ("no such title", 5)):
                with pytest.raises(V2CError) as caught:
                    await api.get_comments(ref, limit)
                errors.append(caught.value)
            return errors, site.calls
        finally:
            await api.aclose()

    (zero, many, unknown), calls = run(go())
    assert zero.code == many.code == "bad-request" and str(MAX_LIMIT) in many.message
    assert unknown.code == "not-found"
    assert calls == []


def test_a_cancelled_read_keeps_nothing(tmp_path: Path) -> None:
    async def go() -> tuple[bool, list[str], Comments]:
        api, site = await open_core(tmp_path / "lib.duckdb")
        site.gate = asyncio.Event()
        try:
            task = asyncio.create_task(api.get_comments(watch_url(SURFACE), 5))
            await site.reading.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            videos = [v.id for v in await api.list_videos()]
            site.gate.set()
            after = await api.get_comments(watch_url(SURFACE), 5)
            return task.cancelled(), videos, after
        finally:
            await api.aclose()

    cancelled, videos, after = run(go())
    assert cancelled and videos == []
    assert not after.from_library  # nothing had been kept: read from the site
