"""`v2c mcp` with YouTube replayed: the real server, whose library's web access reads the
recorded player responses and serves their caption tracks (tests/support/youtube_replay.py)
instead of running yt-dlp against the internet.

Run as `python -m tests.mcp.youtube_server --players FOLDER --library PATH`: the server
becomes the library's owner through the same door as `v2c mcp` (`open_session`), with the
replaying `WebAccess` handed to `Services.open` (the place every face injects its own).
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from tests.support.youtube_replay import replay_web
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.owner import Session, open_session
from v2c_desktop.core.services import Services
from v2c_desktop.mcp import Deps, build_server
from v2c_desktop.mcp.deps import SessionOpener, default_client_name
from v2c_desktop.mcp.stdio import configure_logging


def replaying_opener(players: Path) -> SessionOpener:
    """`Deps.opener`: the library's session, its owner's web access replaying `players`."""

    async def opener(library: Path) -> Session[CoreAPI]:
        async def make_target() -> CoreAPI:
            web, _, _ = replay_web(players)
            services = await asyncio.to_thread(
                lambda: Services.open(library, web=web, index_on_import=False)
            )
            return CoreAPI(services)

        return await open_session(
            library, make_target=make_target, client_name=default_client_name()
        )

    return opener


async def main(library: Path, players: Path) -> None:
    configure_logging()
    deps = Deps(library=library, opener=replaying_opener(players))
    await build_server(deps).run_stdio_async()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=Path, required=True)
    parser.add_argument("--library", type=Path, required=True)
    options = parser.parse_args()
    asyncio.run(main(options.library, options.players))
