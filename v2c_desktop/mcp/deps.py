"""What every tool needs: the library (as its owner or a client of the owner) and the input rules.

The MCP server is one of several processes sharing a library (the GUI, `v2c` commands, other
agents), so the library is reached through an owner session and never opened directly. The
session is opened when the server starts (so the first `v2c mcp` becomes the owner at once),
and again on the next call if that failed: a library held by a process that does not serve it
must turn into an `isError` result the agent can read, not into a dead server.

Video inputs follow the spec: a `url` is a URL, a YouTube id, a library id, a local path or an
exact title. The rules are the core's (`core.gather.refs`); `Deps` binds them to the server's
working directory and words the hint for an agent.

An agent is not the user, so its inputs are limited (`check_input`): a local path must lie
inside a folder the user allows (`agents.allowed_folders` in the settings) or a root the MCP
client shares, and a URL may not reach loopback, private or link-local hosts (unless
`agents.allow_private_hosts`). The settings go with every import to the library's owner,
which applies the same host rule to the caption tracks and redirects a URL leads to.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context

from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.errors import bad_request
from v2c_desktop.core.gather.agent_inputs import check_agent_input
from v2c_desktop.core.gather.refs import InputResolver, absolute_input
from v2c_desktop.core.gather.videos import Gathered, gather_videos
from v2c_desktop.core.open import open_api
from v2c_desktop.core.owner import Session
from v2c_desktop.core.progress import ProgressCallback, ignore_progress
from v2c_desktop.core.settings import Settings, load_settings

from .roots import client_roots
from .tooling import Progress

log = logging.getLogger(__name__)

_LIST_SEPARATORS = re.compile(r"[\s,]+")
MISSING_HINT = (
    "pass a video URL or a file path to import it, or an id from search_transcript, "
    "list_items or get_collection"
)


SessionOpener = Callable[[Path], Awaitable[Session[CoreAPI]]]
RootsLister = Callable[[], Awaitable[list[Path]]]


def default_client_name() -> str:
    """How the owner lists us until the MCP client has said who it is."""
    return f"v2c mcp ({os.getpid()})"


async def open_library_session(library: Path) -> Session[CoreAPI]:
    """Become the library's owner (serving `CoreAPI` to the others) or a client of the owner,
    through the core's one door; DuckDB opens on a thread, so the event loop keeps
    answering the MCP client (and, once we own the library, other processes) meanwhile."""
    return await open_api(library, client_name=default_client_name())


@dataclass
class Deps:
    """Shared by every registered tool, resource and prompt of one server."""

    library: Path
    cwd: Path = field(default_factory=Path.cwd)
    opener: SessionOpener = open_library_session
    session: Session[CoreAPI] | None = None
    client_name: str = field(default_factory=default_client_name)
    #: the Obsidian vault `export_obsidian` may write into (`v2c mcp --vault`), before the
    #: one in the settings
    vault: Path | None = None
    #: the folders the MCP client shares (asked for on each check: they may change)
    roots: RootsLister = client_roots
    #: the settings agents are limited by (read again on each call: the user may edit them)
    settings: Callable[[], Settings] = load_settings
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def core(self) -> CoreAPI:
        """The library API, opening the session first if it is not open yet."""
        if self.session is None:
            async with self._lock:
                if self.session is None:
                    session = await self.opener(self.library)
                    if session.client_name != self.client_name:  # named while it opened
                        await session.rename(self.client_name)
                    self.session = session
                    log.info("library %s opened as %s", self.library, session.role)
        return self.session.api

    async def name_client(self, name: str) -> None:
        """The MCP client said who it is: the owner lists us by that name from now on."""
        self.client_name = name
        session = self.session
        if session is not None:
            await session.rename(name)

    async def aclose(self) -> None:
        session, self.session = self.session, None
        if session is not None:
            await session.aclose()

    # -- inputs -----------------------------------------------------------------------------
    def absolute(self, text: str) -> str:
        """URLs and ids unchanged; a path that exists (relative to our cwd) made absolute."""
        return absolute_input(text, self.cwd)

    async def inputs(self) -> InputResolver:
        """The core's input rules over the library, from our cwd, hints worded for agents,
        every input checked by `check_input` and every import made as an agent's."""
        return InputResolver(
            await self.core(),
            self.cwd,
            MISSING_HINT,
            check=self.check_input,
            agent=self.settings().agents,
        )

    async def prepare(self, ref: str) -> str:
        """`ref` made absolute and checked (see `check_input`)."""
        text = self.absolute(ref)
        if text:
            await self.check_input(text)
        return text

    async def check_input(self, text: str) -> None:
        """Refuse an agent's local path outside the allowed folders and the client's roots,
        and a URL to a private host (`core/gather/agent_inputs.py`)."""
        await check_agent_input(text, self.settings(), self.roots)

    async def video_id(
        self,
        ref: str,
        *,
        languages: tuple[str, ...] = (),
        progress: ProgressCallback = ignore_progress,
        ctx: Context[Any, Any] | None = None,
    ) -> str:
        """The library id of the video `ref` names, importing a URL or file first if needed.

        With `ctx` (a tool call), that import's progress reaches the client: reading one
        URL is quick, but a media file without subtitles is transcribed, which takes minutes.
        """
        resolver = await self.inputs()
        if ctx is None:
            return await resolver.video_id(ref, languages=languages, progress=progress)
        reporter = Progress(ctx, 1)
        try:
            return await resolver.video_id(ref, languages=languages, progress=reporter.listener(0))
        finally:
            await reporter.drain()

    async def read_urls(
        self, urls: list[str] | None, progress: Progress, *, required: bool = True
    ) -> Gathered:
        """The videos `urls` name, imported first when new, one progress unit each (all
        notifications sent before this returns). `required`: a `bad-request` when none of
        them could be read, naming each failure."""
        gathered = await gather_videos(await self.inputs(), urls, None, progress)
        await progress.drain()
        if required and not gathered.video_ids:
            raise bad_request(
                "none of the urls could be read",
                "; ".join(f"{f.input}: {f.error.message}" for f in gathered.failures),
            )
        return gathered


def split_list(value: str | None) -> list[str]:
    """Prompt arguments are strings: `urls` may be separated by commas, spaces or newlines."""
    return [part for part in _LIST_SEPARATORS.split(value or "") if part]
