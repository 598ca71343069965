"""How a live watch reads what yt-dlp and the stream say: whether it is live, which track or
rendition to read, the playlist, where to cut the audio, and caption times on the stream's
clock. Pure functions over real inputs (info dicts shaped as yt-dlp gives them, playlist and
WebVTT text as servers send them)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from v2c_desktop.core.domain.videos import Segment
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.live.captions import LiveCaptions, segment_cues, timestamp_shift
from v2c_desktop.core.live.hls import media_choice, parse_playlist
from v2c_desktop.core.live.plan import check_live, plan_watch
from v2c_desktop.core.live.speech import MAX_WINDOW_S, MIN_WINDOW_S, plan_cut

URL = "https://example.org/watch/1"


def _refusal(info: dict[str, object]) -> V2CError:
    with pytest.raises(V2CError) as refused:
        check_live(info, URL)
    return refused.value


def test_only_a_stream_live_now_is_watched_and_the_others_say_what_to_do() -> None:
    check_live({"is_live": True}, URL)
    check_live({"live_status": "is_live"}, URL)
    ended = _refusal(
        {"title": "Talk 2030-01-02 03:04", "fulltitle": "Talk", "live_status": "was_live"}
    )
    assert ended.code == "bad-request" and ended.message == "Talk was a live stream and has ended"
    assert "v2c add URL" in ended.hint_for("cli")
    assert "get_transcript" in ended.hint_for("agent")
    upcoming = _refusal({"title": "Soon", "live_status": "is_upcoming"})
    assert "has not started yet" in upcoming.message
    plain = _refusal({"title": "A video", "live_status": "not_live"})
    assert plain.message == "A video is not a live stream"
    assert "ordinary video" in plain.hint_for("cli") and "v2c add URL" in plain.hint_for("cli")
    assert _refusal({"id": "vod"}).message == "vod is not a live stream"  # no status at all


def _hls(url: str, **extra: object) -> dict[str, object]:
    return {"url": url, "protocol": "m3u8_native", **extra}


def test_live_captions_are_preferred_in_the_wanted_language() -> None:
    info = {
        "formats": [_hls("https://cdn.example/a.m3u8", vcodec="none")],
        "subtitles": {
            "live_chat": [{"url": "https://example.org/chat", "ext": "json"}],
            "de": [{"url": "https://cdn.example/de.m3u8", "ext": "vtt", "protocol": "m3u8_native"}],
            "en": [{"url": "https://cdn.example/en.m3u8", "ext": "vtt", "protocol": "m3u8_native"}],
            "fr": [{"url": "https://cdn.example/fr.vtt", "ext": "vtt"}],  # a file, not live
        },
    }
    plan = plan_watch(info)
    assert (plan.source, plan.url, plan.language) == (
        "captions",
        "https://cdn.example/en.m3u8",
        "en",
    )
    assert plan.origin == "creator-captions"
    assert plan_watch(info, ("de",)).url == "https://cdn.example/de.m3u8"
    only_files = {**info, "subtitles": {"fr": info["subtitles"]["fr"]}}  # type: ignore[index]
    assert plan_watch(only_files).source == "speech"


def test_the_best_audio_rendition_else_the_smallest_variant_with_sound() -> None:
    audio = {
        "formats": [
            _hls("https://cdn.example/720.m3u8", tbr=3000, height=720),
            _hls("https://cdn.example/a64.m3u8", vcodec="none", abr=64),
            _hls("https://cdn.example/a128.m3u8", vcodec="none", abr=128),
        ]
    }
    assert plan_watch(audio).url == "https://cdn.example/a128.m3u8"
    video = {
        "formats": [
            _hls("https://cdn.example/720.m3u8", tbr=3000, height=720),
            _hls("https://cdn.example/360.m3u8", tbr=800, height=360),
            _hls("https://cdn.example/silent.m3u8", tbr=100, acodec="none"),
        ]
    }
    assert plan_watch(video).url == "https://cdn.example/360.m3u8"
    with pytest.raises(V2CError) as dash:
        plan_watch(
            {
                "title": "T",
                "formats": [{"url": "https://x/a.mpd", "protocol": "http_dash_segments"}],
            }
        )
    assert dash.value.code == "unsupported-input" and "http_dash_segments" in dash.value.message


LIVE = """#EXTM3U
#EXT-X-VERSION:3
#EXT-X-TARGETDURATION:2
#EXT-X-MEDIA-SEQUENCE:41
#EXT-X-PROGRAM-DATE-TIME:2030-01-02T03:04:05.000Z
#EXTINF:2.0,
seg41.ts
#EXTINF:1.5,
https://other.example/seg42.ts
"""


def test_a_live_media_playlist_its_sequence_times_and_end() -> None:
    playlist = parse_playlist(LIVE, "https://cdn.example/live/audio.m3u8")
    assert playlist.target_duration == 2 and not playlist.ended and not playlist.variants
    first, second = playlist.segments
    assert (first.sequence, first.url, first.duration) == (
        41,
        "https://cdn.example/live/seg41.ts",
        2.0,
    )
    assert first.program_time == datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert (second.sequence, second.url, second.program_time) == (
        42,
        "https://other.example/seg42.ts",
        None,
    )
    assert parse_playlist(LIVE + "#EXT-X-ENDLIST\n", "https://cdn.example/a.m3u8").ended
    locked = parse_playlist(
        LIVE.replace("#EXTINF:2.0,", '#EXT-X-KEY:METHOD=AES-128,URI="k"\n#EXTINF:2.0,'),
        "https://x/a.m3u8",
    )
    assert locked.encrypted == "AES-128"
    with pytest.raises(V2CError) as html:
        parse_playlist("<html>sign in</html>", "https://x/a.m3u8")
    assert html.value.code == "unsupported-input"


def test_a_master_playlist_leads_to_its_audio_or_smallest_variant() -> None:
    master = parse_playlist(
        "#EXTM3U\n"
        '#EXT-X-STREAM-INF:BANDWIDTH=3000000,CODECS="avc1.64001f,mp4a.40.2"\nhigh.m3u8\n'
        '#EXT-X-STREAM-INF:BANDWIDTH=600000,CODECS="avc1.64001f,mp4a.40.2"\nlow.m3u8\n',
        "https://cdn.example/live/master.m3u8",
    )
    assert media_choice(master) == "https://cdn.example/live/low.m3u8"
    with_audio = parse_playlist(
        "#EXTM3U\n"
        '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="alt",DEFAULT=NO,URI="alt.m3u8"\n'
        '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="main",DEFAULT=YES,URI="main.m3u8"\n'
        '#EXT-X-STREAM-INF:BANDWIDTH=600000,AUDIO="a"\nlow.m3u8\n',
        "https://cdn.example/live/master.m3u8",
    )
    assert media_choice(with_audio) == "https://cdn.example/live/main.m3u8"


def test_audio_is_cut_in_a_pause_once_there_is_enough_and_silence_is_dropped() -> None:
    assert plan_cut([(0.5, 3.0)], MIN_WINDOW_S - 1, final=False) is None  # too short yet
    # the latest pause: between the second and third phrase, not inside the third
    cut = plan_cut([(0.5, 3.0), (3.8, 6.0), (6.6, 8.4)], 8.5, final=False)
    assert cut is not None and cut.speech and cut.at == pytest.approx(6.3)
    # speech that ends before the end of the buffer is cut after it
    cut = plan_cut([(0.5, 7.0)], 8.0, final=False)
    assert cut is not None and cut.at == pytest.approx(7.5)
    # no pause long enough: wait, unless the window is full
    assert plan_cut([(0.0, 8.0), (8.1, 9.9)], 10.0, final=False) is None
    full = plan_cut([(0.0, MAX_WINDOW_S)], MAX_WINDOW_S, final=False)
    assert full is not None and full.at == MAX_WINDOW_S and full.speech
    quiet = plan_cut([], 9.0, final=False)
    assert quiet is not None and not quiet.speech and quiet.at == pytest.approx(8.0)
    end = plan_cut([(0.5, 1.0)], 2.0, final=True)
    assert end is not None and end.at == 2.0 and end.speech


def test_live_caption_cues_move_onto_the_streams_clock_and_repeat_once() -> None:
    segment = (
        "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:900000,LOCAL:00:00:00.000\n\n"
        "00:00:01.000 --> 00:00:03.500\nGood morning\n\n"
        "00:00:03.500 --> 00:00:06.000\nand welcome\n"
    )
    assert timestamp_shift(segment) == pytest.approx(10.0)
    assert timestamp_shift("WEBVTT\n\n00:01.000 --> 00:02.000\nx\n") == 0.0
    cues = segment_cues(segment.encode(), "captions")
    assert [(c.start, c.text) for c in cues] == [(11.0, "Good morning"), (13.5, "and welcome")]
    assert segment_cues(b"WEBVTT\n\n", "captions") == []  # nobody speaking
    live = LiveCaptions()
    first = live.add(cues)
    assert first == [Segment(0.0, 2.5, "Good morning"), Segment(2.5, 5.0, "and welcome")]
    again = live.add([*cues[1:], Segment(16.0, 17.0, "to the talk")])  # a cue repeated
    assert again == [Segment(5.0, 6.0, "to the talk")]
