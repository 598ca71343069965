"""A web video's caption tracks: list them, and replace its transcript with the one chosen.

An import picks the best track by itself (`importers/web/tracks.py`); these two calls let a
person (the app's "Caption track…") or an agent (MCP `list_caption_languages` and
`choose_caption_track`) see the others and pick one. The chosen track is imported through
the library's one save path, so the change feed, the search index and the transcript's
origin and track follow as for any import.

The replace rule mirrors `Library._web_import_kept`: a transcript from the user's own files
or from speech-to-text on this computer is replaced by a web track only when the user said
so (`replace_local`, confirmed by choosing the track themselves); otherwise the outcome is
`skipped` with `confirm="replace-local"` and nothing is downloaded.
"""

from __future__ import annotations

import re

from .domain.captions import CaptionChoice, CaptionTracks
from .domain.imports import REPLACE_LOCAL, ImportOutcome
from .domain.videos import Transcript, VideoRecord
from .errors import V2CError, bad_request, not_found
from .ids import is_web
from .importers.local import is_local_transcript
from .importers.web.metadata import video_from_info
from .importers.web.track_list import list_tracks
from .library import Library
from .progress import Progress, ProgressCallback, ignore_progress
from .settings import AgentSettings

_BARE_YOUTUBE_ID = re.compile(r"^[A-Za-z0-9_-]{11}$")
_STAGE = "web-import"


async def web_url(library: Library, ref: str) -> str:
    """The page to read `ref`'s caption tracks from: a URL as given, else the page of the
    library video it names (a library id, exact title), else a bare YouTube id's page."""
    text = ref.strip()
    if not text:
        raise bad_request("no video given", "pass a video's URL or its library id")
    if is_web(text):
        return text
    try:
        record: VideoRecord | None = await library.get_video(text)
    except V2CError as error:
        if error.code != "not-found":
            raise
        record = None
    if record is not None:
        if record.video.platform != "file" and is_web(record.video.url):
            return record.video.url
        raise bad_request(
            f"{record.video.title or record.video.id} was imported from a file on this "
            "computer, not from a site, so it has no caption tracks to choose from",
            "caption tracks come from the video's site: pass the URL of a video on YouTube "
            "or another site yt-dlp reads",
        )
    if _BARE_YOUTUBE_ID.match(text):
        return f"https://www.youtube.com/watch?v={text}"
    raise not_found(
        f"no video {ref!r} in the library",
        "pass the video's URL, or the library id of a video imported from a site",
    )


def transcript_track(transcript: Transcript) -> CaptionChoice | None:
    """The track a saved transcript was read from: its recorded key, else (an import older
    than track keys) what its origin and language say without doubt; None for transcripts
    from elsewhere (files, speech-to-text) and translations of an unknown kind of track."""
    if transcript.track:
        try:
            return CaptionChoice.parse(transcript.track)
        except V2CError:
            return None
    if transcript.translated_from or is_local_transcript(transcript):
        return None
    if transcript.origin == "creator-captions":
        return CaptionChoice(transcript.language, "creator")
    if transcript.origin == "auto-captions":
        return CaptionChoice(transcript.language, "auto")
    return None


def transcript_words(transcript: Transcript) -> str:
    """Where a saved transcript came from, in a few words."""
    track = transcript_track(transcript)
    if track is not None:
        return track.words()
    said = f"{transcript.origin} ({transcript.language})" if transcript.language else ""
    said = said or transcript.origin
    if transcript.translated_from:
        said += f", translated from {transcript.translated_from}"
    if transcript.producer and users_own(transcript):
        said += f", from {transcript.producer}"
    return said


def users_own(transcript: Transcript) -> bool:
    """Read from the user's own files or transcribed on this computer: not the site's."""
    return transcript.origin == "stt" or is_local_transcript(transcript)


async def list_caption_tracks(
    library: Library, ref: str, *, agent: AgentSettings | None = None
) -> CaptionTracks:
    """The caption tracks and translation languages of the web video `ref` names (a URL,
    a library id or title, a YouTube id), and which one its saved transcript came from.
    Nothing is imported. `agent`: an agent's call, whose reads reach public hosts only."""
    url = await web_url(library, ref)
    info = await library.web.info(url, guard=library.agent_guard(agent))
    video = video_from_info(info)
    tracks, targets = list_tracks(info)
    saved = await library.saved(video.id)
    return CaptionTracks(
        video_id=video.id,
        title=saved.video.title if saved else video.title,
        url=video.url or url,
        tracks=tracks,
        translations=targets,
        in_library=saved is not None,
        current=transcript_track(saved.transcript) if saved else None,
        current_words=transcript_words(saved.transcript) if saved else "",
        users_own=saved is not None and users_own(saved.transcript),
    )


async def choose_caption_track(
    library: Library,
    ref: str,
    choice: CaptionChoice,
    *,
    agent: AgentSettings | None = None,
    replace_local: bool = False,
    progress: ProgressCallback = ignore_progress,
) -> ImportOutcome:
    """Import the track `choice` names as the transcript of the web video `ref` names
    (added when new, else replacing its transcript in one transaction); the outcome's
    `reason` says what was replaced.

    `not-found` (naming the tracks there are) when the video has no such track. A saved
    transcript of the user's own (`users_own`) is kept unless `replace_local`: the outcome
    is then `skipped` with `confirm="replace-local"`, and nothing is downloaded.
    """
    url = await web_url(library, ref)
    guard = library.agent_guard(agent)
    progress(Progress(_STAGE, 0, 3, f"Reading {url}"))
    info = await library.web.info(url, guard=guard)
    video = video_from_info(info)
    saved = await library.saved(video.id)
    if saved is not None and users_own(saved.transcript) and not replace_local:
        return ImportOutcome(
            url,
            "skipped",
            video.id,
            saved.video.title,
            reason=f"{video.id} has a transcript of the user's own "
            f"({transcript_words(saved.transcript)}), so the {choice.words()} did not "
            "replace it; replacing it needs the user's confirmation",
            confirm=REPLACE_LOCAL,
        )
    record = await library.web.record(info, choice, progress=progress, guard=guard)
    outcome = await library.replace_transcript(url, record)
    now = transcript_words(record.transcript)
    if saved is not None:
        said = f"replaced its transcript ({transcript_words(saved.transcript)}) with the {now}"
    else:
        said = f"imported with the {now}"
    outcome.reason = said + (f"; {outcome.reason}" if outcome.reason else "")
    return outcome
