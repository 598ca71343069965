"""Caption track choice: creator before machine, preferred language, best usable format."""

from __future__ import annotations

from typing import Any

import pytest

from v2c_desktop.core.errors import V2CError
from v2c_desktop.core.importers.web.tracks import choose_track, preferred_languages

from .scripted import crashcourse_info

TT = "https://www.youtube.com/api/timedtext?v=fxZWtc0mYpQ"


def entries(query: str, *exts: str, name: str = "") -> list[dict[str, Any]]:
    return [{"ext": ext, "url": f"{TT}&{query}&fmt={ext}", "name": name} for ext in exts]


@pytest.mark.corpus
def test_real_info_picks_creator_english_json3() -> None:
    track = choose_track(crashcourse_info())
    assert track.origin == "creator-captions"
    assert track.language == "en"
    assert track.format == "json3"
    assert track.parser_format == "json3"
    assert track.url == f"{TT}&caps=asr&lang=en&fmt=json3"
    assert track.name == "English"
    assert track.translated_from is None


@pytest.mark.corpus
def test_real_info_base_language_match() -> None:
    assert choose_track(crashcourse_info(), ["en-GB"]).language == "en"
    pt = choose_track(crashcourse_info(), ["pt"])
    assert (pt.language, pt.origin) == ("pt-BR", "creator-captions")


@pytest.mark.corpus
def test_creator_track_in_a_region_beats_a_translation_into_the_base_language() -> None:
    # "es" has a machine translation; the creator's "es-419" is still better.
    track = choose_track(crashcourse_info(), ["es"])
    assert (track.language, track.origin) == ("es-419", "creator-captions")


@pytest.mark.corpus
def test_real_info_falls_back_to_a_machine_translation() -> None:
    track = choose_track(crashcourse_info(), ["de"])
    assert track.origin == "auto-captions"
    assert track.language == "de"
    assert track.translated_from == "en"
    assert track.url == f"{TT}&caps=asr&kind=asr&lang=en&tlang=de&fmt=json3"
    assert track.name == "German"


@pytest.mark.corpus
def test_real_info_auto_track_skips_entries_without_url() -> None:
    info = crashcourse_info()
    info["subtitles"] = {}
    en = info["automatic_captions"]["en"]
    assert "url" not in en[0]  # the recording's first English auto entry has no URL
    info["automatic_captions"] = {"en": [en[0], *(e for e in en if e["ext"] == "vtt")]}
    track = choose_track(info)
    assert track.format == "vtt"
    assert track.url.endswith("kind=asr&lang=en&fmt=vtt")
    assert track.origin == "auto-captions"


@pytest.mark.corpus
def test_real_info_prefers_the_original_auto_track() -> None:
    info = crashcourse_info()
    info["subtitles"] = {}
    track = choose_track(info)
    assert track.origin == "auto-captions"
    assert track.language == "en"
    assert track.name == "English (Original)"
    assert track.translated_from is None


def test_format_preference_without_json3() -> None:
    info = {"subtitles": {"en": entries("lang=en", "ttml", "srv1", "vtt", "srv3")}}
    track = choose_track(info)
    assert (track.format, track.parser_format) == ("srv3", "timedtext")
    info = {"subtitles": {"en": entries("lang=en", "ttml", "srt", "srv1")}}
    assert choose_track(info).format == "srv1"
    info = {"subtitles": {"en": entries("lang=en", "ttml", "srt")}}
    assert (choose_track(info).format, choose_track(info).parser_format) == ("srt", "srt")


def test_entries_without_url_or_streamed_are_skipped() -> None:
    info = {
        "subtitles": {
            "en": [
                {"ext": "json3"},
                {"ext": "vtt", "url": "https://x/playlist.m3u8", "protocol": "m3u8_native"},
                {"ext": "srt", "url": "https://x/en.srt"},
            ]
        }
    }
    assert choose_track(info).url == "https://x/en.srt"


def test_video_language_comes_first_by_default() -> None:
    info = {
        "language": "fr",
        "subtitles": {"en": entries("lang=en", "vtt"), "fr": entries("lang=fr", "vtt")},
    }
    assert choose_track(info).language == "fr"
    assert preferred_languages(info) == ["fr", "en"]
    assert preferred_languages(info, ["de", "DE", "fr"]) == ["de", "fr"]


def test_creator_in_second_language_beats_auto_in_first() -> None:
    info = {
        "subtitles": {"en": entries("lang=en", "vtt")},
        "automatic_captions": {"de": entries("kind=asr&lang=de", "vtt")},
    }
    track = choose_track(info, ["de", "en"])
    assert (track.language, track.origin) == ("en", "creator-captions")


def test_translation_of_creator_captions_beats_translation_of_asr() -> None:
    info = {
        "subtitles": {"en": entries("lang=en", "json3")},
        "automatic_captions": {
            "de": entries("kind=asr&lang=en&tlang=de", "json3", name="German"),
            "de-en": entries("lang=en&tlang=de", "json3", name="German from English"),
        },
    }
    track = choose_track(info, ["de"])
    assert track.name == "German from English"
    assert (track.language, track.origin, track.translated_from) == ("de", "auto-captions", "en")


def test_other_language_is_better_than_nothing() -> None:
    info = {"language": "ja", "subtitles": {"ja": entries("lang=ja", "vtt")}}
    track = choose_track(info, ["de"])
    assert (track.language, track.origin) == ("ja", "creator-captions")


def test_live_chat_is_not_a_caption_track() -> None:
    info = {
        "title": "A stream",
        "subtitles": {"live_chat": [{"ext": "json", "url": "https://x/chat", "protocol": "http"}]},
    }
    with pytest.raises(V2CError) as caught:
        choose_track(info)
    assert caught.value.code == "no-transcript"


@pytest.mark.parametrize(
    "info",
    [
        {"title": "Silent film"},
        {"title": "Silent film", "subtitles": {}, "automatic_captions": {}},
        {
            "title": "Silent film",
            "subtitles": {"en": [{"ext": "vtt"}, {"ext": "ttml", "url": "u"}]},
        },
    ],
)
def test_no_usable_captions_is_no_transcript(info: dict[str, Any]) -> None:
    with pytest.raises(V2CError) as caught:
        choose_track(info)
    error = caught.value
    assert error.code == "no-transcript"
    assert "Silent film" in error.message
    assert "speech-to-text" in error.hint
    assert "subtitle file" in error.hint
