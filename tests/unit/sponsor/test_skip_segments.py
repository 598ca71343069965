"""SponsorBlock segments through `CoreAPI.get_skip_segments`, on a real library file, with
SponsorBlock's answers replayed through an httpx transport: the hash-prefix request, only our
video's entry kept, 404 as no segments, 429 and 5xx as errors with a hint, non-YouTube videos
refused, shares of the transcript, and what is kept in DuckDB across a reopen."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import REPO
from tests.support.sponsorblock import SAMPLE_ID, Script, replay, replay_web
from tests.unit.owner.toys import run
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.domain.skips import CATEGORIES, SkipSegment, SkipSegments
from v2c_desktop.core.domain.videos import Segment
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import Settings
from v2c_desktop.core.sponsor.client import hash_prefix
from v2c_desktop.core.sponsor.spans import with_shares

SAMPLES = REPO / "resources" / "samples"
SAMPLE = f"youtube:{SAMPLE_ID}"


async def open_core(path: Path, script: Script) -> CoreAPI:
    services = await asyncio.to_thread(
        Services.open, path, settings=Settings(), web=replay_web(script), index_on_import=False
    )
    return CoreAPI(services)


async def with_sample(path: Path, script: Script) -> CoreAPI:
    api = await open_core(path, script)
    result = await api.add([str(SAMPLES)])
    assert result.count("failed") == 0, result.to_dict()
    return api


def sample_spoken_seconds() -> float:
    """The seconds the sample's caption lines cover (they never overlap), read from the SRT."""
    text = (SAMPLES / "testing-spacecraft-with-pytest.en.srt").read_text(encoding="utf-8")
    times = re.findall(r"(\d+):(\d+):(\d+),(\d+) --> (\d+):(\d+):(\d+),(\d+)", text)

    def seconds(h: str, m: str, s: str, ms: str) -> float:
        return int(h) * 3600 + int(m) * 60 + int(s) + int(ms) / 1000

    return sum(seconds(*t[4:]) - seconds(*t[:4]) for t in times)


def failure(call: Any) -> V2CError:
    with pytest.raises(V2CError) as caught:
        run(call)
    return caught.value


def test_the_request_names_only_a_hash_prefix_and_only_our_video_is_kept(tmp_path: Path) -> None:
    script = Script()

    async def go() -> SkipSegments:
        api = await with_sample(tmp_path / "lib.duckdb", script)
        try:
            return await api.get_skip_segments(SAMPLE)
        finally:
            await api.aclose()

    found = run(go())
    prefix = hashlib.sha256(SAMPLE_ID.encode()).hexdigest()[:4]
    assert hash_prefix(SAMPLE_ID) == prefix == "5a23"
    assert len(script.requests) == 1 and script.requests[0].startswith(
        f"/api/skipSegments/{prefix}?"
    )
    assert SAMPLE_ID not in script.requests[0]  # SponsorBlock is never told the video
    assert script.categories_asked() == [list(CATEGORIES)]  # all at once, filtered on reading
    # the sample's three skips; the other videos of the prefix, the highlight point and the
    # segment ending before it starts are all left out
    assert [(s.category, s.start, s.end) for s in found.segments] == [
        ("sponsor", 58.0, 70.0),
        ("interaction", 1790.0, 1795.5),
        ("selfpromo", 1803.0, 1811.0),
    ]
    sponsor = found.segments[0]
    assert sponsor.votes == 12 and not sponsor.locked and sponsor.video_duration == 1811
    assert sponsor.uuid.startswith("7f3c2a1e") and found.segments[1].locked
    assert found.video_id == SAMPLE and found.youtube_id == SAMPLE_ID
    assert found.categories == CATEGORIES and not found.from_library
    # 58-70 s holds three whole caption lines (58-61, 61-66, 66-70): 12 s of what is said;
    # the other two lie wholly in speech too (5.5 s and 8 s)
    spoken = sample_spoken_seconds()
    assert 1780 < spoken < 1811 and found.spoken_seconds == pytest.approx(spoken)
    assert sponsor.share == pytest.approx(12 / spoken, abs=1e-4)
    assert found.share == pytest.approx((12 + 5.5 + 8) / spoken, abs=1e-4)


def test_a_second_call_reads_the_library_and_categories_filter_what_was_kept(
    tmp_path: Path,
) -> None:
    script = Script()

    async def go() -> tuple[SkipSegments, SkipSegments, SkipSegments]:
        api = await with_sample(tmp_path / "lib.duckdb", script)
        try:
            first = await api.get_skip_segments(SAMPLE, ["sponsor"])
            again = await api.get_skip_segments(SAMPLE, ["selfpromo", "Sponsor"])
            every = await api.get_skip_segments(SAMPLE)
            return first, again, every
        finally:
            await api.aclose()

    first, again, every = run(go())
    assert len(script.requests) == 1  # asked once; the rest came from the library
    assert [s.category for s in first.segments] == ["sponsor"] and not first.from_library
    assert again.categories == ("sponsor", "selfpromo") and again.from_library
    assert [s.category for s in again.segments] == ["sponsor", "selfpromo"]
    assert len(every.segments) == 3 and every.fetched_at == first.fetched_at


def test_an_unknown_category_is_a_bad_request_naming_the_known_ones(tmp_path: Path) -> None:
    script = Script()

    async def go() -> None:
        api = await with_sample(tmp_path / "lib.duckdb", script)
        try:
            await api.get_skip_segments(SAMPLE, ["sponsor", "ads"])
        finally:
            await api.aclose()

    error = failure(go())
    assert error.code == "bad-request" and "'ads'" in error.message
    assert "music_offtopic" in error.hint and not script.requests


def test_404_means_no_segments_and_is_kept_too(tmp_path: Path) -> None:
    script = Script(answers={})  # SponsorBlock knows no video of the prefix: 404

    async def go() -> tuple[SkipSegments, SkipSegments]:
        api = await with_sample(tmp_path / "lib.duckdb", script)
        try:
            return await api.get_skip_segments(SAMPLE), await api.get_skip_segments(SAMPLE)
        finally:
            await api.aclose()

    first, second = run(go())
    assert first.segments == [] and first.share == 0.0 and not first.from_library
    assert second.segments == [] and second.from_library
    assert len(script.requests) == 1  # "none" is an answer: not asked again


@pytest.mark.parametrize(
    ("status", "code", "said"),
    [(429, "rate-limited", "wait 30 s"), (503, "upstream", "HTTP 503"), (500, "upstream", "500")],
)
def test_429_and_5xx_are_errors_with_a_hint_and_keep_nothing(
    tmp_path: Path, status: int, code: str, said: str
) -> None:
    script = Script(fail={"5a23": status})

    async def go() -> tuple[V2CError, SkipSegments]:
        api = await with_sample(tmp_path / "lib.duckdb", script)
        try:
            with pytest.raises(V2CError) as caught:
                await api.get_skip_segments(SAMPLE)
            script.fail.clear()  # SponsorBlock is back: the next call asks again
            return caught.value, await api.get_skip_segments(SAMPLE)
        finally:
            await api.aclose()

    error, later = run(go())
    assert error.code == code and said in error.message
    assert "try again in a few minutes" in error.hint
    assert len(later.segments) == 3 and len(script.requests) == 2


def test_a_network_failure_says_so_in_plain_words(tmp_path: Path) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[Errno 111] Connection refused", request=request)

    async def go() -> None:
        api = await with_sample(tmp_path / "lib.duckdb", Script())
        api._s.library.web.http = httpx.AsyncClient(transport=httpx.MockTransport(refuse))
        try:
            await api.get_skip_segments(SAMPLE)
        finally:
            await api.aclose()

    error = failure(go())
    assert error.code == "upstream"
    assert error.message == "Could not reach SponsorBlock: the connection was refused"


def test_videos_not_from_youtube_are_refused_with_a_hint(tmp_path: Path) -> None:
    talk = tmp_path / "talk.en.srt"
    talk.write_text("1\n00:00:01,000 --> 00:00:04,000\nHello there.\n", encoding="utf-8")
    script = Script()

    async def go() -> None:
        api = await open_core(tmp_path / "lib.duckdb", script)
        try:
            (video_id,) = (await api.add([str(talk)])).changed_ids
            assert video_id.startswith("file:")
            await api.get_skip_segments(video_id)
        finally:
            await api.aclose()

    error = failure(go())
    assert error.code == "unsupported-input" and "not a YouTube video" in error.message
    assert "YouTube videos only" in error.hint and not script.requests


def test_kept_segments_outlive_a_reopen_a_refresh_replaces_them_and_a_removal_drops_them(
    tmp_path: Path,
) -> None:
    path = tmp_path / "lib.duckdb"
    script = Script()
    changed = tmp_path / "changed.json"
    answer = json.loads(script.answers["5a23"].read_text(encoding="utf-8"))
    ours = next(e for e in answer if e["videoID"] == SAMPLE_ID)
    ours["segments"] = [dict(ours["segments"][0], segment=[58.0, 75.5], votes=20)]
    changed.write_text(json.dumps(answer), encoding="utf-8")

    async def first() -> SkipSegments:
        api = await with_sample(path, script)
        try:
            return await api.get_skip_segments(SAMPLE)
        finally:
            await api.aclose()

    async def reopened() -> tuple[SkipSegments, SkipSegments, SkipSegments, list[str]]:
        offline = Script(fail={"5a23": 503})  # the reopened library must not need it
        api = await open_core(path, offline)
        try:
            kept = await api.get_skip_segments(SAMPLE)
            asked = list(offline.requests)
            api._s.library.web.http = httpx.AsyncClient(
                transport=replay(Script(answers={"5a23": changed}))
            )
            refreshed = await api.get_skip_segments(SAMPLE, refresh=True)
            after = await api.get_skip_segments(SAMPLE)
            await api.remove(SAMPLE)
            return kept, refreshed, after, asked
        finally:
            await api.aclose()

    fetched = run(first())
    kept, refreshed, after, asked = run(reopened())
    assert asked == [] and kept.from_library
    assert kept.segments == fetched.segments and kept.fetched_at == fetched.fetched_at
    assert [(s.start, s.end, s.votes) for s in refreshed.segments] == [(58.0, 75.5, 20)]
    assert not refreshed.from_library and after.from_library
    assert after.segments == refreshed.segments  # the refresh replaced all three

    async def gone() -> tuple[Any, list[str]]:
        from v2c_desktop.core.store import open_library

        store = open_library(path)
        try:
            with store._reading() as conn:
                rows = [
                    conn.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]
                    for table in ("skip_fetches", "skip_segments")
                ]
            return store.skip_segments(SAMPLE), rows
        finally:
            store.close()

    assert run(gone()) == (None, [0, 0])


def test_shares_count_spoken_time_once_and_gaps_not_at_all() -> None:
    transcript = [
        Segment(0.0, 10.0, "a"),
        Segment(8.0, 20.0, "b"),  # overlaps the line before: 0-20 s is spoken once
        Segment(30.0, 40.0, "c"),  # 20-30 s is silence
    ]
    skips = [
        SkipSegment("sponsor", 15.0, 35.0),  # 5 s spoken before the gap, 5 s after
        SkipSegment("intro", 0.0, 5.0),
        SkipSegment("filler", 18.0, 22.0),  # overlaps the sponsor read
    ]
    shared, spoken, together = with_shares(skips, transcript)
    assert spoken == 30.0
    assert [s.share for s in shared] == [round(10 / 30, 4), round(5 / 30, 4), round(2 / 30, 4)]
    assert together == round(15 / 30, 4)  # 0-5 and 15-35 (the filler inside it counts once)
    assert with_shares(skips, [])[1:] == (0.0, 0.0)
