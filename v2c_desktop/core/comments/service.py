"""The comment service on `CoreAPI`: a video's comments, read from its site and kept.

A call names a video the way every read does (a URL, a library id or title, a YouTube id).
The comments the library kept are returned when they are enough: at least as many as asked
for, or all the site had. Otherwise yt-dlp reads them from the video's page (up to the
limit, YouTube's "top comments" first) and they replace the kept ones.

Every video read is saved, so a video the library does not hold yet is imported after its
comments are read, through the library's own import (an agent's limits apply). The library
holds only videos with a transcript: a video without captions (or whose import fails) still
has its comments returned and kept, by its id, and the result says it is not in the library.
A file on this computer has no comments, nor has a page whose site yt-dlp reads none from:
both are `unsupported-input`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..domain.comments import Comment, Comments, check_limit
from ..domain.imports import ImportOutcome
from ..errors import V2CError, bad_request, not_found, unsupported_input
from ..ids import is_web, youtube_id_from_url
from ..importers.web.metadata import video_from_info
from ..library import Library
from ..progress import Progress, ProgressCallback, ignore_progress
from ..settings import AgentSettings
from ..store import LibraryStore
from ..store.comments import StoredComments
from .normalise import comments_from_info

STAGE = "comments"
_STEPS = 3
_BARE_YOUTUBE_ID = re.compile(r"^[A-Za-z0-9_-]{11}$")
LOCAL_HINT = "{comments-source}"
NO_COMMENTS_HINT = (
    "yt-dlp reads comments from YouTube and a few other sites only; {comments-source}"
)


@dataclass(frozen=True)
class _Target:
    """The video a call names: its page, and its library id when known before any read."""

    url: str
    video_id: str | None
    title: str = ""
    in_library: bool = False


class CommentService:
    def __init__(self, store: LibraryStore, library: Library) -> None:
        self.store, self.library = store, library

    async def get(
        self,
        ref: str,
        limit: int | None = None,
        *,
        refresh: bool = False,
        agent: AgentSettings | None = None,
        progress: ProgressCallback = ignore_progress,
    ) -> Comments:
        """Up to `limit` comments of the video `ref` names (see the module docstring);
        `refresh` reads them from the site even when the library holds enough; `agent`: an
        AI agent's call, whose reads and import reach public hosts only."""
        wanted = check_limit(limit)
        target = await self._target(ref)
        if target.video_id is not None and not refresh:
            stored = await self.store.run(self.store.comments, target.video_id)
            if stored is not None and (stored.complete or len(stored.comments) >= wanted):
                return _from_library(stored, wanted, target)
        return await self._fetch(target, wanted, agent, progress)

    async def _target(self, ref: str) -> _Target:
        text = ref.strip()
        if not text:
            raise bad_request("no video given", "pass a video's URL or its library id")
        try:
            video_id: str | None = await self.library.resolve(text)
        except V2CError as error:
            if error.code != "not-found":
                raise
            video_id = None
        if video_id is not None:
            video = (await self.library.get_video(video_id)).video
            if not is_web(video.url):
                raise unsupported_input(
                    f"{video.title or video.id} was imported from a file on this computer, "
                    "which has no comments",
                    LOCAL_HINT,
                )
            return _Target(video.url, video.id, video.title, in_library=True)
        if _BARE_YOUTUBE_ID.match(text) and not Path(text).exists():
            text = f"https://www.youtube.com/watch?v={text}"
        if is_web(text):
            youtube = youtube_id_from_url(text)
            return _Target(text, f"youtube:{youtube}" if youtube else None)
        if Path(text).expanduser().exists():
            raise unsupported_input(
                f"{text[:200]} is a file on this computer: files have no comments", LOCAL_HINT
            )
        raise not_found(
            f"no video {text[:200]!r} in the library",
            "pass a video's URL, or the library id of a video imported from a site",
        )

    async def _fetch(
        self,
        target: _Target,
        wanted: int,
        agent: AgentSettings | None,
        progress: ProgressCallback,
    ) -> Comments:
        progress(Progress(STAGE, 0, _STEPS, f"Reading up to {wanted} comments of {target.url}"))
        guard = self.library.agent_guard(agent)
        info = await self.library.web.info(target.url, guard=guard, comments=wanted)
        video = video_from_info(info)
        if "comments" not in info:
            site = str(info.get("extractor_key") or info.get("extractor") or video.platform)
            raise unsupported_input(
                f"yt-dlp reads no comments from {site} pages, so {video.title or target.url} "
                "has none to show",
                NO_COMMENTS_HINT,
            )
        raw = info.get("comments")
        disabled = raw is None
        given = raw if isinstance(raw, list) else []
        comments = comments_from_info(given, wanted)
        complete = disabled or len(given) < wanted
        video_id, title, url, note = target.video_id or video.id, target.title, target.url, ""
        if not target.in_library:
            progress(Progress(STAGE, 1, _STEPS, f"Saving {video.title or video.id} in the library"))
            outcome = await self._import(video.url or target.url, agent, progress)
            if outcome is not None and outcome.status != "failed" and outcome.video_id:
                video_id, title = outcome.video_id, outcome.title or video.title
            else:
                video_id, title = video.id, video.title
                note = _not_saved(outcome, video_id)
            url = video.url or target.url
        progress(Progress(STAGE, 2, _STEPS, f"Keeping {len(comments)} comments"))
        await self.store.run(
            self.store.save_comments, video_id, title, url, wanted, complete, disabled, comments
        )
        stored = await self.store.run(self.store.comments, video_id)
        progress(Progress(STAGE, 3, _STEPS, f"{len(comments)} comments"))
        return Comments(
            video_id=video_id,
            title=title or video_id,
            url=url,
            comments=comments,
            fetched_at=stored.fetched_at if stored is not None else "",
            from_library=False,
            complete=complete,
            disabled=disabled,
            in_library=not note,
            note=note,
        )

    async def _import(
        self, url: str, agent: AgentSettings | None, progress: ProgressCallback
    ) -> ImportOutcome | None:
        """Save the video, as every read does; its outcome (None: nothing was planned)."""
        result = await self.library.add([url], agent=agent, progress=progress)
        return result.outcomes[-1] if result.outcomes else None


def _not_saved(outcome: ImportOutcome | None, video_id: str) -> str:
    """Why a video whose comments were read is not in the library, in a sentence."""
    error = outcome.error if outcome is not None else None
    if error is not None and error.code == "no-transcript":
        why = "it has no captions, and the library holds videos with a transcript only"
    elif error is not None:
        why = f"its import failed ({error.message})"
    else:
        why = "its import read nothing"
    return f"The video is not in the library: {why}. Its comments are kept by its id {video_id}."


def _from_library(stored: StoredComments, wanted: int, target: _Target) -> Comments:
    comments: list[Comment] = stored.comments[:wanted]
    return Comments(
        video_id=stored.video_id,
        title=target.title or stored.title or stored.video_id,
        url=target.url if target.in_library else stored.url or target.url,
        comments=comments,
        fetched_at=stored.fetched_at,
        from_library=True,
        complete=stored.complete and len(stored.comments) <= wanted,
        disabled=stored.disabled,
        in_library=target.in_library,
        note=""
        if target.in_library
        else "The video is not in the library (it could not be saved when its comments "
        f"were read). Its comments are kept by its id {stored.video_id}.",
    )
