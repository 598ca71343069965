"""What every tool needs: the library (as its owner or a client of the owner) and the input rules.

The MCP server is one of several processes sharing a library (the GUI, `v2c` commands, other
agents), so the library is reached through an owner session and never opened directly. The
session is opened when the server starts (so the first `v2c mcp` becomes the owner at once),
and again on the next call if that failed: a library held by a process that does not serve it
must turn into an `isError` result the agent can read, not into a dead server.

Video inputs follow the spec: a `url` is a URL, a YouTube id, a library id, a local path or an
exact title. Anything the library already holds is used as is; a URL or a file that it does
not hold is imported first. Relative paths are made absolute here, because the owner that
reads the file may run in another working directory.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.errors import V2CError, bad_request, not_found
from v2c_desktop.core.importers.inputs import is_web_url
from v2c_desktop.core.importers.web.settings import WebSettings
from v2c_desktop.core.importers.web_access import WebAccess
from v2c_desktop.core.owner import Session, open_session
from v2c_desktop.core.progress import ProgressCallback, ignore_progress
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import load_settings

log = logging.getLogger(__name__)

_BARE_YOUTUBE_ID = re.compile(r"^[A-Za-z0-9_-]{11}$")
_LIST_SEPARATORS = re.compile(r"[\s,]+")

SessionOpener = Callable[[Path], Awaitable[Session[CoreAPI]]]


def saved_web_access() -> WebAccess:
    """Web access with the user's saved import settings (cookies, proxy, languages)."""
    saved = load_settings().imports
    return WebAccess.default(
        WebSettings(
            cookies_from_browser=saved.cookies_from_browser,
            proxy=saved.proxy,
            languages=tuple(saved.languages or ()),
        )
    )


async def open_library_session(library: Path) -> Session[CoreAPI]:
    """Become the library's owner (serving `CoreAPI` to the others) or a client of the owner.

    `Services.open` opens DuckDB synchronously, so it runs on a thread: the event loop keeps
    answering the MCP client (and, once we own the library, other processes) meanwhile.
    """

    async def make_target() -> CoreAPI:
        services = await asyncio.to_thread(Services.open, library, web=saved_web_access())
        return CoreAPI(services)

    return await open_session(library, make_target=make_target, client_name=f"mcp:{os.getpid()}")


@dataclass
class Deps:
    """Shared by every registered tool, resource and prompt of one server."""

    library: Path
    cwd: Path = field(default_factory=Path.cwd)
    opener: SessionOpener = open_library_session
    web_factory: Callable[[], WebAccess] = saved_web_access
    session: Session[CoreAPI] | None = None
    _web: WebAccess | None = None
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def core(self) -> CoreAPI:
        """The library API, opening the session first if it is not open yet."""
        if self.session is None:
            async with self._lock:
                if self.session is None:
                    self.session = await self.opener(self.library)
                    log.info("library %s opened as %s", self.library, self.session.role)
        return self.session.api

    def web(self) -> WebAccess:
        """yt-dlp and HTTP, for expanding playlists without importing (`list_items`)."""
        if self._web is None:
            self._web = self.web_factory()
        return self._web

    async def aclose(self) -> None:
        session, self.session = self.session, None
        web, self._web = self._web, None
        try:
            if session is not None:
                await session.aclose()
        finally:
            if web is not None:
                await web.aclose()

    # -- inputs -----------------------------------------------------------------------------
    def absolute(self, text: str) -> str:
        """URLs and ids unchanged; a path that exists (relative to our cwd) made absolute."""
        text = text.strip()
        if not text or is_web_url(text) or text.startswith("file://"):
            return text
        path = Path(text).expanduser()
        if not path.is_absolute():
            path = self.cwd / path
        try:
            return str(path.resolve()) if path.exists() else text
        except OSError:  # a name too long for the file system is not a path
            return text

    async def video_id(
        self,
        ref: str,
        *,
        languages: tuple[str, ...] = (),
        progress: ProgressCallback = ignore_progress,
    ) -> str:
        """The library id of the video `ref` names, importing a URL or file first if needed."""
        api = await self.core()
        text = self.absolute(ref)
        if not text:
            raise bad_request("no video given", "pass a URL, a YouTube id, a video id or a path")
        try:
            return await api.resolve(text)
        except V2CError as error:
            if error.code != "not-found":
                raise
        source = import_source(text)
        if source is None:
            raise not_found(
                f"no video {ref!r} in the library",
                "pass a video URL or a file path to import it, or an id from search_transcript, "
                "list_items or get_collection",
            )
        result = await api.add([source], languages=list(languages), progress=progress)
        for outcome in result.outcomes:
            if outcome.video_id and outcome.status != "failed":
                return outcome.video_id
        for outcome in result.outcomes:
            if outcome.error is not None:
                raise outcome.error
        raise not_found(f"{ref!r} holds no video", "pass the URL of one video")


def import_source(text: str) -> str | None:
    """What to hand `CoreAPI.add` for an input the library does not hold, or None.

    A bare 11-character YouTube id becomes its watch URL; URLs and existing paths pass.
    """
    if _BARE_YOUTUBE_ID.match(text) and not Path(text).exists():
        return f"https://www.youtube.com/watch?v={text}"
    return text if importable(text) else None


def importable(text: str) -> bool:
    """Whether `text` is something `CoreAPI.add` can read: a web URL or an existing path."""
    if is_web_url(text) or text.startswith("file://"):
        return True
    try:
        return Path(text).expanduser().exists()
    except OSError:
        return False


def split_list(value: str | None) -> list[str]:
    """Prompt arguments are strings: `urls` may be separated by commas, spaces or newlines."""
    return [part for part in _LIST_SEPARATORS.split(value or "") if part]
