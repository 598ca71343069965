"""Opening the library for one command through the core's one door (`core.open.open_api`):
as its owner, or as a client of the process that owns it (the desktop app, an agent's
`v2c mcp`, another `v2c` command)."""

from __future__ import annotations

import argparse
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.open import WebOverrides, open_api


def web_overrides(args: argparse.Namespace) -> WebOverrides:
    """`--cookies-from-browser`, `--proxy` and `--lang` of this command, if it has them."""
    return WebOverrides(
        cookies_from_browser=getattr(args, "cookies_from_browser", None),
        proxy=getattr(args, "proxy", None),
        languages=tuple(getattr(args, "lang", None) or ()),
    )


@asynccontextmanager
async def open_context(args: argparse.Namespace) -> AsyncIterator[CoreAPI]:
    """The library's API for this command; closed (and ownership handed on) at the end.

    When another process owns the library, calls go through it; cookies and proxy flags
    then come from the owner's settings, since the owner does the downloading.
    """
    session = await open_api(
        args.library,
        client_name=f"v2c {args.command} ({os.getpid()})",
        web=web_overrides(args),
        with_web=getattr(args, "needs_web", False),
        index_on_import=not getattr(args, "no_index", False),
    )
    try:
        yield session.api
    finally:
        await session.aclose()
