"""The one door into the core: open a library as its owner, or as a client of its owner.

The app, the CLI and the MCP server used to open settings -> web access -> services ->
`CoreAPI` -> owner session each by hand. They all call `open_api` now, and get a session
whose `api` is a `CoreAPI` (local in the owner, a proxy of the owner's everywhere else).
The services are only built if this process becomes the owner; opening DuckDB runs on a
thread, so the caller's event loop keeps answering meanwhile.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .paths import library_path
from .settings import Settings, load_settings

if TYPE_CHECKING:
    from .api import CoreAPI
    from .owner import ConnectedClient, Session


@dataclasses.dataclass(frozen=True)
class WebOverrides:
    """What a command line says about the web for this run (None: the saved settings).

    They apply when this process becomes the owner; a client's downloads run in the
    owner, with the owner's settings.
    """

    cookies_from_browser: str | None = None
    proxy: str | None = None
    languages: tuple[str, ...] = ()


async def open_api(
    library: str | Path | None,
    *,
    client_name: str,
    settings: Settings | None = None,
    web: WebOverrides | None = None,
    with_web: bool = True,
    index_on_import: bool = True,
    on_clients_changed: Callable[[list[ConnectedClient]], None] | None = None,
) -> Session[CoreAPI]:
    """The session on `library` (`--library`, else `V2C_LIBRARY`, else the default).

    `client_name` is how this process is listed to the owner's user ("v2c-desktop",
    "v2c mcp (Claude)", "v2c add"). `with_web=False` opens without yt-dlp or an HTTP client
    for a command that never downloads (they are made on first use otherwise).
    """
    from .api import CoreAPI
    from .owner import open_session

    path = library_path(library)

    async def make_target() -> CoreAPI:
        from .importers.web.settings import WebSettings
        from .importers.web_access import WebAccess
        from .services import Services

        chosen = settings if settings is not None else await asyncio.to_thread(load_settings)
        saved, given = chosen.imports, web or WebOverrides()
        access = None
        if with_web:
            access = WebAccess.default(
                WebSettings(
                    cookies_from_browser=given.cookies_from_browser or saved.cookies_from_browser,
                    proxy=given.proxy or saved.proxy,
                    languages=tuple(given.languages or saved.languages or ()),
                    transcribe_without_captions=saved.transcribe_without_captions,
                )
            )
        services = await asyncio.to_thread(
            Services.open, path, settings=chosen, web=access, index_on_import=index_on_import
        )
        return CoreAPI(services)

    return await open_session(
        path,
        make_target=make_target,
        client_name=client_name,
        on_clients_changed=on_clients_changed,
    )
