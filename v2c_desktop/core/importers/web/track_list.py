"""Every caption track of a web video, from yt-dlp's info dict, and the one a person picks.

`tracks.choose_track` decides alone; this module lists what there is to decide between and
finds the download for an explicit `CaptionChoice`. From a YouTube video yt-dlp lists
(2026.10, `YoutubeIE._real_extract`):

- `subtitles`: the creator's tracks, one per language;
- `automatic_captions`: the recogniser's track twice (`en` and `en-orig`), its machine
  translations into every translation language (`de`, URL with `kind=asr&tlang=de`) and
  those of each translatable creator track (`de-en`, "German from English", `tlang=...`).

A track is translatable when the listing holds translations of it; the translation
languages are all the targets any track is offered in.
"""

from __future__ import annotations

from typing import Any

from ...domain.captions import CaptionChoice, CaptionTrack, TranslationTarget
from ...errors import V2CError, not_found
from .tracks import ListedTrack, TrackChoice, base_language, read_tracks, track_choice

_FROM = " from "


def _same(a: str, b: str) -> bool:
    return a.lower() == b.lower()


def _originals(info: dict[str, Any]) -> list[ListedTrack]:
    """The creator's tracks, then the recogniser's, one per kind and language: YouTube's
    `-orig` entry wins over its plain twin (same words, the name says "Original")."""
    creator = [t for t in read_tracks(info, "subtitles", creator=True) if not t.translated]
    auto = [t for t in read_tracks(info, "automatic_captions", creator=False) if not t.translated]
    auto.sort(key=lambda t: not t.original)  # stable: listing order within each group
    out: list[ListedTrack] = []
    seen: set[tuple[bool, str]] = set()
    for track in [*creator, *auto]:
        mark = (track.creator, track.language.lower())
        if mark not in seen:
            seen.add(mark)
            out.append(track)
    return out


def _translations(info: dict[str, Any]) -> list[ListedTrack]:
    """Machine translations whose URL names both their source and their target language."""
    listed = [
        *read_tracks(info, "subtitles", creator=True),
        *read_tracks(info, "automatic_captions", creator=False),
    ]
    return [t for t in listed if t.translated and t.translated_from]


def _target_name(track: ListedTrack) -> str:
    """ "German from English" → "German"; a name yt-dlp did not give → the code."""
    name = track.name.split(_FROM)[0].strip() if _FROM in track.name else track.name.strip()
    return name or track.language


def _translates(translation: ListedTrack, source: ListedTrack) -> bool:
    return translation.source_kind == source.source_kind and _same(
        translation.translated_from or "", source.language
    )


def list_tracks(info: dict[str, Any]) -> tuple[list[CaptionTrack], list[TranslationTarget]]:
    """The video's tracks (creator first, then auto, in the site's order) and the languages
    its translatable tracks can be machine-translated into (sorted by name)."""
    originals = _originals(info)
    translations = _translations(info)
    tracks = [
        CaptionTrack(
            language=t.language,
            name=t.name or t.language,
            kind=t.source_kind,
            translatable=any(_translates(tr, t) for tr in translations),
        )
        for t in originals
    ]
    targets: dict[str, TranslationTarget] = {}
    for translation in translations:
        code = translation.language
        if code.lower() not in targets:
            targets[code.lower()] = TranslationTarget(code, _target_name(translation))
    ordered = sorted(targets.values(), key=lambda t: (t.name.lower(), t.language))
    return tracks, ordered


def _listing_words(info: dict[str, Any]) -> str:
    tracks, targets = list_tracks(info)
    parts = []
    for kind in ("creator", "auto"):
        codes = [t.language for t in tracks if t.kind == kind]
        if codes:
            parts.append(f"{kind} {', '.join(codes)}")
    said = "; ".join(parts) or "none"
    if targets:
        said += f"; translations into {len(targets)} languages of the translatable ones"
    return said


def _unknown(info: dict[str, Any], what: str) -> V2CError:
    title = str(info.get("title") or info.get("id") or "This video")
    return not_found(
        f"{title} has no {what}",
        f"Choose one of its caption tracks ({_listing_words(info)}), as the list of its "
        "caption languages shows them.",
    )


def _source(info: dict[str, Any], choice: CaptionChoice) -> ListedTrack:
    """The listed track `choice` names: its exact language, else the one track of that
    kind in the same base language (`en-US` finds `en`)."""
    same_kind = [t for t in _originals(info) if t.source_kind == choice.kind]
    exact = [t for t in same_kind if _same(t.language, choice.language)]
    if exact:
        return exact[0]
    close = [t for t in same_kind if base_language(t.language) == base_language(choice.language)]
    if len(close) == 1:
        return close[0]
    words = "creator caption track" if choice.kind == "creator" else "auto caption track"
    raise _unknown(info, f"{words} in {choice.language!r}")


def pick_track(info: dict[str, Any], choice: CaptionChoice) -> TrackChoice:
    """The download for `choice`; `not-found` (listing what there is) when the video has no
    such track, or the track cannot be translated into `choice.translate_to`."""
    source = _source(info, choice)
    if not choice.translate_to:
        return track_choice(source)
    target = choice.translate_to
    offered = [t for t in _translations(info) if _translates(t, source)]
    if not offered:
        raise _unknown(info, f"machine translation of its {choice.kind} track {source.language!r}")
    found = [t for t in offered if _same(t.language, target)]
    if not found:
        found = [t for t in offered if base_language(t.language) == base_language(target)][:1]
    if not found:
        raise _unknown(
            info, f"translation of its {choice.kind} track {source.language!r} into {target!r}"
        )
    return track_choice(found[0])


def track_count(info: dict[str, Any]) -> int:
    """How many tracks there are to choose between (translations not counted)."""
    return len(_originals(info))
