"""Pick the one caption track worth importing from everything yt-dlp lists.

A YouTube video lists creator captions (`subtitles`) and machine captions
(`automatic_captions`), the latter mostly machine translations of the original track into
150-odd languages. The words are most trustworthy in this order: the creator's own captions,
the speech recogniser's original-language track, a machine translation. Language preference
decides within each step; the step decides before language, so a creator track in the second
preferred language beats a machine translation into the first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import parse_qs, urlparse

from ...domain.captions import CaptionChoice, TrackKind
from ...errors import V2CError

CaptionFormat = Literal["vtt", "srt", "json3", "timedtext"]
TrackOrigin = Literal["creator-captions", "auto-captions"]

# yt-dlp's `ext` → the caption parser's format name, best first. json3 and srv3 keep YouTube's
# own timing; vtt is universal; srv1 is the legacy XML; srt loses nothing but is rarely served.
# ttml and srv2 are left out: the caption parser does not read them.
FORMAT_PREFERENCE: tuple[tuple[str, CaptionFormat], ...] = (
    ("json3", "json3"),
    ("srv3", "timedtext"),
    ("vtt", "vtt"),
    ("srv1", "timedtext"),
    ("srt", "srt"),
)
_PARSER_FORMAT: dict[str, CaptionFormat] = dict(FORMAT_PREFERENCE)
# Not captions: chat replays that yt-dlp files under `subtitles`.
_NOT_CAPTIONS = frozenset({"live_chat", "rechat", "danmaku", "comments"})
_STREAMED = ("m3u8", "http_dash_segments", "youtube_live_chat", "f4m", "ism")

NO_CAPTIONS_HINT = (
    "The video has no captions. Local speech-to-text can transcribe it instead, which downloads "
    "its audio with yt-dlp (deleted afterwards): that needs {transcribe-web}. "
    "Or, if you have a subtitle file for it, import the video file together with that file."
)


@dataclass(frozen=True, slots=True)
class TrackChoice:
    """The caption track to download: where it is, in which format, and how it was made.

    `format` is yt-dlp's extension (`json3`, `srv3`, ...); `parser_format` is what to tell
    the caption parser. `translated_from` is the source language of a machine translation.
    `key` names the track as `core.domain.captions` does (`creator:en`, `auto:en>de`): what
    the transcript records as where it came from.
    """

    language: str
    origin: TrackOrigin
    format: str
    url: str
    name: str = ""
    translated_from: str | None = None
    key: str = ""

    @property
    def parser_format(self) -> CaptionFormat:
        return _PARSER_FORMAT[self.format]


@dataclass(frozen=True, slots=True)
class ListedTrack:
    """One entry of yt-dlp's `subtitles` or `automatic_captions`, with its best format.

    A machine translation (`translated`) of another track has that track's language in
    `translated_from` (None when the site's URL does not say, which makes it the source
    track itself under another name) and its kind in `source_kind`.
    """

    language: str
    creator: bool
    original: bool  # YouTube's `<lang>-orig`: the recogniser's own language
    translated_from: str | None
    translated: bool
    asr_source: bool
    ext: str
    url: str
    name: str

    @property
    def source_kind(self) -> TrackKind:
        """Who made the words: a translation is of a creator track unless its URL asks for
        the recogniser's (`kind=asr`)."""
        if self.translated:
            return "auto" if self.asr_source else "creator"
        return "creator" if self.creator else "auto"

    @property
    def key(self) -> str:
        if self.translated and self.translated_from:
            choice = CaptionChoice(self.translated_from, self.source_kind, self.language)
        else:
            choice = CaptionChoice(self.language, self.source_kind)
        return choice.key


def base_language(code: str) -> str:
    """`en-US` → `en`: the part before the region, lower-cased."""
    return code.replace("_", "-").split("-")[0].lower()


def preferred_languages(info: dict[str, Any], languages: Sequence[str] = ()) -> list[str]:
    """The user's languages if any, else the video's own language and then English."""
    wanted = list(languages) or [str(info.get("language") or ""), "en"]
    seen: set[str] = set()
    out: list[str] = []
    for code in wanted:
        key = code.strip().lower()
        if key and key not in seen:
            seen.add(key)
            out.append(code.strip())
    return out


def _query(url: str) -> dict[str, list[str]]:
    try:
        return parse_qs(urlparse(url).query)
    except ValueError:
        return {}


def _best_entry(entries: Iterable[Any]) -> tuple[str, dict[str, Any]] | None:
    usable: dict[str, dict[str, Any]] = {}
    for entry in entries:
        if not isinstance(entry, dict) or not entry.get("url"):
            continue
        protocol = str(entry.get("protocol") or "")
        if protocol.startswith(_STREAMED):
            continue
        ext = str(entry.get("ext") or "").lower()
        usable.setdefault(ext, entry)
    for ext, _ in FORMAT_PREFERENCE:
        if ext in usable:
            return ext, usable[ext]
    return None


def read_tracks(info: dict[str, Any], field: str, creator: bool) -> list[ListedTrack]:
    """The usable tracks yt-dlp lists under `field` (`subtitles`: the creator's;
    `automatic_captions`: the recogniser's and machine translations), in its order."""
    listing = info.get(field) or {}
    if not isinstance(listing, dict):
        return []
    out: list[ListedTrack] = []
    for key, entries in listing.items():
        if not isinstance(entries, list) or str(key).lower() in _NOT_CAPTIONS:
            continue
        best = _best_entry(entries)
        if best is None:
            continue
        ext, entry = best
        url = str(entry["url"])
        query = _query(url)
        key = str(key)
        original = key.endswith("-orig")
        language = key.removesuffix("-orig")
        translated_from: str | None = None
        tlang = (query.get("tlang") or [""])[0]
        name = str(entry.get("name") or "")
        # yt-dlp names machine translations of creator tracks "German from English".
        translated = bool(tlang) or (not creator and " from " in name)
        if tlang:
            translated_from = (query.get("lang") or [""])[0].removeprefix("a-") or None
            # yt-dlp keys a translation of a creator track `<target>-<source>` ("German
            # from English" is `de-en`) and sends that key as the target; the language is
            # the target's own code
            suffix = f"-{translated_from}"
            if translated_from and key == tlang and tlang.endswith(suffix) and " from " in name:
                tlang = tlang.removesuffix(suffix)
            language = tlang
        elif translated:
            language = key.split("-")[0]
        out.append(
            ListedTrack(
                language=language,
                creator=creator,
                original=original,
                translated_from=translated_from,
                translated=translated,
                asr_source="asr" in query.get("kind", []),
                ext=ext,
                url=url,
                name=name,
            )
        )
    return out


def _match_rank(track_language: str, wanted: str) -> int | None:
    if track_language.lower() == wanted.lower():
        return 0
    if base_language(track_language) == base_language(wanted):
        return 1
    return None


def _pick(tracks: list[ListedTrack], languages: Sequence[str]) -> ListedTrack | None:
    """The track for the earliest preferred language; exact beats base, `-orig` beats plain,
    a translation of creator captions beats one of speech recognition, then listing order."""
    ranked: list[tuple[tuple[int, int, bool, bool, int], ListedTrack]] = []
    for order, track in enumerate(tracks):
        for pref_index, wanted in enumerate(languages):
            rank = _match_rank(track.language, wanted)
            if rank is not None:
                key = (pref_index, rank, not track.original, track.asr_source, order)
                ranked.append((key, track))
                break
    return min(ranked, key=lambda item: item[0])[1] if ranked else None


def track_choice(track: ListedTrack) -> TrackChoice:
    """What to download for a listed track, and how its transcript says it was made."""
    machine = not track.creator or track.translated
    return TrackChoice(
        language=track.language,
        origin="auto-captions" if machine else "creator-captions",
        format=track.ext,
        url=track.url,
        name=track.name,
        translated_from=track.translated_from if track.translated else None,
        key=track.key,
    )


def choose_track(info: dict[str, Any], languages: Sequence[str] = ()) -> TrackChoice:
    """The best caption track of `info` for `languages` (see `preferred_languages`).

    Steps: creator captions in a preferred language; the recogniser's original track in a
    preferred language (`-orig` first); a machine translation into a preferred language
    (from creator captions before ASR). Failing all, the video's own captions in whatever
    language they are, since some transcript beats none. Raises `no-transcript` when the
    video has no usable track at all.
    """
    wanted = preferred_languages(info, languages)
    creator = [t for t in read_tracks(info, "subtitles", creator=True) if not t.translated]
    auto_all = read_tracks(info, "automatic_captions", creator=False)
    auto = [t for t in auto_all if not t.translated]
    translations = [t for t in auto_all if t.translated]
    for group in (creator, auto, translations):
        found = _pick(group, wanted)
        if found is not None:
            return track_choice(found)
    own = [str(info.get("language") or "")] if info.get("language") else []
    for group in (creator, auto):
        found = _pick(group, own) if own else None
        if found is None and group:
            found = min(group, key=lambda t: (not t.original, group.index(t)))
        if found is not None:
            return track_choice(found)
    title = str(info.get("title") or info.get("id") or "This video")
    raise V2CError(
        "no-transcript",
        f"{title} has no captions to import",
        NO_CAPTIONS_HINT,
        {"url": str(info.get("webpage_url") or ""), "languages": wanted},
    )
