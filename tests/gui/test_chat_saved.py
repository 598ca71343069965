"""Saved chats: listed after an answer, reopened with their links, renamed, exported, deleted."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox
from pytestqt.qtbot import QtBot

from tests.gui.chat_helpers import HOMUNCULUS, markers, open_chat, tick
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.domain.chats import ChatRecord
from v2c_desktop.ui.bridge import JobRunner
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.panes.chat.pane import ChatPane
from v2c_desktop.ui.panes.chat.saved import SavedChats

pytestmark = pytest.mark.gui

SLEEP = "youtube:rMHus-0wFSo"


def ask(qtbot: QtBot, pane: ChatPane, question: str) -> None:
    pane.question.setText(question)
    with qtbot.waitSignal(pane.answer_finished, timeout=30000) as finished:
        pane.ask()
    assert finished.args == ["done"]


def titles(pane: ChatPane) -> list[str]:
    return [pane.saved.list.item(i).text().split("\n")[0] for i in range(pane.saved.list.count())]


def test_saved_chats_open_rename_export_and_delete(
    qtbot: QtBot, crashcourse: CoreAPI, make_window: Callable[[CoreAPI], MainWindow], tmp_path: Path
) -> None:
    window = make_window(crashcourse)
    pane = open_chat(qtbot, window)
    pane.models.select("extractive")
    tick(pane, HOMUNCULUS)
    ask(qtbot, pane, "What is the homunculus?")
    ask(qtbot, pane, "Which body parts are biggest?")  # the same chat goes on
    qtbot.waitUntil(lambda: titles(pane) == ["What is the homunculus?"])
    first = pane.chat_id
    assert first and pane.saved.current_id() == first
    pane.saved.new.click()
    assert pane.chat_id is None and pane.turns == []
    tick(pane, SLEEP)
    ask(qtbot, pane, "Why do we dream?")
    qtbot.waitUntil(lambda: len(titles(pane)) == 2)
    assert titles(pane)[0] == "Why do we dream?"  # the newest first

    # reopening the first chat shows both turns, their links and cards, and its scope
    with qtbot.waitSignal(pane.saved.opened):
        pane.saved.list.setCurrentRow(1)
    assert pane.chat_id == first and len(pane.turns) == 2
    assert pane.scope.scope().video_ids == (HOMUNCULUS,)
    turn = pane.turns[0]
    assert turn.question.text() == "What is the homunculus?" and turn.extractive
    assert turn.cards and {t for t, _ in markers(turn.answer)} == {
        f"[{c.card.number}]" for c in turn.cards
    }

    # rename through the prompt
    pane.saved.rename.click()
    prompt = pane.saved.findChild(QInputDialog, "textPrompt")
    assert prompt is not None and prompt.textValue() == "What is the homunculus?"
    prompt.setTextValue("Homunculus notes")
    prompt.accept()  # the list is read again (by the pane, and by the library's change feed)
    qtbot.waitUntil(lambda: "Homunculus notes" in titles(pane))

    # export through the file dialog
    target = tmp_path / "notes.md"
    pane.saved.export.click()
    dialog = pane.saved.findChild(QFileDialog)
    assert dialog is not None and dialog.isVisible()
    with qtbot.waitSignal(pane.saved.exported) as exported:
        dialog.selectFile(str(target))
        dialog.accept()
    assert exported.args == [str(target)]
    text = target.read_text(encoding="utf-8")
    assert text.startswith("# Homunculus notes\n")
    assert (
        "## Which body parts are biggest?" in text and "youtube.com/watch?v=fxZWtc0mYpQ&t=" in text
    )

    # delete the open chat: the pane starts a new one
    pane.saved.delete.click()
    box = pane.saved.findChild(QMessageBox, "confirmBox")
    assert box is not None
    qtbot.mouseClick(box.button(QMessageBox.StandardButton.Yes), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: titles(pane) == ["Why do we dream?"])
    assert pane.chat_id is None and pane.turns == []


class SlowChats:
    """`list_chats` answers only when the test says so, in any order."""

    def __init__(self) -> None:
        self.pending: list[asyncio.Future[list[ChatRecord]]] = []

    async def list_chats(self) -> list[ChatRecord]:
        future: asyncio.Future[list[ChatRecord]] = asyncio.get_running_loop().create_future()
        self.pending.append(future)
        return await future

    async def get_chat(self, chat_id: str) -> ChatRecord:
        return ChatRecord(chat_id, chat_id, {})


def test_an_older_refresh_never_undoes_a_newer_choice(qtbot: QtBot, runner: JobRunner) -> None:
    api = SlowChats()
    saved = SavedChats(api, runner)  # type: ignore[arg-type]
    qtbot.addWidget(saved)
    chats = [ChatRecord("new", "New", {}), ChatRecord("old", "Old", {})]
    saved.refresh("old")  # an answer in "old" finished: highlight it
    saved.refresh()  # the change feed's refresh, started later
    qtbot.waitUntil(lambda: len(api.pending) == 2)
    api.pending[1].set_result(chats)  # the later one arrives first
    qtbot.waitUntil(lambda: saved.list.count() == 2)
    assert saved.current_id() == "old"  # it carried the wish of the one before
    saved.select("new")  # the user went on (a new chat was answered)
    with qtbot.waitSignal(runner.finished):
        api.pending[0].set_result(chats)  # the stale read arrives last
    assert saved.current_id() == "new"
