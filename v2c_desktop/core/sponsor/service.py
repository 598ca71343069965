"""The skip-segment service on `CoreAPI`: a video's SponsorBlock segments, fetched once.

The first call for a video asks SponsorBlock (every category at once, so any later choice of
categories is answered from the library) and keeps the answer with the video, an empty one
too; later calls, the app's player and briefs read it without the network. `refresh` asks
again and replaces what was kept. Shares are computed on each read, from the transcript the
video has now.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..domain.skips import CATEGORIES, SkipSegments, check_categories
from ..domain.videos import Video
from ..errors import not_found, unsupported_input
from ..ids import youtube_id_of
from ..library import Library
from ..settings import SPONSORBLOCK_SERVER
from ..store import LibraryStore
from .client import fetch_segments
from .spans import with_shares

NOT_YOUTUBE_HINT = (
    "SponsorBlock lists segments of YouTube videos only. For a YouTube video, give its "
    "YouTube URL or id (a local copy is matched when its metadata names the YouTube page)."
)


class SponsorService:
    def __init__(
        self, store: LibraryStore, library: Library, *, server: str = SPONSORBLOCK_SERVER
    ) -> None:
        self.store, self.library, self.server = store, library, server

    async def get(
        self, ref: str, categories: Sequence[str] | None = None, refresh: bool = False
    ) -> SkipSegments:
        """The video's segments of `categories` (all by default), from the library when it
        holds them, else from SponsorBlock (then kept)."""
        wanted = check_categories(categories)
        record = await self.library.get_video(ref)
        video = record.video
        youtube = youtube_id_of(video)
        if youtube is None:
            raise unsupported_input(f"{_what(video)} is not a YouTube video", NOT_YOUTUBE_HINT)
        stored = None if refresh else await self.store.run(self.store.skip_segments, video.id)
        from_library = (
            stored is not None
            and stored.youtube_id == youtube
            and set(wanted) <= set(stored.categories)
        )
        if not from_library:
            fetched = await fetch_segments(
                self.library.web.http, youtube, server=self.server, categories=CATEGORIES
            )
            await self.store.run(
                self.store.save_skip_segments, video.id, youtube, CATEGORIES, fetched
            )
            stored = await self.store.run(self.store.skip_segments, video.id)
        if stored is None:  # removed meanwhile
            raise not_found(f"no video {video.id!r} in the library", "it may have been removed")
        chosen = [s for s in stored.segments if s.category in wanted]
        segments, spoken, share = with_shares(chosen, record.transcript.segments)
        return SkipSegments(
            video_id=video.id,
            youtube_id=youtube,
            categories=wanted,
            segments=segments,
            fetched_at=stored.fetched_at,
            from_library=from_library,
            spoken_seconds=spoken,
            share=share,
        )


def _what(video: Video) -> str:
    if video.platform == "file":
        return f"{video.title or video.id} (a local file)"
    return f"{video.title or video.id} ({video.platform})"
