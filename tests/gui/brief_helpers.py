"""Driving the brief pane in tests: a collection, the form, a build, a citation click, and
reading back what the brief view drew (links, tables, numbered lists, colours, tooltips)."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path

from PySide6.QtCore import QEvent, QPoint, QRect
from PySide6.QtGui import (
    QColor,
    QContextMenuEvent,
    QHelpEvent,
    QTextCursor,
    QTextListFormat,
    QTextTable,
)
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QApplication,
    QMenu,
    QTextBrowser,
    QToolTip,
)
from pytestqt.qtbot import QtBot

from tests.gui.chat_helpers import anchors, click_text_link, link_points
from tests.gui.conftest import wait_for
from tests.unit.briefs.scripted import BriefWriter
from tests.unit.briefs.test_pipeline import Models
from v2c_desktop.core.api import CoreAPI
from v2c_desktop.core.domain.videos import Collection
from v2c_desktop.core.services import Services
from v2c_desktop.core.settings import Settings
from v2c_desktop.ui.links import parse_seek_href
from v2c_desktop.ui.main_window import MainWindow
from v2c_desktop.ui.panes.brief.pane import BriefPane

BUILD_TIMEOUT = 60000
MAKE = "youtube:bSycdIx-C48"  # How We Make Memories: Crash Course Psychology #13
FORGET = "youtube:HVWbrNls-Kw"  # Remembering and Forgetting: Crash Course Psychology #14


def scripted_core(
    qtbot: QtBot, library: Path, path: Path, writer: BriefWriter
) -> Iterator[CoreAPI]:
    """The real core over a copy of `library` whose one chat model is the scripted
    `writer` (tests only: it writes briefs from what its prompts really hold), so a brief
    is a map-reduce brief with verified quotes, in seconds."""
    shutil.copyfile(library, path)
    services = Services.open(
        path, settings=Settings(), registry=Models([writer]), index_on_import=False
    )
    api = CoreAPI(services)
    yield api
    pending = [t for t in asyncio.all_tasks() if not t.done()]  # jobs still using the core
    for task in pending:
        task.cancel()
    qtbot.waitUntil(lambda: all(t.done() for t in pending), timeout=10000)
    wait_for(qtbot, api.aclose())


def make_collection(qtbot: QtBot, core: CoreAPI, name: str, video_ids: list[str]) -> Collection:
    collection = wait_for(qtbot, core.create_collection(name))
    wait_for(qtbot, core.add_to_collection(collection.id, video_ids))
    return collection


def open_briefs(qtbot: QtBot, window: MainWindow, collections: int = 1) -> BriefPane:
    """Show the brief pane (Ctrl+B's action); wait until it knows collections and models."""
    window.actions_.brief.trigger()
    pane = window.brief_pane
    assert window.stack.currentWidget() is pane
    qtbot.waitUntil(lambda: pane.form.collection.count() == collections, timeout=30000)
    qtbot.waitUntil(lambda: "extractive" in pane.form.models.model_ids(), timeout=30000)
    return pane


def ask(
    qtbot: QtBot, pane: BriefPane, collection_id: str, question: str, model: str = "extractive"
) -> None:
    """A brief over a collection (extractive unless `model`: "" is Automatic), typed as a
    person would."""
    form = pane.form
    form.choose_collection(collection_id)
    assert form.models.select(model)
    form.question.clear()
    qtbot.keyClicks(form.question, question)


def seek_links(view: QTextBrowser) -> list[tuple[str, str, float]]:
    """(link text, video id, seconds) of every seek link the view shows, in reading order."""
    found = []
    for text, href in anchors(view):
        target = parse_seek_href(href)
        if target is not None:
            found.append((text, *target))
    return found


def citation_links(pane: BriefPane) -> list[tuple[str, str, float]]:
    """(link text, video id, seconds) of every citation link the brief shows."""
    return seek_links(pane.view.text)


def click_citation(qtbot: QtBot, pane: BriefPane, text: str) -> None:
    click_text_link(qtbot, pane.view.text, text)


# -- what the view drew -----------------------------------------------------------------------
def document_tables(view: QTextBrowser) -> list[QTextTable]:
    return [f for f in view.document().rootFrame().childFrames() if isinstance(f, QTextTable)]


def _cell_span(table: QTextTable, row: int, column: int) -> tuple[int, int]:
    cell = table.cellAt(row, column)
    return cell.firstCursorPosition().position(), cell.lastCursorPosition().position()


def table_text(table: QTextTable, row: int, column: int) -> str:
    first, last = _cell_span(table, row, column)
    cursor = QTextCursor(table.document())
    cursor.setPosition(first)
    cursor.setPosition(last, QTextCursor.MoveMode.KeepAnchor)
    return cursor.selectedText().replace("\u2029", "\n").replace("\u2028", "\n").strip()


def cell_links(table: QTextTable, row: int, column: int) -> list[tuple[str, float]]:
    """(video id, seconds) of the seek links in one cell, in order."""
    first, last = _cell_span(table, row, column)
    cursor = QTextCursor(table.document())
    found: list[tuple[str, float]] = []
    previous = ""
    for position in range(first, last):
        cursor.setPosition(position + 1)  # the format of the character before the cursor
        href = cursor.charFormat().anchorHref()
        if href and href != previous:
            target = parse_seek_href(href)
            if target is not None:
                found.append(target)
        previous = href
    return found


def document_lists(view: QTextBrowser) -> list[tuple[QTextListFormat.Style, list[str]]]:
    """Each list the view drew: its style (bullets, decimal numbers) and its items' text."""
    found: dict[int, tuple[QTextListFormat.Style, list[str]]] = {}
    block = view.document().begin()
    while block.isValid():
        listed = block.textList()
        if listed is not None:
            key = listed.item(0).position()
            if key not in found:
                items = [
                    listed.item(i).text().replace("\u2028", "\n") for i in range(listed.count())
                ]
                found[key] = (listed.format().style(), items)
        block = block.next()
    return list(found.values())


def badge_colour(view: QTextBrowser, text: str) -> QColor:
    """The colour the view draws the piece of text reading exactly `text` in."""
    block = view.document().begin()
    while block.isValid():
        for piece in block:
            fragment = piece.fragment()
            if fragment.text().strip() == text:
                return fragment.charFormat().foreground().color()
        block = block.next()
    raise AssertionError(f"no {text!r} in {view.toPlainText()!r}")


def hover_link(qtbot: QtBot, view: QTextBrowser, text: str) -> str:
    """Rest the mouse on the link reading `text`: the tooltip it shows."""
    points = link_points(view, text)
    assert points, f"no link {text} in: {view.toPlainText()!r}"
    QToolTip.hideText()
    qtbot.waitUntil(lambda: not QToolTip.isVisible())
    at: QPoint = points[0]
    event = QHelpEvent(QEvent.Type.ToolTip, at, view.viewport().mapToGlobal(at))
    QApplication.sendEvent(view.viewport(), event)
    qtbot.waitUntil(QToolTip.isVisible)
    return QToolTip.text()


# -- menus --------------------------------------------------------------------------------------
def right_click(qtbot: QtBot, view: QAbstractScrollArea, rect: QRect) -> None:
    """A right click in the middle of `rect` of a list or table: its context menu."""
    at = rect.center()
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, at, view.viewport().mapToGlobal(at))
    QApplication.sendEvent(view.viewport(), event)


def shown_menu(qtbot: QtBot) -> QMenu:
    """The context menu that just popped up."""

    def popped() -> list[QMenu]:
        return [w for w in QApplication.topLevelWidgets() if isinstance(w, QMenu) and w.isVisible()]

    qtbot.waitUntil(lambda: len(popped()) == 1)
    return popped()[0]


def choose(menu: QMenu, text: str) -> None:
    """Choose the menu's item reading `text`, as a click on it would, and close the menu."""
    (action,) = [a for a in menu.actions() if a.text() == text]
    assert action.isEnabled(), text
    menu.close()
    action.trigger()
