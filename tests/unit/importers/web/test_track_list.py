"""Every caption track of a video and the download for an explicit choice, from yt-dlp's info
dict: the real Crash Course info.json (11 creator tracks, an auto track, 157 machine
translations listed) and recorded InnerTube player responses read as yt-dlp reads them."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import corpus_path
from tests.support.youtube_replay import PLAYERS, ReplayInfoSource
from v2c_desktop.core.domain.captions import CaptionChoice, CaptionTracks
from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.importers.web.track_list import list_tracks, pick_track, track_count
from v2c_desktop.core.importers.web.tracks import choose_track

from .scripted import crashcourse_info

pytestmark = pytest.mark.corpus

TT = "https://www.youtube.com/api/timedtext?v=fxZWtc0mYpQ"
SURFACE = "GJLlxj_dtq8"  # 8 creator tracks, auto English, 18 translation languages
WW1 = "F1xioXWb8CY"  # creator English and auto English, 17 translation languages


def recorded(video_id: str) -> dict[str, Any]:
    return ReplayInfoSource(corpus_path(PLAYERS)).info(video_id)


def test_the_info_json_lists_creator_tracks_then_the_auto_track_and_its_translations() -> None:
    info = crashcourse_info()
    tracks, targets = list_tracks(info)
    creator = [t.language for t in tracks if t.kind == "creator"]
    assert creator == ["ar", "nl", "en", "et", "ka", "id", "pt-BR", "ru", "es-419", "th", "tr"]
    auto = [t for t in tracks if t.kind == "auto"]
    assert [(t.language, t.name, t.translatable) for t in auto] == [
        ("en", "English (Original)", True)  # en and en-orig are one track
    ]
    assert not any(t.translatable for t in tracks if t.kind == "creator")
    assert track_count(info) == 12
    # 159 automatic-caption languages: en, en-orig and 157 translations, of which the
    # recording keeps a URL for 155 (pt-BR and es-419 lost theirs when it was sanitised)
    assert len(info["automatic_captions"]) == 159
    assert len(targets) == 155
    codes = {t.language for t in targets}
    assert {"de", "fr", "ja", "zh-Hans"} <= codes and "en" not in codes
    assert next(t for t in targets if t.language == "de").name == "German"
    assert [t.name for t in targets] == sorted((t.name for t in targets), key=str.lower)


def test_choices_in_the_info_json_find_their_downloads() -> None:
    info = crashcourse_info()
    creator = pick_track(info, CaptionChoice("pt-BR", "creator"))
    assert (creator.origin, creator.language, creator.key) == (
        "creator-captions",
        "pt-BR",
        "creator:pt-BR",
    )
    assert creator.url == f"{TT}&caps=asr&lang=pt-BR&fmt=json3"
    auto = pick_track(info, CaptionChoice("en", "auto"))
    assert (auto.origin, auto.name, auto.key) == ("auto-captions", "English (Original)", "auto:en")
    assert auto.url == f"{TT}&caps=asr&kind=asr&lang=en&fmt=json3"
    german = pick_track(info, CaptionChoice("en", "auto", "de"))
    assert (german.language, german.translated_from, german.key) == ("de", "en", "auto:en>de")
    assert german.url == f"{TT}&caps=asr&kind=asr&lang=en&tlang=de&fmt=json3"
    # a region finds the one track of its base language
    assert pick_track(info, CaptionChoice("en-GB", "creator")).key == "creator:en"
    # the automatic choice still makes the same pick, and names it
    assert choose_track(info).key == "creator:en"


def test_an_unknown_language_or_translation_is_a_clear_not_found() -> None:
    info = crashcourse_info()
    with pytest.raises(V2CError) as unknown:
        pick_track(info, CaptionChoice("xx", "creator"))
    assert unknown.value.code == "not-found"
    assert "has no creator caption track in 'xx'" in unknown.value.message
    assert "creator ar, nl, en" in unknown.value.hint and "auto en" in unknown.value.hint
    with pytest.raises(V2CError) as no_auto:
        pick_track(info, CaptionChoice("de", "auto"))
    assert "no auto caption track in 'de'" in no_auto.value.message
    with pytest.raises(V2CError) as untranslatable:
        pick_track(info, CaptionChoice("en", "creator", "de"))
    assert "no machine translation of its creator track 'en'" in untranslatable.value.message
    with pytest.raises(V2CError) as no_target:
        pick_track(info, CaptionChoice("en", "auto", "tlh"))
    assert "into 'tlh'" in no_target.value.message


def test_a_player_response_lists_creator_and_auto_tracks_all_translatable() -> None:
    info = recorded(SURFACE)
    tracks, targets = list_tracks(info)
    assert [(t.kind, t.language, t.name) for t in tracks] == [
        ("creator", "zh", "Chinese"),
        ("creator", "cs", "Czech"),
        ("creator", "en", "English"),
        ("creator", "de", "German"),
        ("creator", "hi", "Hindi"),
        ("creator", "ja", "Japanese"),
        ("creator", "ko", "Korean"),
        ("creator", "es", "Spanish"),
        ("auto", "en", "English (Original)"),
    ]
    assert all(t.translatable for t in tracks)
    assert len(targets) == 18
    assert {"ar": "Arabic", "zh-Hant": "Chinese (Traditional)"}.items() <= {
        t.language: t.name for t in targets
    }.items()
    listing = CaptionTracks(SURFACE, "Surface", "", tracks, targets)
    assert listing.summary() == (
        "creator zh, cs, en, de, hi, ja, ko, es; auto en (translatable into 18 languages)"
    )


def test_translating_a_creator_track_takes_yt_dlps_key_and_names_the_target() -> None:
    info = recorded(SURFACE)
    german = pick_track(info, CaptionChoice("en", "creator", "de"))
    assert german.name == "German from English"
    assert (german.language, german.translated_from) == ("de", "en")
    assert german.origin == "auto-captions" and german.key == "creator:en>de"
    assert "tlang=de-en" in german.url and "kind=asr" not in german.url
    from_auto = pick_track(info, CaptionChoice("en", "auto", "de"))
    assert from_auto.key == "auto:en>de" and "kind=asr" in from_auto.url


def test_a_video_with_one_track_of_each_kind() -> None:
    info = recorded(WW1)
    tracks, targets = list_tracks(info)
    assert [t.key for t in tracks] == ["creator:en", "auto:en"]
    assert len(targets) == 17 and "en" not in {t.language for t in targets}
    # English is not among its translation languages: yt-dlp still lists the auto track
    auto = pick_track(info, CaptionChoice("en", "auto"))
    assert auto.name == "English (Original)" and "kind=asr" in auto.url
    assert CaptionTracks(WW1, "", "", tracks).find("en").kind == "creator"  # type: ignore[union-attr]


def test_a_video_without_captions_lists_nothing_and_chooses_nothing() -> None:
    info = recorded("dsMFmonKDD4")
    assert list_tracks(info) == ([], [])
    with pytest.raises(V2CError) as none:
        pick_track(info, CaptionChoice("en", "creator"))
    assert none.value.code == "not-found" and "(none)" in none.value.hint


def test_track_keys_parse_back() -> None:
    for key in ("creator:en", "auto:pt-BR", "auto:en>de", "creator:en>zh-Hant"):
        assert CaptionChoice.parse(key).key == key
    assert CaptionChoice.parse("auto:en>de") == CaptionChoice("en", "auto", "de")
    assert CaptionChoice("en", "auto", "de").words() == "auto captions (en), translated into de"
    for bad in ("", "en", "robot:en", "creator:"):
        with pytest.raises(V2CError) as caught:
            CaptionChoice.parse(bad)
        assert caught.value.code == "bad-request"
