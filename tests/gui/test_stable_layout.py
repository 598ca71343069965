"""Layout never jumps: a 400-character video or chat title, or an agent's long name, leaves
the window's width, the player's width and the buttons where they were; each long text is
elided with the whole of it as the tooltip."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from tests.gui.chat_helpers import HOMUNCULUS, open_chat, tick
from tests.gui.conftest import wait_for
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.owner import ConnectedClient
from v2c_desktop.ui.main_window import MainWindow

pytestmark = pytest.mark.gui

MakeWindow = Callable[[CoreAPI], MainWindow]
LONG = ("An extraordinarily long title about the sensory homunculus, " * 7)[:399] + "."


def where(widget: QWidget) -> QPoint:
    return widget.mapToGlobal(QPoint(0, 0))


def settle(qtbot: QtBot) -> None:
    QApplication.processEvents()
    qtbot.wait(50)  # layouts posted by the change run


def test_a_400_character_title_never_widens_the_window_or_squeezes_the_player(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    assert len(LONG) == 400
    window = make_window(crashcourse)
    library = window.library
    qtbot.waitUntil(lambda: library.table.model.rowCount() == 10)
    library.table.select_ids([HOMUNCULUS])
    qtbot.waitUntil(lambda: library.details.video_id == HOMUNCULUS)
    first = next(v for v in library.table.model.videos() if v.id != HOMUNCULUS)
    window.seek(first.id, 95.0)  # the player (offline YouTube here) shows its title
    qtbot.waitUntil(lambda: window.player.title.full_text() == first.title, timeout=30000)
    settle(qtbot)
    width, player = window.width(), window.player.width()
    find = where(library.details.find_button)

    with qtbot.waitSignal(library.library_changed, timeout=30000):
        library.rename_video(HOMUNCULUS, LONG)
    title = wait_for(qtbot, crashcourse.get_video(HOMUNCULUS)).video.title
    assert LONG.startswith(title.strip()) and len(title) >= 300  # the core keeps 300
    qtbot.waitUntil(lambda: title in [v.title for v in library.table.model.videos()])
    library.table.select_ids([first.id])  # the details re-read the video when it is selected
    qtbot.waitUntil(lambda: library.details.video_id == first.id)
    library.table.select_ids([HOMUNCULUS])
    shown = " ".join(title.split())
    qtbot.waitUntil(lambda: library.details.title.full_text() == shown, timeout=30000)
    window.seek(HOMUNCULUS, 120.0)
    qtbot.waitUntil(lambda: window.player.title.full_text() == shown, timeout=30000)
    settle(qtbot)
    assert window.width() == width and window.player.width() == player
    assert where(library.details.find_button) == find
    for label in (library.details.title, window.player.title):
        assert label.text() != shown and label.text().endswith("…")  # elided...
        assert label.toolTip() == shown  # ...the whole title on hover

    pane = open_chat(qtbot, window)
    pane.models.select("extractive")
    tick(pane, HOMUNCULUS)
    pane.question.setText("What is the homunculus?")
    with qtbot.waitSignal(pane.answer_finished, timeout=30000):
        pane.ask()
    qtbot.waitUntil(lambda: pane.chat_id is not None)
    settle(qtbot)
    width, player, ask = window.width(), window.player.width(), where(pane.ask_button)
    chat_id = pane.chat_id or ""
    with qtbot.waitSignal(pane.saved.listed, timeout=30000):
        pane.saved.rename_chat(chat_id, LONG)
    named = " ".join(wait_for(qtbot, crashcourse.get_chat(chat_id)).title.split())
    assert len(named) >= 200 and LONG.startswith(named)
    qtbot.waitUntil(lambda: pane.title.full_text() == named, timeout=30000)
    settle(qtbot)
    assert window.width() == width and window.player.width() == player
    assert where(pane.ask_button) == ask
    assert pane.title.toolTip() == named and pane.title.text() != named

    # the status bar: an agent's name is untrusted too (at most 200 characters)
    width = window.width()
    owner = window.owner
    owner.notify([ConnectedClient(name=LONG[:200], pid=4242, connected_at=0.0, connection=1)])
    owner.session = _OwnerRole()  # type: ignore[assignment]
    window._show_mcp()
    settle(qtbot)
    assert window.status.mcp.full_text() == f"Agent: {LONG[:200]}"
    assert window.status.mcp.width() <= 280 and window.width() == width
    assert f"Agent: {LONG[:200]}" in window.status.mcp.toolTip()
    wait_for(qtbot, crashcourse.status())  # the core is still fine


class _OwnerRole:
    """Stands in for the owner session's role only (the window is built on a bare core)."""

    role = "owner"
    owner_pid = 1
    library = None
