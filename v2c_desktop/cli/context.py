"""Opening the library for one command: as its owner, or as a client of the process that
owns it (the desktop app, an agent's `v2c mcp`, another `v2c` command)."""

from __future__ import annotations

import argparse
import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.importers.web.settings import WebSettings
from v2c_desktop.core.importers.web_access import WebAccess
from v2c_desktop.core.owner.session import open_session
from v2c_desktop.core.paths import library_path
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import load_settings


def web_settings(args: argparse.Namespace) -> WebSettings:
    saved = load_settings().imports
    return WebSettings(
        cookies_from_browser=getattr(args, "cookies_from_browser", None)
        or saved.cookies_from_browser,
        proxy=getattr(args, "proxy", None) or saved.proxy,
        languages=tuple(getattr(args, "lang", None) or saved.languages or ()),
    )


@asynccontextmanager
async def open_context(args: argparse.Namespace) -> AsyncIterator[CoreAPI]:
    """The library's API for this command; closed (and ownership handed on) at the end.

    When another process owns the library, calls go through it; cookies and proxy flags
    then come from the owner's settings, since the owner does the downloading.
    """
    path = library_path(args.library)

    async def make_target() -> CoreAPI:
        web = WebAccess.default(web_settings(args)) if getattr(args, "needs_web", False) else None
        services = await asyncio.to_thread(
            Services.open, path, web=web, index_on_import=not getattr(args, "no_index", False)
        )
        return CoreAPI(services)

    session = await open_session(
        path, make_target=make_target, client_name=f"v2c {args.command} ({os.getpid()})"
    )
    try:
        yield session.api
    finally:
        await session.aclose()
