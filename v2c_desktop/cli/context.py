"""Opening the library for one command, and closing it whatever happens."""

from __future__ import annotations

import argparse
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from v2c_desktop.core.library import Library
from v2c_desktop.core.paths import library_path
from v2c_desktop.core.sources.web.settings import WebSettings
from v2c_desktop.core.sources.web_access import WebAccess
from v2c_desktop.core.store import open_library


def web_settings(args: argparse.Namespace) -> WebSettings:
    return WebSettings(
        cookies_from_browser=getattr(args, "cookies_from_browser", None),
        proxy=getattr(args, "proxy", None),
        languages=tuple(getattr(args, "lang", None) or ()),
    )


@asynccontextmanager
async def open_context(args: argparse.Namespace) -> AsyncIterator[Library]:
    store = open_library(library_path(args.library))
    web = WebAccess.default(web_settings(args)) if getattr(args, "needs_web", False) else None
    library = Library(store, web=web)
    try:
        yield library
    finally:
        await library.aclose()
        store.close()
