"""One run of the app's window, in its own process, on the offscreen screens of a config file.

    python -m tests.gui.window_layout_worker REQUEST.json

The offscreen platform's screens are fixed when Qt starts, so a window that must be
reopened on a smaller screen (or after its screen went away) runs here, once per screen
set-up, with `QT_QPA_PLATFORM=offscreen:configfile=...`. The request says which library and
state file to use and what the user does before closing the window; the report (JSON on
stdout) says where the window opened, what it showed, and every Qt warning printed.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any

NOISE = (  # as tests/gui/conftest.py's HEADLESS_NOISE: what a headless machine always prints
    r"^Couldn't (load|resolve) .+ (library|symbols)$",
    r"^PulseAudioService: pa_context_connect\(\) failed",
    r"^This plugin does not support propagateSizeHints\(\)",
    r"^This plugin does not support raise\(\)$",
)


def rect(r: Any) -> list[int]:
    return [r.x(), r.y(), r.width(), r.height()]


async def session(request: dict[str, Any]) -> dict[str, Any]:
    from PySide6.QtCore import Qt

    from v2c_desktop.core.api import CoreAPI
    from v2c_desktop.core.services import Services
    from v2c_desktop.core.settings import Settings
    from v2c_desktop.ui.bridge import JobRunner
    from v2c_desktop.ui.main_window import MainWindow
    from v2c_desktop.ui.player.dock import PlayerDock
    from v2c_desktop.ui.window_layout import splitter_key, splitters

    api = CoreAPI(Services.open(Path(request["library"]), settings=Settings()))
    runner = JobRunner(asyncio.get_running_loop())
    player = PlayerDock(runner, api.get_video, open_url=lambda _url: True)
    window = MainWindow(api, runner, Settings(), player=player, state_path=Path(request["state"]))
    report: dict[str, Any] = {"restored": window.restore_layout()}
    ready = asyncio.Event()
    window.ready.connect(ready.set)
    window.show()
    window.start()
    await asyncio.wait_for(ready.wait(), 60)
    await asyncio.sleep(0.2)  # the layout settles
    report.update(
        geometry=rect(window.geometry()),
        frame=rect(window.frameGeometry()),
        available=rect(window.screen().availableGeometry()),
        screen=window.screen().name(),
        minimum=[window.minimumWidth(), window.minimumHeight()],
        player_area=window.dockWidgetArea(window.player).name,
        player_visible=window.player.isVisible(),
        splitters={key: s.sizes() for key, s in splitters(window).items()},
    )
    do = request.get("do", {})
    if "geometry" in do:
        x, y, width, height = do["geometry"]
        window.setGeometry(x, y, width, height)
    if do.get("player_left"):
        window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, window.player)
    for key, sizes in do.get("splitters", {}).items():
        found = {splitter_key(s, window): s for s in splitters(window).values()}
        found[key].setSizes(sizes)
    await asyncio.sleep(0.2)
    report["before_close"] = {
        "geometry": rect(window.geometry()),
        "splitters": {key: s.sizes() for key, s in splitters(window).items()},
    }
    window.close()
    await runner.shutdown()
    await window.aclose()
    await api.aclose()
    return report


def main() -> int:
    request = json.loads(Path(sys.argv[1]).read_text())
    import qasync
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler
    from PySide6.QtWidgets import QApplication

    warnings: list[str] = []

    def hear(kind: QtMsgType, _context: object, message: str) -> None:
        if kind != QtMsgType.QtDebugMsg and not any(re.search(p, message) for p in NOISE):
            warnings.append(message)

    qInstallMessageHandler(hear)
    app = QApplication([sys.argv[0]])
    app.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        report = loop.run_until_complete(session(request))
    report["warnings"] = warnings
    sys.stdout.write(json.dumps(report) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
