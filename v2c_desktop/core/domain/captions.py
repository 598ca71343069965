"""A web video's caption tracks, as every face lists them, and the choice of one.

A site offers a video's words in several tracks: the creator's own captions in one or more
languages, the speech recogniser's ("auto"), and machine translations of a translatable
track into many more. The library imports the best one by itself (`importers/web/tracks.py`);
these types let a person or an agent see the others and pick one instead.

A track is named by its key: `creator:en`, `auto:en`, and a translation by its source track
and target, `auto:en>de`. The key is what a transcript records (`Transcript.track`), what
the app marks as current and what an agent's form returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..errors import bad_request
from ..wire import wire

TrackKind = Literal["creator", "auto"]
TRACK_KINDS: tuple[TrackKind, ...] = ("creator", "auto")
KIND_WORDS: dict[TrackKind, str] = {"creator": "creator captions", "auto": "auto captions"}


@wire
@dataclass(frozen=True, slots=True)
class CaptionTrack:
    """One track: its language code, the site's name for it, who made it, and whether the
    site can machine-translate it into the listing's translation languages."""

    language: str
    name: str
    kind: TrackKind
    translatable: bool = False

    @property
    def key(self) -> str:
        return CaptionChoice(self.language, self.kind).key


@wire
@dataclass(frozen=True, slots=True)
class TranslationTarget:
    """A language the site translates translatable tracks into: its code and name."""

    language: str
    name: str


@wire
@dataclass(frozen=True, slots=True)
class CaptionChoice:
    """The track to import: a language and a kind, and optionally the language to have the
    site machine-translate it into."""

    language: str
    kind: TrackKind
    translate_to: str | None = None

    @property
    def key(self) -> str:
        key = f"{self.kind}:{self.language}"
        return f"{key}>{self.translate_to}" if self.translate_to else key

    @classmethod
    def parse(cls, key: str) -> CaptionChoice:
        """The choice a key names (`creator:en`, `auto:en>de`); `bad-request` otherwise."""
        kind, _, rest = key.strip().partition(":")
        language, _, target = rest.partition(">")
        if kind not in TRACK_KINDS or not language.strip():
            raise bad_request(
                f"{key!r} names no caption track",
                "a track is written kind:language, e.g. creator:en, auto:en or auto:en>de",
            )
        return cls(language.strip(), "creator" if kind == "creator" else "auto", target or None)

    def words(self) -> str:
        """ "creator captions (en)", "auto captions (en), translated into de"."""
        said = f"{KIND_WORDS[self.kind]} ({self.language})"
        return f"{said}, translated into {self.translate_to}" if self.translate_to else said


@wire
@dataclass(slots=True)
class CaptionTracks:
    """What one web video offers, and which of it the library's transcript came from.

    `video_id` is the library id the video has (or would have once imported); `current` is
    the track the saved transcript was read from: None when the video is not in the library
    or its transcript came from elsewhere (a subtitle file, speech-to-text) or from an
    import older than track keys; `current_words` then says where it came from.
    `users_own`: the saved transcript is the user's own (their files, speech-to-text on
    this computer), which a track replaces only when the user chose it themselves.
    """

    video_id: str
    title: str
    url: str
    tracks: list[CaptionTrack] = field(default_factory=list)
    translations: list[TranslationTarget] = field(default_factory=list)
    in_library: bool = False
    current: CaptionChoice | None = None
    current_words: str = ""
    users_own: bool = False

    def find(self, language: str, kind: TrackKind | None = None) -> CaptionTrack | None:
        """The listed track in `language` (exactly, else its only one in that base language),
        of `kind` when given, else the creator's before the recogniser's."""
        wanted = language.strip().lower()
        kinds = (kind,) if kind else TRACK_KINDS
        for each in kinds:
            exact = [t for t in self.tracks if t.kind == each and t.language.lower() == wanted]
            if exact:
                return exact[0]
        base = wanted.replace("_", "-").split("-")[0]
        for each in kinds:
            close = [
                t
                for t in self.tracks
                if t.kind == each and t.language.lower().replace("_", "-").split("-")[0] == base
            ]
            if len(close) == 1:
                return close[0]
        return None

    def summary(self) -> str:
        """The tracks in a line: "creator en, de, ja; auto en (translatable into 157)"."""
        parts: list[str] = []
        for kind in TRACK_KINDS:
            languages = [t.language for t in self.tracks if t.kind == kind]
            if languages:
                parts.append(f"{kind} {', '.join(languages)}")
        said = "; ".join(parts) or "no caption tracks"
        if self.translations and any(t.translatable for t in self.tracks):
            said += f" (translatable into {len(self.translations)} languages)"
        return said
