"""Opening the library's services for one command, and closing them whatever happens."""

from __future__ import annotations

import argparse
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import load_settings
from v2c_desktop.core.sources.web.settings import WebSettings
from v2c_desktop.core.sources.web_access import WebAccess


def web_settings(args: argparse.Namespace) -> WebSettings:
    saved = load_settings().imports
    return WebSettings(
        cookies_from_browser=getattr(args, "cookies_from_browser", None)
        or saved.cookies_from_browser,
        proxy=getattr(args, "proxy", None) or saved.proxy,
        languages=tuple(getattr(args, "lang", None) or saved.languages or ()),
    )


@asynccontextmanager
async def open_context(args: argparse.Namespace) -> AsyncIterator[Services]:
    web = WebAccess.default(web_settings(args)) if getattr(args, "needs_web", False) else None
    services = Services.open(
        args.library, web=web, index_on_import=not getattr(args, "no_index", False)
    )
    try:
        yield services
    finally:
        await services.aclose()
