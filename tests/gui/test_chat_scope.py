"""What a chat asks about: the whole library (said explicitly), and ticks that are never
lost or hidden by a refresh, another kind of scope, a filter or a saved chat's scope."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.gui.chat_helpers import HOMUNCULUS, open_chat, tick
from tests.gui.conftest import wait_for
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.domain.chats import ChatRecord
from v2c_desktop.core.domain.videos import VideoSummary
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.panes.chat.pane import ChatPane
from v2c_desktop.ui.panes.chat.scope import COLLECTION, ID_ROLE, LIBRARY, VIDEOS, ScopePicker

pytestmark = pytest.mark.gui

MakeWindow = Callable[[CoreAPI], MainWindow]
SLEEP = "youtube:rMHus-0wFSo"
MEMORIES = "youtube:bSycdIx-C48"


def shown(pane: ChatPane) -> dict[str, bool]:
    """Video id -> ticked, of the videos the list shows (not hidden by the filter)."""
    out = {}
    for row in range(pane.scope.videos.count()):
        item = pane.scope.videos.item(row)
        if not item.isHidden():
            out[str(item.data(ID_ROLE))] = item.checkState() == Qt.CheckState.Checked
    return out


def test_the_whole_library_is_a_scope_of_its_own_and_a_chat_over_it_reopens_so(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    window = make_window(crashcourse)
    pane = open_chat(qtbot, window)
    pane.models.select("extractive")
    pane.question.setText("What happens in the brain while we sleep?")
    assert not pane.ask_button.isEnabled()  # nothing chosen yet
    pane.scope.kind.setCurrentText(LIBRARY)
    assert pane.ask_button.isEnabled()
    assert "10 videos" in pane.scope.whole.text()
    assert pane.scope.summary.full_text() == "The whole library (10 videos)"
    request = pane.request(pane.question.text())
    assert request.library and request.video_ids == () and request.collection is None
    with qtbot.waitSignal(pane.answer_finished, timeout=60000) as finished:
        pane.ask()
    assert finished.args == ["done"]
    (turn,) = pane.turns
    assert turn.cards and SLEEP in {c.card.video_id for c in turn.cards}
    chat_id = pane.chat_id
    assert chat_id is not None
    assert wait_for(qtbot, crashcourse.get_chat(chat_id)).scope == {"library": True}
    qtbot.waitUntil(lambda: pane.saved.list.count() == 1)
    pane.saved.new.click()
    assert pane.chat_id is None
    tick(pane, HOMUNCULUS)
    assert pane.scope.kind.currentText() == VIDEOS
    with qtbot.waitSignal(pane.saved.opened):
        pane.saved.list.setCurrentRow(0)
    assert pane.chat_id == chat_id and pane.scope.kind.currentText() == LIBRARY
    assert pane.scope.scope().library


def test_ticks_survive_a_refresh_another_kind_and_the_filter_never_hides_them(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: MakeWindow
) -> None:
    collection = wait_for(qtbot, crashcourse.create_collection("Sleep and memory"))
    wait_for(qtbot, crashcourse.add_to_collection(collection.id, [SLEEP, MEMORIES]))
    window = make_window(crashcourse)
    pane = open_chat(qtbot, window)
    scope = pane.scope
    tick(pane, HOMUNCULUS, SLEEP)
    scope.filter.setText("memories")
    visible = shown(pane)
    assert visible[HOMUNCULUS] and visible[SLEEP]  # ticked: listed whatever the filter
    assert visible[MEMORIES] is False and len(visible) == 3  # the filter's own match
    scope.filter.clear()

    # the library is read again while a collection is chosen: the ticks are kept
    scope.kind.setCurrentText(COLLECTION)
    assert scope.scope().collection == collection.id
    with qtbot.waitSignal(scope.changed, timeout=10000):
        pane.refresh()
    scope.kind.setCurrentText(VIDEOS)
    assert set(scope.scope().video_ids) == {HOMUNCULUS, SLEEP}

    # a saved chat over the collection shows the collection, and its videos ticked
    saved = ChatRecord(
        "chat-1",
        "Sleep",
        {"video_ids": [SLEEP, MEMORIES], "collection": collection.id},
    )
    pane.show_chat(saved)
    assert scope.kind.currentText() == COLLECTION
    scope.kind.setCurrentText(VIDEOS)
    assert set(scope.scope().video_ids) == {SLEEP, MEMORIES}  # not the earlier ticks


def summary(video_id: str, title: str) -> VideoSummary:
    return VideoSummary(
        video_id, title, "Channel", "", 60.0, "subtitle-file", "en", "", None, "", 1, 0
    )


def test_a_scope_shown_before_the_library_arrives_keeps_its_ticks(qtbot: QtBot) -> None:
    picker = ScopePicker()
    qtbot.addWidget(picker)
    picker.set_scope(["youtube:b"], None)  # a chat opened while the list is on its way
    picker.set_library([summary("youtube:a", "A"), summary("youtube:b", "B")], [])
    assert picker.scope().video_ids == ("youtube:b",)
