"""`v2c-desktop --self-test`: what a frozen build must prove before it ships.

The window opens (offscreen) on a temporary library and shows it, the bundled sample
imports (captions parse, the store writes, the embedder runs), the icons draw (QtAwesome's
fonts are package data a bundle must carry), and the in-app YouTube player page loads in
QtWebEngine from the bundled resources (no network: the IFrame API is left out). Exit
status 0 only when all of it worked.
"""

from __future__ import annotations

import asyncio
import sys
from typing import TYPE_CHECKING

from v2c_desktop.core.domain.videos import Video
from v2c_desktop.core.errors import V2CError

if TYPE_CHECKING:
    from v2c_desktop.core.api import CoreAPI

    from .main_window import MainWindow

TIMEOUT_S = 120.0
SAMPLE = Video(
    id="youtube:spCOYV4KyPA", title="sample", platform="youtube", native_id="spCOYV4KyPA"
)


def say(text: str) -> None:
    sys.stderr.write(f"v2c-desktop: {text}\n")
    sys.stderr.flush()


async def player_page_loads() -> bool:
    from .player.dock import webengine_available

    if not webengine_available():
        say("self-test: QtWebEngine cannot be imported")
        return False
    from .player.youtube_backend import YouTubeBackend

    backend = YouTubeBackend(allow_remote=False, load_api=False)
    done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

    def finished(ok: bool) -> None:
        if not done.done():
            done.set_result(bool(ok))

    backend.page.loadFinished.connect(finished)
    backend.load(SAMPLE, 0)
    try:
        return await asyncio.wait_for(done, TIMEOUT_S)
    finally:
        backend.view.deleteLater()


async def self_test(window: MainWindow, api: CoreAPI) -> int:
    """Wait for the window, import the bundled sample, load the player page: 0 if all worked."""
    from v2c_desktop.resources import sample_dir

    shown = asyncio.Event()
    window.ready.connect(shown.set)
    try:
        await asyncio.wait_for(shown.wait(), TIMEOUT_S)
        result = await api.add([str(sample_dir())])
        player = await player_page_loads()
    except (TimeoutError, V2CError) as exc:
        say(f"self-test failed: {type(exc).__name__}: {exc}")
        return 1
    if result.count("failed") or SAMPLE.id not in result.changed_ids:
        say(f"self-test failed: the sample did not import ({result.to_dict()})")
        return 1
    if not player:
        say("self-test failed: the player page did not load in QtWebEngine")
        return 1
    from .icons import blank_icons

    blank = blank_icons()
    if blank:
        say(f"self-test failed: these icons drew nothing (fonts missing?): {', '.join(blank)}")
        return 1
    say("self-test ok: window ready, sample imported, player page loaded")
    return 0
